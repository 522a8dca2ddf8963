package io.github.timingwheel.clients;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.executor.WheelScheduledExecutor;

/** What a client leaves behind when every call it timed completed in time: nothing. */
final class EveryTimerCancelled {

    private EveryTimerCancelled() {
    }

    /**
     * Asserts that {@code timers} armed exactly {@code armed} timers, that each was cancelled,
     * and that none is left pending or in the queue.
     */
    static void assertOf(WheelScheduledExecutor timers, long armed) {
        assertThat(timers.metrics().scheduled()).as("timers armed").isEqualTo(armed);
        assertThat(timers.metrics().cancelled()).as("timers cancelled").isEqualTo(armed);
        assertThat(timers.metrics().pending()).as("timers pending").isZero();
        assertThat(timers.getQueue()).isEmpty();
    }
}
