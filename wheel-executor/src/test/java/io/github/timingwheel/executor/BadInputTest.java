package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.get;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.testing.NullPointerTester;
import io.github.timingwheel.core.ManualTimeSource;
import io.github.timingwheel.core.TimeSource;
import io.github.timingwheel.core.TimerNode;
import io.github.timingwheel.core.TimingWheel;
import io.github.timingwheel.core.WheelShape;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bad input to the public API: every public constructor and method, given a null where it
 * takes a reference, throws {@link NullPointerException} (checked by guava-testlib's
 * {@link NullPointerTester}, which calls each with one argument null at a time); extreme delays
 * and periods ({@link Long#MIN_VALUE}, {@link Long#MAX_VALUE} in every {@link TimeUnit}) are
 * accepted with their documented meaning; and the executor and timer keep working afterwards.
 * ({@code ScheduledExecutorContractTest} covers the messages of the main null checks and
 * non-positive periods.)
 */
class BadInputTest {

    private WheelScheduledExecutor executor;
    private WheelTimer timer;

    @AfterEach
    void stop() throws InterruptedException {
        if (executor != null) {
            executor.shutdownNow();
            awaitTermination(executor);
        }
        if (timer != null) {
            timer.stop();
        }
    }

    /**
     * {@code submit(Runnable, T result)} takes a null result, as {@code ExecutorService}
     * specifies; {@code remove(null)} returns false, as {@code ThreadPoolExecutor}'s does (the
     * executor overrides it only to count what leaves the queue). The tester cannot know, so
     * both are left out.
     */
    private static NullPointerTester tester() throws NoSuchMethodException {
        return baseTester().ignore(WheelScheduledExecutor.class.getMethod("submit", Runnable.class, Object.class))
                .ignore(WheelScheduledExecutor.class.getMethod("remove", Runnable.class));
    }

    private static NullPointerTester baseTester() {
        return new NullPointerTester()
                .setDefault(TimeUnit.class, TimeUnit.MILLISECONDS)
                .setDefault(WheelShape.class, WheelShape.defaults())
                .setDefault(TimeSource.class, TimeSource.system())
                .setDefault(ThreadFactory.class, Thread::new)
                .setDefault(RejectedExecutionHandler.class, new ThreadPoolExecutor.AbortPolicy())
                .setDefault(Executor.class, Runnable::run)
                .setDefault(TimerTask.class, timeout -> { });
    }

    @Test
    void wheelScheduledExecutor_rejectsNullEverywhere() throws Exception {
        executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        NullPointerTester tester = tester();

        tester.testAllPublicConstructors(WheelScheduledExecutor.class);
        tester.testAllPublicStaticMethods(WheelScheduledExecutor.class);
        tester.testAllPublicInstanceMethods(executor);
        tester.testAllPublicInstanceMethods(WheelScheduledExecutor.builder());

        assertStillWorks(executor);
    }

    @Test
    void wheelTimer_rejectsNullEverywhere() throws Exception {
        timer = WheelTimer.builder().daemon(true).build();
        NullPointerTester tester = tester();

        tester.testAllPublicConstructors(WheelTimer.class);
        tester.testAllPublicStaticMethods(WheelTimer.class);
        tester.testAllPublicInstanceMethods(timer);
        tester.testAllPublicInstanceMethods(WheelTimer.builder());

        assertStillWorks(timer);
    }

    @Test
    void coreTypes_rejectNullEverywhere() {
        NullPointerTester tester = baseTester();

        tester.testAllPublicStaticMethods(WheelShape.class);
        tester.testAllPublicInstanceMethods(WheelShape.builder());
        tester.testAllPublicConstructors(TimingWheel.class);
        tester.testAllPublicStaticMethods(TimingWheel.class);
        tester.testAllPublicInstanceMethods(new TimingWheel<Node>(0L));
        tester.testAllPublicConstructors(ManualTimeSource.class);
        tester.testAllPublicInstanceMethods(new ManualTimeSource());
        tester.testAllPublicStaticMethods(TimeSource.class);
    }

    /** A plain wheel node for the core checks. */
    static final class Node extends TimerNode {
    }

    // ---------------------------------------------------------------------------------------
    // Extreme values.

    /** Delays up to this are waited for; longer ones are checked pending and cancelled. */
    static final long SOON_NANOS = TimeUnit.MILLISECONDS.toNanos(100L);

    static final long[] EXTREMES = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L,
        Long.MAX_VALUE - 1, Long.MAX_VALUE};

    @ParameterizedTest
    @EnumSource(TimeUnit.class)
    void extremeDelays_inEveryUnit_meanNowOrNeverOverflow(TimeUnit unit) throws Exception {
        executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        for (long delay : EXTREMES) {
            long nanos = unit.toNanos(delay); // saturates, as the JDK's does
            ScheduledFuture<?> future = executor.schedule(() -> { }, delay, unit);
            if (nanos <= SOON_NANOS) {
                assertThat(get(future)).as("delay %d %s: now or soon", delay, unit).isNull();
            } else {
                assertThat(future.getDelay(NANOSECONDS)).as("delay %d %s", delay, unit)
                        .isPositive().isLessThanOrEqualTo(nanos);
                assertThat(future.cancel(false)).isTrue();
            }
        }
        assertStillWorks(executor);
    }

    @ParameterizedTest
    @EnumSource(TimeUnit.class)
    void extremePeriods_inEveryUnit_areRejectedWhenNotPositive_andNeverOverflow(TimeUnit unit)
            throws Exception {
        executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        for (long period : EXTREMES) {
            for (long initialDelay : EXTREMES) {
                if (period <= 0) {
                    assertThatThrownBy(() -> executor.scheduleAtFixedRate(() -> { }, initialDelay, period, unit))
                            .isInstanceOf(IllegalArgumentException.class);
                    assertThatThrownBy(() -> executor.scheduleWithFixedDelay(() -> { }, initialDelay, period, unit))
                            .isInstanceOf(IllegalArgumentException.class);
                    continue;
                }
                CountDownLatch ran = new CountDownLatch(1);
                ScheduledFuture<?> rate = executor.scheduleAtFixedRate(ran::countDown, initialDelay, period, unit);
                ScheduledFuture<?> delay = executor.scheduleWithFixedDelay(() -> { }, initialDelay, period, unit);
                if (unit.toNanos(initialDelay) <= SOON_NANOS) {
                    await(ran);
                    assertThat(rate.isDone()).as("a periodic task goes on after its first run").isFalse();
                }
                assertThat(rate.getDelay(NANOSECONDS)).as("next run of period %d %s", period, unit)
                        .isGreaterThan(Long.MIN_VALUE);
                assertThat(rate.cancel(false)).isTrue();
                assertThat(delay.cancel(false)).isTrue();
            }
        }
        assertThat(executor.getQueue()).isEmpty();
        assertStillWorks(executor);
    }

    @ParameterizedTest
    @EnumSource(TimeUnit.class)
    void extremeTimeoutDelays_inEveryUnit_meanNowOrNeverOverflow(TimeUnit unit) throws Exception {
        timer = WheelTimer.builder().daemon(true).build();
        for (long delay : EXTREMES) {
            CountDownLatch fired = new CountDownLatch(1);
            Timeout timeout = timer.newTimeout(t -> fired.countDown(), delay, unit);
            if (unit.toNanos(delay) <= SOON_NANOS) {
                await(fired);
                assertThat(timeout.isExpired()).isTrue();
            } else {
                assertThat(timeout.cancel()).as("delay %d %s is pending", delay, unit).isTrue();
            }
        }
        assertThat(timer.pendingTimeouts()).isZero();
        assertStillWorks(timer);
    }

    @Test
    void badBuilderValues_areRejectedAtOnce() {
        assertThatThrownBy(() -> WheelScheduledExecutor.builder().workers(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("workers");
        assertThatThrownBy(() -> WheelScheduledExecutor.builder().tick(0L, TimeUnit.MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tick");
        assertThatThrownBy(() -> WheelScheduledExecutor.builder().tick(Long.MIN_VALUE, TimeUnit.DAYS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tick");
        assertThatThrownBy(() -> WheelTimer.builder().workers(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("workers");
        assertThatThrownBy(() -> new WheelScheduledExecutor(-1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(WheelTimer.builder().maxPendingTimeouts(Long.MIN_VALUE)).as("no bound").isNotNull();
    }

    private static void assertStillWorks(WheelScheduledExecutor executor) throws Exception {
        assertThat(get(executor.submit(() -> 42))).isEqualTo(42);
        assertThat(executor.isShutdown()).isFalse();
    }

    private static void assertStillWorks(WheelTimer timer) throws InterruptedException {
        CountDownLatch fired = new CountDownLatch(1);
        timer.newTimeout(t -> fired.countDown(), 1L, TimeUnit.MILLISECONDS);
        await(fired);
    }
}
