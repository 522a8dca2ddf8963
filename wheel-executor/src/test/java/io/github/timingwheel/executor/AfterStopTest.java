package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.ManualTimeSource;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * What a scheduler that stopped says: a re-armable handle it will never run is no longer armed
 * (touch and rearm return false), and a group asked of it is refused as a task would be, by the
 * JDK's executor (RejectedExecutionException) and by Netty's timer (IllegalStateException), run
 * beside ours.
 *
 * <p>Mutants seen red: touch, rearm and isArmed without the run-state check
 * ({@code RearmableTask}'s {@code ArmedDeadline.mayRun} returning true) fail {@link #executor_touchAfterShutdownNow_isFalse}
 * (touch true after shutdownNow); newGroup and newSerialGroup without their check return an open
 * group (both newGroup tests). The timer's two tests fail on a {@code WheelTimer.stop()} that
 * does not cancel the timeouts it drained together with a {@code RearmableWheelTimeout} that
 * does not read {@code isStopped()}; that read alone is not caught here: it covers a touch that
 * comes inside stop(), after the flag and before the cancel.
 */
class AfterStopTest {

    @Test
    void executor_touchAfterShutdownNow_isFalse() throws Exception {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        TaskGroup group = executor.newGroup();
        AtomicInteger ran = new AtomicInteger();
        RearmableFuture<Void> alone = executor.scheduleRearmable(ran::incrementAndGet, 1, HOURS);
        RearmableFuture<Void> grouped = group.scheduleRearmable(ran::incrementAndGet, 1, HOURS);

        List<Runnable> neverRun = executor.shutdownNow();

        assertThat(neverRun).contains((Runnable) alone, (Runnable) grouped);
        for (RearmableFuture<Void> handle : List.of(alone, grouped)) {
            assertThat(handle.touch()).as("touch of a task shutdownNow returned").isFalse();
            assertThat(handle.rearm(1, MILLISECONDS)).isFalse();
            assertThat(handle.isArmed()).isFalse();
            ((Runnable) handle).run(); // as the JDK's: a task shutdownNow returned does not run later
        }
        awaitTermination(executor);
        assertThat(ran).hasValue(0);
    }

    /** With the policy that drops delayed tasks at shutdown, the orderly shutdown ends the arming too. */
    @Test
    void executor_touchAfterShutdownThatDropsDelayedTasks_isFalse() throws Exception {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        RearmableFuture<Void> handle = executor.scheduleRearmable(() -> { }, 1, HOURS);
        executor.shutdown();
        assertThat(handle.touch()).isFalse();
        assertThat(handle.isArmed()).isFalse();
        awaitTermination(executor);
    }

    /** The default policy runs delayed tasks after shutdown(): the handle stays armed, and fires. */
    @Test
    void executor_touchAfterOrderlyShutdown_staysTrue() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true)
                .timeSource(clock).build();
        CountDownLatch ran = new CountDownLatch(1);
        RearmableFuture<Void> handle = executor.scheduleRearmable(ran::countDown, 10, MILLISECONDS);
        executor.shutdown();
        assertThat(handle.touch()).isTrue();
        assertThat(handle.isArmed()).isTrue();
        clock.advance(10, MILLISECONDS); // the worker, parked for 10 ms, finds it due when it wakes
        await(ran);
        awaitTermination(executor);
    }

    /**
     * A timeout the worker had taken, due behind a body that blocks, when the timer stopped: it
     * never fires, and is no longer armed.
     */
    @Test
    void timer_handleHandedOutBeforeStop_isNoLongerArmed() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        WheelTimer timer = WheelTimer.builder().workers(1).daemon(true).timeSource(clock)
                .tolerance(0, MILLISECONDS).build();
        CountDownLatch blocking = new CountDownLatch(1);
        AtomicInteger fired = new AtomicInteger();
        timer.newTimeout(t -> {
            blocking.countDown();
            try {
                new CountDownLatch(1).await(); // until stop() interrupts it
            } catch (InterruptedException expected) {
                Thread.currentThread().interrupt(); // the stop, as the body should see it: not a failure to log
            }
        }, 10, MILLISECONDS);
        RearmableTimeout handle = timer.newRearmableTimeout(t -> fired.incrementAndGet(), 10, MILLISECONDS);
        clock.advance(10, MILLISECONDS); // the worker, parked for 10 ms, takes both
        await(blocking);

        timer.stop();

        assertThat(timer.isStopped()).isTrue();
        assertThat(handle.touch()).as("touch after stop").isFalse();
        assertThat(handle.rearm(1, MILLISECONDS)).isFalse();
        assertThat(handle.isArmed()).isFalse();
        assertThat(fired).hasValue(0);
    }

    @Test
    void timer_touchAfterStop_isFalse() {
        WheelTimer timer = WheelTimer.builder().daemon(true).build();
        RearmableTimeout handle = timer.newRearmableTimeout(t -> { }, 1, HOURS);
        assertThat(timer.isStopped()).isFalse();
        assertThat(timer.stop()).contains(handle);
        assertThat(handle.touch()).isFalse();
        assertThat(handle.isArmed()).isFalse();
    }

    /** As the JDK's executor refuses a task once shut down, ours refuses a group. */
    @Test
    void executor_newGroupAfterShutdown_isRejected_asJdkScheduleIs() throws Exception {
        for (boolean now : new boolean[] {false, true}) {
            ScheduledThreadPoolExecutor jdk = new ScheduledThreadPoolExecutor(1);
            WheelScheduledExecutor ours = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
            shutDown(jdk, now);
            shutDown(ours, now);
            assertThatThrownBy(() -> jdk.schedule(() -> { }, 1, MILLISECONDS))
                    .isInstanceOf(RejectedExecutionException.class);
            assertThatThrownBy(() -> ours.schedule(() -> { }, 1, MILLISECONDS))
                    .isInstanceOf(RejectedExecutionException.class);
            assertThatThrownBy(ours::newGroup).isInstanceOf(RejectedExecutionException.class)
                    .hasMessageContaining("shut down");
            assertThatThrownBy(ours::newSerialGroup).isInstanceOf(RejectedExecutionException.class);
            awaitTermination(jdk);
            awaitTermination(ours);
        }
    }

    /** As Netty's timer refuses a timeout once stopped, ours refuses a group. */
    @Test
    void timer_newGroupAfterStop_isRefused_asNettyNewTimeoutIs() {
        Timer netty = new HashedWheelTimer();
        WheelTimer ours = WheelTimer.builder().daemon(true).build();
        netty.stop();
        ours.stop();
        for (Supplier<Object> call : List.<Supplier<Object>>of(
                () -> netty.newTimeout(t -> { }, 1, MILLISECONDS),
                () -> ours.newTimeout(t -> { }, 1, MILLISECONDS),
                ours::newGroup,
                ours::newSerialGroup)) {
            assertThatThrownBy(call::get).isInstanceOf(IllegalStateException.class);
        }
    }

    private static void shutDown(ScheduledExecutorService executor, boolean now) {
        if (now) {
            executor.shutdownNow();
        } else {
            executor.shutdown();
        }
    }
}
