package io.github.timingwheel.executor;

import io.github.timingwheel.core.LatencyHistogram;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the tasks of one executor (or timer) did so far: totals, the runs in progress and how
 * late runs started. Recorded by the threads that schedule, cancel and run, read by
 * {@link #snapshot} without stopping them.
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
     * [1] Every total is a LongAdder: producers on many threads add without meeting on one
     *     cache line, and a read is a sum over the cells. A sum read while others add is not a
     *     snapshot of one instant; each total is exact once the adding stops.
     * [2] pending is derived: a task's 'scheduled' increment happens-before its ending increment
     *     (the task is counted before it is published through the queue, and it ends after a
     *     worker or a canceller saw it). snapshot() sums the ending totals first and 'scheduled'
     *     last, so every ending it counts has its 'scheduled' counted too: pending is never
     *     negative, and it may count a task that ended during the read.
     * [3] 'running' goes up before a body runs and down after it returned, both on the thread
     *     that runs it, before the task's outcome is published: once a future is done, its run
     *     is no longer counted as running.
     */

    /** Tasks accepted: one-shot, periodic (once, not per run) and timer timeouts. */
    private final LongAdder scheduled = new LongAdder();
    /** Tasks whose future (or timeout) was cancelled: each ends the task. */
    private final LongAdder cancelled = new LongAdder();
    /** One-shot and timer tasks whose body returned: each ends the task. */
    private final LongAdder completed = new LongAdder();
    /** Runs of periodic tasks that returned; the task goes on. */
    private final LongAdder repeated = new LongAdder();
    /** Runs that threw: each ends the task. */
    private final LongAdder failed = new LongAdder();
    /** Submissions refused: after shutdown, or past the bound on pending tasks. */
    private final LongAdder refused = new LongAdder();
    /** Bodies the task executor refused: each ends the task. */
    private final LongAdder refusedRuns = new LongAdder();
    /** Bodies running now ([3]). */
    private final LongAdder running = new LongAdder();
    /** How late each run started, in nanoseconds of the executor's time source. */
    private final LatencyHistogram lateness = new LatencyHistogram();

    void scheduled() {
        scheduled.increment();
    }

    /** Takes back a {@link #scheduled()} for a task that was refused after all. */
    void unscheduled() {
        scheduled.decrement();
    }

    void cancelled() {
        cancelled.increment();
    }

    void completed() {
        completed.increment();
    }

    void repeated() {
        repeated.increment();
    }

    void failed() {
        failed.increment();
    }

    void refused() {
        refused.increment();
    }

    void refusedRun() {
        refusedRuns.increment();
    }

    void runStarted(long latenessNanos) {
        running.increment();
        lateness.record(latenessNanos);
    }

    void runEnded() {
        running.decrement();
    }

    /** The totals now ([1], [2]). */
    SchedulerMetrics snapshot(String name, int workers) {
        long completedNow = completed.sum();
        long failedNow = failed.sum();
        long cancelledNow = cancelled.sum();
        long refusedRunsNow = refusedRuns.sum();
        long repeatedNow = repeated.sum();
        long refusedNow = refused.sum();
        long runningNow = running.sum();
        long scheduledNow = scheduled.sum(); // last: see [2]
        long ended = completedNow + failedNow + cancelledNow + refusedRunsNow;
        return new SchedulerMetrics(name, workers, Math.max(0L, scheduledNow - ended), scheduledNow,
                cancelledNow, completedNow + repeatedNow, failedNow, refusedNow + refusedRunsNow,
                Math.max(0L, runningNow), lateness.snapshot());
    }
}
