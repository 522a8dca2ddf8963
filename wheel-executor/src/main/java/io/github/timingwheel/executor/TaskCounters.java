package io.github.timingwheel.executor;

import io.github.timingwheel.core.LatencyDistribution;
import io.github.timingwheel.core.LatencyHistogram;

/**
 * What the tasks of one executor (or timer) did so far: totals, the runs in progress and how
 * late runs started. Recorded by the threads that schedule, cancel and run, each in a cell of
 * its own, and read by {@link #snapshot} without stopping them.
 *
 * <p>Every task ends exactly once, in one of four ways, each counted where its state change wins
 * its CAS: completed (a one-shot or timer task whose body returned), failed (its body threw),
 * cancelled, or refused by the task executor. So {@code pending = scheduled - ended} needs no
 * counter of its own.
 */
final class TaskCounters {

    /*
     * Implementation notes
     *
     * [1] Every total lives in CounterCells: each thread adds in a cell of its own (a plain
     *     read and a release store, no atomic read-modify-write), so the producer's path writes
     *     nothing another thread writes, and a read sums the cells. A sum read while others add
     *     is not a snapshot of one instant; each total is exact once the adding stops.
     * [2] pending is derived: a task's 'scheduled' add happens-before its ending add (the task is
     *     counted before it is published through the queue, and it ends after a worker or a
     *     canceller saw it). snapshot() sums the ending totals first and 'scheduled' last, each
     *     cell read with acquire, so every ending it counts has its 'scheduled' counted too:
     *     pending is never negative, and it may count a task that ended during the read.
     * [3] 'running' is runs started minus runs ended, both added on the thread that runs the
     *     body, before the task's outcome is published, and read ended-first: once a future is
     *     done its run is no longer counted as running, and running is never negative.
     * [4] Runs and task endings are counted apart. A run is counted when its body returns or
     *     throws, on the thread that ran it, whatever happens to the task's future meanwhile: a
     *     body that cancels its own future (a deadline task does) still ran. Endings (completed,
     *     failed, cancelled, refused) are counted where the task's state change wins its CAS,
     *     and only they make pending. So ran + failed counts every run that ended, the same runs
     *     as the lateness histogram, and a task cancelled while its body ran counts a run and a
     *     cancel.
     * [5] How late runs started is a LatencyHistogram's buckets kept as totals of the cells
     *     (LATENESS onwards) and its maximum as a maximum of the cells (CounterCells [5]), so a
     *     run's start is one cell look-up and release stores to its own cell, where a LongAdder
     *     per bucket cost an atomic read-modify-write per run, and a LongAccumulator for the
     *     maximum another whenever it rose, which in a burst is every run.
     * [6] Cancelled tasks still held (ScheduledTask [7]): kept minus left, two totals. A task's
     *     'kept' add happens-before the CAS that lets anyone count it as left, and snapshot()
     *     reads 'left' first, so the difference is never negative.
     * [7] Two totals are also kept by the queue's shards: a new task, or a cancel, that its
     *     thread applies in place in a shard is counted there, under the shard's lock, with no
     *     look-up of the thread's cell (WheelShard [8]); only what goes through a shard's
     *     inbox, or never reaches the queue, is counted here. Each total is the cells' sum
     *     plus the shards', and [2] holds for both: a shard counts a task before its unlock
     *     publishes the task.
     */

    /** Tasks accepted: one-shot, periodic (once, not per run) and timer timeouts. */
    private static final int SCHEDULED = 0;
    /** Tasks whose future (or timeout) was cancelled: each ends the task. */
    private static final int CANCELLED = 1;
    /** One-shot and timer tasks whose body returned: each ends the task. */
    private static final int COMPLETED = 2;
    /** Tasks whose body threw (ending the task): its future completed with the exception. */
    private static final int FAILED = 3;
    /** Runs whose body threw, whatever became of the task's future ([4]). */
    private static final int RUNS_FAILED = 4;
    /** Submissions refused: after shutdown, or past the bound on pending tasks. */
    private static final int REFUSED = 5;
    /** Bodies the task executor refused: each ends the task. */
    private static final int REFUSED_RUNS = 6;
    /** Runs that started, and runs that ended ([3]). */
    private static final int RUNS_STARTED = 7;
    private static final int RUNS_ENDED = 8;
    /** Cancelled tasks the queue kept (remove-on-cancel off), and those of them that left it ([6]). */
    private static final int HELD_AFTER_CANCEL = 9;
    private static final int HELD_LEFT = 10;
    /** How late runs started: the first of LatencyHistogram.BUCKETS totals, one per bucket ([5]). */
    private static final int LATENESS = 11;
    private static final int TOTALS = LATENESS + LatencyHistogram.BUCKETS;
    /** The latest start of a run against its deadline, in nanoseconds: a maximum ([5]). */
    private static final int LATENESS_MAX = TOTALS;

