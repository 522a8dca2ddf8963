package io.github.timingwheel.executor;

import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.ManualTimeSource;
import io.github.timingwheel.core.TimeSource;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two touches of one re-armable handle, the one with the older clock reading writing last: the
 * deadline stays at the later one's, so the promise of each touch that returned true ("fires no
 * earlier than now plus the timeout") holds. The race is made deterministic by a time source
 * that holds one thread between its reading of the clock and the return, as a thread preempted
 * between the reading and the CAS would be.
 *
 * <p>Mutant seen red: a touch that moves the deadline to its target whatever it was
 * ({@code ArmedDeadline.moveTo} in place of {@code moveLater} in {@code ArmedDeadline.touch},
 * which both handles use) fires at 11 ms, 4 ms before the deadline the second touch
 * promised, on both schedulers and every origin.
 */
class RacingTouchesTest {

    static Stream<Arguments> subjects() {
        return Stream.of(Long.MIN_VALUE + 1, -1L, 0L, Long.MAX_VALUE - SECONDS.toNanos(3600))
                .flatMap(origin -> Stream.of(Arguments.of("executor", origin), Arguments.of("timer", origin)));
    }

    /**
     * Armed at 0 for 10 ms. Thread A touches at 1 ms and is held after its reading; the test
     * thread touches at 5 ms (deadline 15 ms, true); then A writes its 11 ms. The handle must
     * fire at 15 ms, not at 11.
     */
    @ParameterizedTest(name = "{0}, origin {1}")
    @MethodSource("subjects")
    void olderReadingWritingLast_doesNotMoveTheDeadlineBack(String kind, long origin) throws Exception {
        ManualTimeSource manual = new ManualTimeSource(origin);
        HeldClock clock = new HeldClock(manual);
        AtomicInteger fired = new AtomicInteger();
        WheelScheduledExecutor engine;
        WheelTimer timer = null;
        Rearmable handle;
        if (kind.equals("executor")) {
            engine = WheelScheduledExecutor.builder().workers(1).timeSource(clock).daemon(true).build();
            handle = engine.scheduleRearmable(fired::incrementAndGet, 10, MILLISECONDS);
        } else {
            timer = WheelTimer.builder().timeSource(clock).tolerance(0, MILLISECONDS).daemon(true).build();
            engine = timer.engine();
            handle = timer.newRearmableTimeout(t -> fired.incrementAndGet(), 10, MILLISECONDS);
        }
        ManualClockWorkers workers = new ManualClockWorkers(manual, engine);
        try {
            workers.advance(1, MILLISECONDS);
            AtomicBoolean olderTouch = new AtomicBoolean();
            Thread a = new Thread(() -> olderTouch.set(handle.touch()), "older-touch");
            clock.hold(a);
            a.start();
            ExecutorTesting.await(clock.read); // A has read 1 ms and waits before its CAS

            workers.advance(4, MILLISECONDS);
            assertThat(handle.touch()).as("the touch at 5 ms").isTrue(); // promises no earlier than 15 ms

            clock.release.countDown();
            a.join();
            assertThat(olderTouch).as("the touch at 1 ms, written last").isTrue();

            workers.advance(6, MILLISECONDS); // 11 ms: where the older touch aimed
            assertThat(fired).as("fired before the promise of the touch at 5 ms").hasValue(0);
            assertThat(handle.remaining(MICROSECONDS)).isEqualTo(4_000);
            workers.advance(3_999, MICROSECONDS);
            assertThat(fired).hasValue(0);
            workers.advance(1, MICROSECONDS); // 15 ms
            assertThat(fired).hasValue(1);
        } finally {
            if (timer != null) {
                timer.stop();
            } else {
                engine.shutdownNow();
            }
        }
    }

    /**
     * A time source that holds one chosen thread after it read the clock, until released: the
     * reading is then older than any taken while it waits.
     */
    private static final class HeldClock implements TimeSource {
        private final TimeSource clock;
        private volatile Thread held;
        final CountDownLatch read = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        HeldClock(TimeSource clock) {
            this.clock = clock;
        }

        void hold(Thread thread) {
            held = thread;
        }

        @Override
        public long nanoTime() {
            long now = clock.nanoTime();
            if (Thread.currentThread() == held) {
                held = null;
                read.countDown();
                try {
                    ExecutorTesting.await(release);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError(e);
                }
            }
            return now;
        }
    }
}
