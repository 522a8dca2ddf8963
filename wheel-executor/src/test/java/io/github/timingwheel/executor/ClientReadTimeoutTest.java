package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The read timeout of an HTTP client (AsyncHttpClient's {@code ReadTimeoutTimerTask}), without
 * the network: the client arms a timeout, touches the connection a little later (its last
 * activity, in milliseconds of {@link System#currentTimeMillis()}), and when the timeout fires
 * compares the millisecond clock with that touch; if any millisecond of the timeout is left, it
 * arms a new timeout for the whole period. A timer that fires within the millisecond of its
 * deadline lands in that window whenever the touch crossed a millisecond boundary the firing
 * has not; one that fires a tick late never does. {@link WheelTimer}'s default tolerance is
 * there so that it does not do so more often than Netty's own timer with a 1 ms tick.
 *
 * <p>Both timers run the same clients in the same run, one round each in turn, so a loaded
 * machine loads both. Wall-clock, so tagged "timing" (rerun once on failure).
 */
class ClientReadTimeoutTest {

    private static final int CLIENTS = 400;
    private static final int ROUNDS = 3;
    private static final long TIMEOUT_MILLIS = 20L;

    /**
     * Counts, over {@value #ROUNDS} rounds of {@value #CLIENTS} stalled requests, the read
     * timeouts re-armed for a whole period. The margin: a whole-period re-arm needs a firing
     * less late than the touch (here 0 to 300 µs after the arming); HashedWheelTimer with a
     * 1 ms tick fires between 0 and 1 ms late, so its count is a binomial of mean about 15 % of
     * the clients, and ours (its leader wakes 1 ms after the first deadline it parks for, later
     * deadlines in that millisecond fire less late) should be at or below it. 2 % of the
     * clients plus 5 covers three standard deviations of the difference of two such counts at
     * rates up to a few percent, where ours is expected to be. Mutant: the default tolerance
     * 0 ({@code DEFAULT_TOLERANCE_MILLIS = 0}): ours then counts several times Netty's.
     */
    @Test
    @Tag("timing")
    void wheelTimerDefaults_rearmWholePeriods_noMoreOftenThanNetty1msTick() throws Exception {
        Timer netty = new HashedWheelTimer(1, MILLISECONDS);
        WheelTimer ours = WheelTimer.builder().daemon(true).build();
        int nettyCount = 0;
        int ourCount = 0;
        try {
            for (int round = 0; round < ROUNDS; round++) {
                nettyCount += wholePeriodRearms(netty);
                ourCount += wholePeriodRearms(ours);
            }
        } finally {
            netty.stop();
            ours.stop();
        }
        int clients = ROUNDS * CLIENTS;
        System.out.printf("read timeouts re-armed a whole period, of %d: HashedWheelTimer 1 ms %d, "
                + "WheelTimer defaults %d%n", clients, nettyCount, ourCount);
        assertThat(ourCount).isLessThanOrEqualTo(nettyCount + clients / 50 + 5);
    }

    /** Runs one round of stalled requests on {@code timer}; returns the whole-period re-arms. */
    static int wholePeriodRearms(Timer timer) throws InterruptedException {
        CountDownLatch expired = new CountDownLatch(CLIENTS);
        AtomicInteger rearmed = new AtomicInteger();
        for (int i = 0; i < CLIENTS; i++) {
            ReadTimeout client = new ReadTimeout(timer, expired, rearmed);
            client.arm();
            spin(ThreadLocalRandom.current().nextLong(300_000L)); // writing the request
            client.touch();
        }
        await(expired);
        return rearmed.get();
    }

    private static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    /** AsyncHttpClient's read-timeout task, as it decides: the whole period if any time is left. */
    private static final class ReadTimeout implements TimerTask {
        private final Timer timer;
        private final CountDownLatch expired;
        private final AtomicInteger rearmed;
        private volatile long lastTouchMillis;
        private boolean rearmedOnce;

        ReadTimeout(Timer timer, CountDownLatch expired, AtomicInteger rearmed) {
            this.timer = timer;
            this.expired = expired;
            this.rearmed = rearmed;
        }

        void arm() {
            timer.newTimeout(this, TIMEOUT_MILLIS, MILLISECONDS);
        }

        void touch() {
            lastTouchMillis = System.currentTimeMillis();
        }

        @Override
        public void run(Timeout timeout) {
            long left = lastTouchMillis + TIMEOUT_MILLIS - System.currentTimeMillis();
            if (left > 0 && !rearmedOnce) {
                rearmedOnce = true;
                rearmed.incrementAndGet();
                arm(); // the whole period again, as the client does
                return;
            }
            expired.countDown();
        }
    }
}