    private final CounterCells cells = new CounterCells(TOTALS, 1);

    void scheduled() {
        cells.add(SCHEDULED, 1);
    }

    /** Takes back a {@link #scheduled()} for a task that was refused after all. */
    void unscheduled() {
        cells.add(SCHEDULED, -1);
    }

    void cancelled() {
        cells.add(CANCELLED, 1);
    }

    /** A one-shot or timer task's body returned, counted in the cell of {@link #runCell()}. */
    void completed(long[] cell) {
        cells.add(cell, COMPLETED, 1);
    }

    void failed() {
        cells.add(FAILED, 1);
    }

    void refused() {
        cells.add(REFUSED, 1);
    }

    void refusedRun() {
        cells.add(REFUSED_RUNS, 1);
    }

    /** A cancel keeps its task in the queue ({@code 1}), or takes that back ({@code -1}) ([6]). */
    void heldAfterCancel(int delta) {
        cells.add(HELD_AFTER_CANCEL, delta);
    }

    /** A cancelled task that the queue kept has left it ([6]). */
    void heldLeft() {
        cells.add(HELD_LEFT, 1);
    }

    /**
     * The calling thread's cell, looked up once for the counts of one run on this thread
     * (CounterCells [7]): runStarted, runEnded and completed take it.
     */
    long[] runCell() {
        return cells.mine();
    }

    /** Counts a run as started, and how late it started against its deadline ([5]). */
    void runStarted(long[] cell, long latenessNanos) {
        long late = Math.max(0L, latenessNanos);
        cells.countAndRaise(cell, RUNS_STARTED, LATENESS + LatencyHistogram.bucketOf(late), LATENESS_MAX, late);
    }

    /** Counts a run as ended ([3]), and as failed if its body threw ([4]). */
    void runEnded(long[] cell, boolean threw) {
        if (threw) {
            cells.add(cell, RUNS_FAILED, 1);
        }
        cells.add(cell, RUNS_ENDED, 1);
    }

    /** How late runs started so far ([5]). */
    private LatencyDistribution lateness() {
        long[] counts = new long[LatencyHistogram.BUCKETS];
        for (int bucket = 0; bucket < counts.length; bucket++) {
            counts[bucket] = cells.sum(LATENESS + bucket);
        }
        return LatencyDistribution.of(counts, cells.max(LATENESS_MAX));
    }

    /**
     * The totals now ([1], [2], [3]), with the counts that the queue's shards keep ([7]).
     *
     * @param queue the queue whose shards count new tasks and cancels applied in place
     */
    SchedulerMetrics snapshot(String name, int workers, WheelWorkQueue queue, long wakeUps) {
        long rearms = queue.relinks();
        long completedNow = cells.sum(COMPLETED);
        long failedNow = cells.sum(FAILED);
        long cancelledNow = cells.sum(CANCELLED) + queue.cancelledInShards();
        long refusedRunsNow = cells.sum(REFUSED_RUNS);
        long refusedNow = cells.sum(REFUSED);
        long runsFailed = cells.sum(RUNS_FAILED);
        long runsEnded = cells.sum(RUNS_ENDED); // after the failed ones: runsEnded >= runsFailed
        long runsStarted = cells.sum(RUNS_STARTED); // after the ended ones: see [3]
        long scheduledNow = cells.sum(SCHEDULED) + queue.scheduledInShards(); // last: see [2]
        long heldLeft = cells.sum(HELD_LEFT);
        long held = cells.sum(HELD_AFTER_CANCEL) - heldLeft; // after 'left': see [6]
        long ended = completedNow + failedNow + cancelledNow + refusedRunsNow;
        return new SchedulerMetrics(name, workers, Math.max(0L, scheduledNow - ended), scheduledNow,
                cancelledNow, runsEnded - runsFailed, runsFailed, refusedNow + refusedRunsNow,
                Math.max(0L, runsStarted - runsEnded), Math.max(0L, held), rearms, wakeUps, lateness());
    }
}
