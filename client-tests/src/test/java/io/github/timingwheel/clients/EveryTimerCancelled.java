package io.github.timingwheel.clients;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;

/** What a client leaves behind when every call it timed completed in time: nothing. */
final class EveryTimerCancelled {

    /** Starts call {@code index} with a far timeout, answers it {@code "value " + index} at once, and returns its result. */
    interface CallAnsweredInTime {
        Future<String> start(int index) throws Exception;
    }

    private EveryTimerCancelled() {
    }

    /**
     * Starts {@code calls} calls, each answered as soon as it has armed its timer; then asserts
     * that every result is its own answer, and {@link #assertOf} for {@code calls} timers.
     */
    static void afterCallsAnsweredInTime(WheelScheduledExecutor timers, int calls, CallAnsweredInTime call)
            throws Exception {
        List<Future<String>> results = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            results.add(call.start(i));
        }
        for (int i = 0; i < calls; i++) {
            assertThat(results.get(i).get(30, SECONDS)).isEqualTo("value " + i);
        }
        assertOf(timers, calls);
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
