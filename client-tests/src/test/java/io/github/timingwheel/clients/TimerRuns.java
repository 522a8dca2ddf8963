package io.github.timingwheel.clients;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.executor.WheelScheduledExecutor;

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
}
