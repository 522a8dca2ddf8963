package io.github.timingwheel.executor;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * The control: Netty's {@link HashedWheelTimer}, with its default 100 ms tick, passes every
 * contract test, so that each property checked there is one the reference has, not one we
 * invented. Its timeouts fire up to a tick late by design; the tolerance says so.
 */
class HashedWheelTimerContractTest extends TimerContractTest {

    private static final long TICK_MILLIS = 100L;

    @Override
    Timer newTimer(long maxPendingTimeouts) {
        return new HashedWheelTimer(Executors.defaultThreadFactory(), TICK_MILLIS, MILLISECONDS, 512,
                true, maxPendingTimeouts);
    }

    @Override
    long pendingTimeouts(Timer timer) {
        return ((HashedWheelTimer) timer).pendingTimeouts();
    }

    /** A deadline is checked on the tick after it: up to one tick late, and a little more. */
    @Override
    long lateByDesignNanos() {
        return MILLISECONDS.toNanos(2L * TICK_MILLIS);
    }

    /** Timeouts in one bucket fire in the order they were added, not by deadline. */
    @Override
    boolean firesInDeadlineOrder() {
        return false;
    }

    @Override
    String loggerName() {
        return HashedWheelTimer.class.getName();
    }

    /**
     * A documented difference, from the reference's side: the timeouts that {@code stop()}
     * cancels never see {@code TimerTask.cancelled}, because cancellation callbacks run on the
     * worker, which has ended. (Ours calls it, on the stopping thread.)
     */
    @Test
    void stop_doesNotCallCancelledForTheTimeoutsItCancels() throws Exception {
        Timer timer = timer();
        Probe task = new Probe();
        Timeout timeout = timer.newTimeout(task, 1L, MINUTES);
        awaitOneMoreRound(timer);

        assertThat(timer.stop()).containsExactly(timeout);

        assertThat(timeout.isCancelled()).isTrue();
        assertThat(task.cancellations).hasValue(0);
    }
}
