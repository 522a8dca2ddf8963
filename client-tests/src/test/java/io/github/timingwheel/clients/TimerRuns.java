package io.github.timingwheel.clients;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * How many timers ran, counted once none can still be running. A client tells the test that a
 * call ended from inside the timer's body, so when the last call has ended, the last body may
 * not have returned yet and its run may not be counted: a count read then can be one short.
 */
final class TimerRuns {

    private TimerRuns() {
    }

    /**
     * Shuts {@code timers} down, waits for it to terminate, and answers how many runs ended
     * normally. A timer still pending holds the shutdown until it runs, and fails the wait if
     * that is more than 30 s away; a cancelled one does not (the shutdown drops it), so look for
     * cancelled tasks left in the queue before calling this.
     */
    static long afterShutdown(WheelScheduledExecutor timers) throws InterruptedException {
        timers.shutdown();
        assertThat(timers.awaitTermination(30, SECONDS)).as("every timer ran or was cancelled").isTrue();
        return timers.metrics().ran();
    }

    /**
     * Waits, at most 10 s, until {@code runs} reads at least {@code expected}, and answers what it
     * read last: for a scheduler that cannot be shut down to count its last run (a timer the
     * client shares, or one the client keeps a timer of its own on).
     */
    static long awaitAtLeast(LongSupplier runs, long expected) {
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        long seen;
        while ((seen = runs.getAsLong()) < expected && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(MILLISECONDS.toNanos(1L));
        }
        return seen;
    }
}
