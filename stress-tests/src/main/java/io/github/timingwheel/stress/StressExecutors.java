package io.github.timingwheel.stress;

import io.github.timingwheel.core.WheelShape;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.netty.util.Timer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the executor stress tests share: executors that outlive the many {@code @State} objects
 * jcstress makes, and the wait that tells an arbiter a worker has gone past a task.
 *
 * <p>jcstress creates millions of states per test, so a state must not start threads. The tests
 * share one executor per test class (a static final field, created once per forked VM); its
 * threads are daemons, so the fork exits without a shutdown.
 */
final class StressExecutors {

    /** How long an arbiter waits for a worker before it reports the wait as failed. */
    static final long WAIT_SECONDS = 10L;

    /** The result an arbiter records when the worker did not get past the task in time. */
    static final int LOST = -1;

    private static final Runnable NOOP = () -> { };

    private StressExecutors() {
    }

    /** A daemon executor with one worker: every task it runs runs on that one thread, in order. */
    static WheelScheduledExecutor oneWorker(String name) {
        return WheelScheduledExecutor.builder()
                .workers(1)
                .daemon(true)
                .threadNamePrefix(name + "-worker-")
                .build();
    }

    /**
     * A daemon executor with one worker and a one-level wheel of 4 slots: cheap enough to make
     * one per state (its worker starts only with its first task).
     */
    static WheelScheduledExecutor smallOneWorker() {
        return WheelScheduledExecutor.builder()
                .workers(1)
                .daemon(true)
                .shape(WheelShape.builder().slotsPerLevel(4).levels(1).build())
                .threadNamePrefix("stress-per-state-worker-")
                .build();
    }

    /** A daemon timer with one worker. */
    static WheelTimer oneWorkerTimer(String name) {
        return WheelTimer.builder().daemon(true).threadNamePrefix(name + "-worker-").build();
    }

    /**
     * Waits until the one worker of {@code executor} has run a marker submitted now. The marker
     * has delay 0, so its deadline is no earlier than that of any zero-delay task submitted
     * before (happens-before) this call, and ties go in submission order: when it has run, the
     * worker has taken, run or skipped each of those tasks.
     *
     * @return false if the marker did not run within {@link #WAIT_SECONDS} (a lost wake-up)
     */
    static boolean awaitWorkerPassed(ScheduledExecutorService executor) {
        try {
            executor.submit(NOOP).get(WAIT_SECONDS, TimeUnit.SECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException("the marker failed", e);
        }
    }

    /** As {@link #awaitWorkerPassed(ScheduledExecutorService)}, for a one-worker timer. */
    static boolean awaitWorkerPassed(Timer timer) {
        CountDownLatch marker = new CountDownLatch(1);
        timer.newTimeout(timeout -> marker.countDown(), 0L, TimeUnit.NANOSECONDS);
        try {
            return marker.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
