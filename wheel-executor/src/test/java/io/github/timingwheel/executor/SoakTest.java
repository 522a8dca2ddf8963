package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A bounded soak: for {@code -Dwheel.soak.seconds} (default 5), several producer threads mix
 * one-shot and periodic tasks, cancels, tasks that throw a {@code RuntimeException} or an
 * {@code Error}, and tasks that block briefly, on one {@link WheelScheduledExecutor} with two
 * workers; then the executor is shut down. It checks:
 *
 * <ul>
 *   <li>exactly once: every one-shot task that was not cancelled ran once, none twice, and none
 *       started after a {@code cancel(false)} that returned true unless a worker had entered its
 *       run before the cancel won ({@link CancelWitness});
 *   <li>never early: each one-shot run, and each periodic run (fixed rate: at
 *       {@code initialDelay + n * period}; fixed delay: {@code delay} after the previous run
 *       ended), starts no earlier than its deadline, measured from before the call that
 *       scheduled it;
 *   <li>periodic counts: a periodic task ran no more often than its lifetime allows
 *       ({@code (lifetime - initialDelay) / period + 1}), and at least once: a producer ends a
 *       periodic task whose time is up only once it has run, waiting for that up to {@link
 *       ExecutorTesting#TIMEOUT_SECONDS} (a task that has not run by then is a violation), so the
 *       check does not depend on how much CPU the run gets. One that throws on its third run is
 *       ended only once that run has ended it, and ran exactly three times;
 *   <li>no worker died: the pool still has its two threads and the thread factory never made a
 *       third;
 *   <li>a flat heap: heap used after a GC at the end is not much above the same figure at one
 *       third of the run, although many times more tasks came and went in between; and a sample
 *       of finished and cancelled tasks (weakly referenced) is collectable while the executor
 *       is still alive, so the wheel keeps no task it is done with.
 * </ul>
 *
 * The producers keep at most {@link #MAX_PENDING} tasks pending, so the test's own bookkeeping
 * (the set of tasks not yet run) stays bounded and does not hide a leak. The figures of the run
 * are printed at the end.
 *
 * <p>Not tagged {@code timing}: every check here is a correctness property, so it runs in the
 * Surefire execution without reruns, where one failure fails the build (a rerun with a fresh
 * seed would report a violation that the next seed missed as a mere flake). What depends on the
 * machine is waited for, never timed: the pending tasks (bounded wait), a periodic task's runs
 * (bounded wait, see {@link Periodic#checkCount}), the heap and the weakly kept samples (read
 * again after more collections for up to {@link ExecutorTesting#TIMEOUT_SECONDS}).
 */
class SoakTest {

    private static final long SECONDS_TO_RUN = Long.getLong("wheel.soak.seconds", 5L);
    private static final int WORKERS = 2;
    private static final int PRODUCERS = 3;
    private static final int MAX_PENDING = 20_000;
    /** The longest one-shot delay: tasks come and go within the run. */
    private static final long MAX_DELAY_NANOS = MILLISECONDS.toNanos(20L);
    /** One task in this many blocks its worker for up to a millisecond. */
    private static final int BLOCK_ONE_IN = 2_000;
    /** Every this many tasks, one is kept weakly to check that it can be collected. */
    private static final int SAMPLE_ONE_IN = 997;
    /** Slack on the heap comparison: GC noise, JIT and class data, far below a leak of the run. */
    private static final long HEAP_SLACK_BYTES = 24L << 20;

    /** How long a producer waits for a periodic task whose time is up to have run enough. */
    private static final long RUNS_WAIT_NANOS = SECONDS.toNanos(TIMEOUT_SECONDS);

    /** Failures seen inside tasks, where an assertion would be swallowed by the future. */
    private final Set<String> violations = ConcurrentHashMap.newKeySet();
    /** One-shot probes that are neither run nor cancelled. */
    private final Set<OneShot> pending = ConcurrentHashMap.newKeySet();
    private final List<WeakReference<Object>> samples = new CopyOnWriteArrayList<>();
    private final Counters counters = new Counters();

    private static final class Counters {
        final LongAdder scheduled = new LongAdder();
        final LongAdder periodicScheduled = new LongAdder();
        final LongAdder cancelled = new LongAdder();
        final LongAdder cancelsLost = new LongAdder();
        final LongAdder ran = new LongAdder();
        final LongAdder periodicRuns = new LongAdder();
        final LongAdder thrown = new LongAdder();
        final LongAdder blocked = new LongAdder();
        final LongAdder claimedBeforeCancel = new LongAdder();
    }

    /**
     * A one-shot task body that checks its own start. Its witness tells a start after a
     * successful {@code cancel(false)} returned (a violation) from one a worker had entered
     * before the cancel won (FutureTask's behaviour, allowed once): see {@link CancelWitness}.
     * Shown to catch a {@code ScheduledTask.cancel} that returns true without its CAS on one
     * call in 256, leaving the task to fire; and one that, on one call in 256, makes its CAS
     * (the future reports itself cancelled) but keeps the body, the task in the wheel and
     * {@code runBody} willing to run it: only the witness sees that.
     */
    private final class OneShot implements CancelWitness.Witnessed {
        final long submittedBefore;
        final long delayNanos;
        final int kind;
        final AtomicBoolean ran = new AtomicBoolean();
        final CancelWitness witness = new CancelWitness();

        OneShot(long submittedBefore, long delayNanos, int kind) {
            this.submittedBefore = submittedBefore;
            this.delayNanos = delayNanos;
            this.kind = kind;
        }

        @Override
        public CancelWitness witness() {
            return witness;
        }

        @Override
        public void run() {
            long startedAfter = System.nanoTime() - submittedBefore;
            if (witness.bodyStartsAfterCancel()) {
                violations.add("a one-shot task started after cancel(false) returned true, no worker"
                        + " having entered its run before");
            }
            if (!ran.compareAndSet(false, true)) {
                violations.add("a one-shot task ran twice");
            }
            if (startedAfter < delayNanos) {
                violations.add("a one-shot task started " + (delayNanos - startedAfter) + " ns early");
            }
            pending.remove(this);
            counters.ran.increment();
            switch (kind) {
                case 1 -> {
                    counters.thrown.increment();
                    throw new IllegalStateException("soak: a task that throws");
                }
                case 2 -> {
                    counters.thrown.increment();
                    throw new SoakError();
                }
                case 3 -> {
                    counters.blocked.increment();
                    LockSupport.parkNanos(MILLISECONDS.toNanos(1L));
                }
                default -> { }
            }
        }
    }

    /** An Error thrown by a task on purpose; the worker must survive it. */
    private static final class SoakError extends Error {
        private static final long serialVersionUID = 1L;

        SoakError() {
            super("soak: a task that throws an Error", null, false, false);
        }
    }

    /** A periodic task body that checks each start against its schedule. */
    private final class Periodic implements Runnable {
        final long submittedBefore;
        final long initialDelayNanos;
        final long periodNanos;
        final boolean fixedRate;
        /** Throw on this run (0-based), ending the task; -1 for never. */
        final int throwOnRun;
        final AtomicInteger runs = new AtomicInteger();
        /** End of the previous run; runs of one task happen-before each other. */
        long previousEnd;
        volatile boolean cancelReturnedTrue;
        long cancelReturnedAt;
        /** Starts seen after cancel returned true; runs of one task happen-before each other. */
        int startsAfterCancel;

        Periodic(long submittedBefore, long initialDelayNanos, long periodNanos, boolean fixedRate,
                int throwOnRun) {
            this.submittedBefore = submittedBefore;
            this.initialDelayNanos = initialDelayNanos;
            this.periodNanos = periodNanos;
            this.fixedRate = fixedRate;
            this.throwOnRun = throwOnRun;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            if (cancelReturnedTrue && startsAfterCancel++ > 0) {
                // One start may follow a successful cancel(false): the run a worker had claimed
                // before the cancel won (FutureTask's behaviour). No later run may start.
                violations.add("a periodic task started twice after cancel returned true");
            }
            int run = runs.getAndIncrement();
            long earliest = fixedRate || run == 0
                    ? submittedBefore + initialDelayNanos + (fixedRate ? run * periodNanos : 0L)
                    : previousEnd + periodNanos;
            if (now - earliest < 0) {
                violations.add("periodic run " + run + " started " + (earliest - now) + " ns early");
            }
            counters.periodicRuns.increment();
            if (run == throwOnRun) {
                counters.thrown.increment();
                throw new IllegalStateException("soak: a periodic task that throws");
            }
            previousEnd = System.nanoTime();
        }

        /**
         * Whether the task has run enough to be ended and checked: once, or, for one that throws,
         * until the run that throws has ended it.
         */
        boolean ranEnough(ScheduledFuture<?> future) {
            return throwOnRun >= 0 ? future.isDone() : runs.get() > 0;
        }

        /**
         * Checks the run count once no run can start any more. The producers end a task only
         * once {@link #ranEnough}, or after {@link #RUNS_WAIT_NANOS} (then it fails here). Shown
         * to catch a {@code PeriodicTask.runAgain} that does nothing (each periodic task runs
         * once and is never queued again).
         */
        void checkCount(long endedAt) {
            int count = runs.get();
            long lived = endedAt - submittedBefore - initialDelayNanos;
            long most = lived < 0 ? 0 : lived / periodNanos + 1;
            if (throwOnRun >= 0) {
                most = Math.min(most, throwOnRun + 1);
            }
            assertThat(count).as("runs of a periodic task that lived %d ns", endedAt - submittedBefore)
                    .isLessThanOrEqualTo((int) Math.min(most, Integer.MAX_VALUE));
            if (throwOnRun >= 0) {
                assertThat(count).as("runs of a periodic task that throws on run %d", throwOnRun + 1)
                        .isEqualTo(throwOnRun + 1);
            } else {
                assertThat(count).as("runs of a periodic task that lived %d ns", endedAt - submittedBefore)
                        .isPositive();
            }
        }
    }

    @Test
    void mixedLoad_fromSeveralThreads_losesNothing_runsNothingTwiceOrEarly_andLeaksNothing()
            throws Exception {
        long seed = System.nanoTime();
        AtomicInteger threadsMade = new AtomicInteger();
        ThreadFactory threads = runnable -> {
            Thread thread = new Thread(runnable, "soak-worker-" + threadsMade.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        WheelScheduledExecutor executor = new CancelWitness.WitnessingExecutor(WheelScheduledExecutor.builder()
                .workers(WORKERS).threadFactory(threads));
        Map<Periodic, ScheduledFuture<?>> longLived = new ConcurrentHashMap<>();
        long runNanos = SECONDS.toNanos(SECONDS_TO_RUN);
        long start = System.nanoTime();
        AtomicLong heapAtOneThird = new AtomicLong(-1L);
        try {
            List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                Random random = new Random(seed + p);
                Thread producer = new Thread(() -> produce(executor, random, start, runNanos, longLived),
                        "soak-producer-" + p);
                producers.add(producer);
                producer.start();
            }
            ExecutorTesting.observeFor(runNanos / 3, NANOSECONDS);
            heapAtOneThird.set(heapUsedAfterGc());
            long scheduledAtOneThird = counters.scheduled.sum();
            for (Thread producer : producers) {
                producer.join(SECONDS.toMillis(SECONDS_TO_RUN + TIMEOUT_SECONDS));
                assertThat(producer.isAlive()).as(producer.getName()).isFalse();
            }

            long endedAt = System.nanoTime();
            for (Map.Entry<Periodic, ScheduledFuture<?>> entry : longLived.entrySet()) {
                awaitRanEnough(entry.getKey(), entry.getValue(), endedAt);
                cancel(entry.getKey(), entry.getValue());
            }
            awaitCondition("every one-shot task not cancelled has run (" + pending.size() + " left)",
                    pending::isEmpty);
            for (Periodic periodic : longLived.keySet()) {
                periodic.checkCount(periodic.cancelReturnedAt == 0L ? endedAt : periodic.cancelReturnedAt);
            }
            longLived.clear();
            assertThat(violations).as("seed %d", seed).isEmpty();
            assertThat(executor.getPoolSize()).as("workers alive").isEqualTo(WORKERS);
            assertThat(threadsMade).as("threads made: a dead worker would be replaced").hasValue(WORKERS);

            long heapAtEnd = heapUsedAfterGc(heapAtOneThird.get() + HEAP_SLACK_BYTES);
            long scheduled = counters.scheduled.sum();
            assertThat(scheduled).as("tasks scheduled after one third").isGreaterThan(scheduledAtOneThird);
            assertThat(heapAtEnd).as("heap used after GC at the end, vs %d B at one third (%d of %d "
                            + "tasks scheduled then)", heapAtOneThird.get(), scheduledAtOneThird, scheduled)
                    .isLessThan(heapAtOneThird.get() + HEAP_SLACK_BYTES);
            assertSamplesCollected();
            assertThat(executor.getQueue()).as("queue after the last task").isEmpty();

            executor.shutdown();
            awaitTermination(executor);
            assertThat(violations).as("seed %d", seed).isEmpty();
            System.out.printf("soak: %d s, seed %d: %d one-shot and %d periodic tasks scheduled, %d "
                            + "cancelled (%d cancels too late, %d won after a worker had entered the run), %d one-shot runs, %d periodic runs, %d "
                            + "thrown, %d blocked; heap after GC %d KiB at 1/3, %d KiB at the end; "
                            + "%d samples collected%n",
                    SECONDS_TO_RUN, seed, scheduled, counters.periodicScheduled.sum(),
                    counters.cancelled.sum(), counters.cancelsLost.sum(), counters.claimedBeforeCancel.sum(),
                    counters.ran.sum(),
                    counters.periodicRuns.sum(), counters.thrown.sum(), counters.blocked.sum(),
                    heapAtOneThird.get() >> 10, heapAtEnd >> 10, samples.size());
        } finally {
            executor.shutdownNow();
        }
    }

    /** One producer: a random mix until the end of the run, at most MAX_PENDING pending. */
    private void produce(WheelScheduledExecutor executor, Random random, long start, long runNanos,
            Map<Periodic, ScheduledFuture<?>> longLived) {
        // A few periodic tasks that live the whole run, so that their counts are meaningful.
        for (int i = 0; i < 2; i++) {
            long before = System.nanoTime();
            Periodic periodic = new Periodic(before, MILLISECONDS.toNanos(random.nextInt(5)),
                    MILLISECONDS.toNanos(5L + random.nextInt(10)), i == 0, -1);
            longLived.put(periodic, schedule(executor, periodic));
        }
        // Recent one-shot futures, for cancels that come a little later; bounded.
        Object[][] recent = new Object[64][];
        List<Object[]> shortPeriodic = new ArrayList<>();
        long ops = 0;
        while (System.nanoTime() - start < runNanos) {
            if (pending.size() >= MAX_PENDING) {
                LockSupport.parkNanos(50_000L);
                continue;
            }
            ops++;
            int dice = random.nextInt(1000);
            if (dice < 5) {
                long before = System.nanoTime();
                Periodic periodic = new Periodic(before, MILLISECONDS.toNanos(random.nextInt(3)),
                        MILLISECONDS.toNanos(1L + random.nextInt(5)), random.nextBoolean(),
                        random.nextInt(4) == 0 ? 2 : -1);
                shortPeriodic.add(new Object[] {periodic, schedule(executor, periodic),
                        before + MILLISECONDS.toNanos(10L + random.nextInt(100))});
            } else {
                long delay = random.nextInt(4) == 0 ? 0L : (long) (random.nextDouble() * MAX_DELAY_NANOS);
                int kind = dice < 20 ? 1 : dice < 25 ? 2 : random.nextInt(BLOCK_ONE_IN) == 0 ? 3 : 0;
                long before = System.nanoTime();
                OneShot task = new OneShot(before, delay, kind);
                pending.add(task);
                ScheduledFuture<?> future = executor.schedule(task, delay, NANOSECONDS);
                counters.scheduled.increment();
                if (ops % SAMPLE_ONE_IN == 0) {
                    samples.add(new WeakReference<>(future));
                }
                if (dice >= 900) {
                    cancel(task, future); // at once
                } else if (dice >= 700) {
                    int slot = random.nextInt(recent.length);
                    Object[] older = recent[slot];
                    recent[slot] = new Object[] {task, future};
                    if (older != null) {
                        cancel((OneShot) older[0], (ScheduledFuture<?>) older[1]); // a little later
                    }
                }
            }
            endPeriodicTasksDue(shortPeriodic);
        }
        for (Object[] entry : shortPeriodic) {
            Periodic periodic = (Periodic) entry[0];
            awaitRanEnough(periodic, (ScheduledFuture<?>) entry[1], (long) entry[2]);
            cancel(periodic, (ScheduledFuture<?>) entry[1]);
            awaitQuietly(periodic);
        }
    }

    private ScheduledFuture<?> schedule(WheelScheduledExecutor executor, Periodic periodic) {
        counters.periodicScheduled.increment();
        return periodic.fixedRate
                ? executor.scheduleAtFixedRate(periodic, periodic.initialDelayNanos, periodic.periodNanos, NANOSECONDS)
                : executor.scheduleWithFixedDelay(periodic, periodic.initialDelayNanos, periodic.periodNanos,
                        NANOSECONDS);
    }

    /**
     * Cancels the short-lived periodic tasks whose time is up and that have run enough (or have
     * waited {@link #RUNS_WAIT_NANOS} past their time for it), and checks their counts.
     */
    private void endPeriodicTasksDue(List<Object[]> shortPeriodic) {
        long now = System.nanoTime();
        for (int i = shortPeriodic.size() - 1; i >= 0; i--) {
            Object[] entry = shortPeriodic.get(i);
            Periodic periodic = (Periodic) entry[0];
            ScheduledFuture<?> future = (ScheduledFuture<?>) entry[1];
            long endAt = (long) entry[2];
            if (now - endAt >= 0 && (periodic.ranEnough(future) || now - endAt - RUNS_WAIT_NANOS >= 0)) {
                cancel(periodic, future);
                if (future.isCancelled() || periodic.throwOnRun >= 0) {
                    samples.add(new WeakReference<>(future));
                }
                shortPeriodic.set(i, shortPeriodic.get(shortPeriodic.size() - 1));
                shortPeriodic.remove(shortPeriodic.size() - 1);
                awaitQuietly(periodic);
            }
        }
    }

    /** Waits, up to RUNS_WAIT_NANOS after {@code endAt}, until the task has run enough to be ended. */
    private static void awaitRanEnough(Periodic periodic, ScheduledFuture<?> future, long endAt) {
        while (!periodic.ranEnough(future) && System.nanoTime() - endAt - RUNS_WAIT_NANOS < 0) {
            LockSupport.parkNanos(MILLISECONDS.toNanos(1L));
        }
    }

    /** Checks a periodic task's count once a run in progress at the cancel has surely ended. */
    private void awaitQuietly(Periodic periodic) {
        try {
            periodic.checkCount(periodic.cancelReturnedAt == 0L ? System.nanoTime() : periodic.cancelReturnedAt);
        } catch (AssertionError e) {
            violations.add(e.getMessage());
        }
    }

    private void cancel(OneShot task, ScheduledFuture<?> future) {
        if (future.cancel(false)) {
            if (!future.isCancelled()) {
                violations.add("cancel(false) returned true but the future is not cancelled");
            }
            if (task.witness.cancelReturnedTrue()) {
                // A worker entered the run before the cancel won: the body may still start,
                // once (FutureTask's behaviour); "ran twice" bounds it to that one run.
                counters.claimedBeforeCancel.increment();
            }
            pending.remove(task);
            counters.cancelled.increment();
        } else {
            counters.cancelsLost.increment();
        }
    }

    private void cancel(Periodic periodic, ScheduledFuture<?> future) {
        if (future.cancel(false)) {
            periodic.cancelReturnedAt = System.nanoTime();
            periodic.cancelReturnedTrue = true;
            counters.cancelled.increment();
        } else {
            periodic.cancelReturnedAt = System.nanoTime(); // ended by its exception before
        }
    }

    private void assertSamplesCollected() {
        assertThat(samples).as("weakly kept tasks").isNotEmpty();
        long deadline = System.nanoTime() + SECONDS.toNanos(TIMEOUT_SECONDS);
        int alive;
        do {
            System.gc();
            alive = 0;
            for (WeakReference<Object> sample : samples) {
                if (sample.get() != null) {
                    alive++;
                }
            }
        } while (alive > 0 && System.nanoTime() - deadline < 0);
        assertThat(alive).as("finished or cancelled tasks still reachable, of %d sampled", samples.size())
                .isZero();
    }

    private static long heapUsedAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /**
     * The least heap used after a GC, measured again (for up to {@link
     * ExecutorTesting#TIMEOUT_SECONDS}) while it is at or above {@code bound}: on a loaded machine
     * one reading may still count garbage that one collection left, or what a worker had not yet
     * let go of. A leak stays above the bound however often it is read.
     */
    private static long heapUsedAfterGc(long bound) {
        long deadline = System.nanoTime() + SECONDS.toNanos(TIMEOUT_SECONDS);
        long used = heapUsedAfterGc();
        while (used >= bound && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(MILLISECONDS.toNanos(100L));
            used = Math.min(used, heapUsedAfterGc());
        }
        return used;
    }
}
