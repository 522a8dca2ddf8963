package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;

/**
 * An executor that reports each task run through {@code afterExecute}, which a worker calls once
 * {@code run} has returned: for a periodic task that is after its next deadline is set and it
 * is back in the wheel, so a test on a manual clock knows when it may move the clock again.
 */
final class RunObservingExecutor extends WheelScheduledExecutor {

    private final Semaphore runsDone = new Semaphore(0);
    /** After each run of a periodic task: its next deadline in wheel time, as the run left it. */
    final List<Long> nextDeadlines = new CopyOnWriteArrayList<>();

    RunObservingExecutor(Builder builder) {
        super(builder);
    }

    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
        if (task instanceof ScheduledTask<?> scheduled && scheduled.isPeriodic()) {
            nextDeadlines.add(scheduled.deadline());
        }
        runsDone.release();
    }

    /** Waits until {@code runs} more runs have returned (bounded by {@link ExecutorTesting#TIMEOUT_SECONDS}). */
    void awaitRuns(int runs) throws InterruptedException {
        assertThat(runsDone.tryAcquire(runs, TIMEOUT_SECONDS, SECONDS))
                .as("%d runs returned within %d s (%d seen)", runs, TIMEOUT_SECONDS, runsDone.availablePermits())
                .isTrue();
    }

    /** Runs that returned and were not yet awaited. */
    int runsNotAwaited() {
        return runsDone.availablePermits();
    }
}
