package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.Test;

/**
 * {@link SchedulerMetrics#cancelledHeld()}: with the remove-on-cancel policy off (the JDK-style
 * constructors, as the JDK's executor has it), the cancelled tasks the queue still holds, which
 * {@code pending()} does not count. Each way out of the queue takes a task off the count.
 *
 * <p>Mutants seen red: a cancel that never marks its task held (ScheduledTask.cancel with
 * {@code held} false) fails {@link #jdkConstructor_cancelledTasks_areHeld_untilPurge};
 * runBody's early return without {@code leftQueue()} fails
 * {@link #heldTask_leavesWhenItsDeadlineComes}; shutdownNow without it fails
 * {@link #shutdownNow_takesHeldTasksOut}.
 */
class CancelledHeldTest {

    /** The case: 200,000 scheduled and cancelled; the JDK's queue holds them too. */
    @Test
    void jdkConstructor_cancelledTasks_areHeld_untilPurge() throws Exception {
        int count = 200_000;
        WheelScheduledExecutor ours = new WheelScheduledExecutor(1);
        ScheduledThreadPoolExecutor jdk = new ScheduledThreadPoolExecutor(1);
        try {
            List<ScheduledFuture<?>> futures = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                futures.add(ours.schedule(() -> { }, 1, HOURS));
                jdk.schedule(() -> { }, 1, HOURS).cancel(false);
            }
            futures.forEach(f -> f.cancel(false));
            assertThat(jdk.getQueue()).as("the JDK's queue keeps them").hasSize(count);
            assertThat(ours.getQueue()).hasSize(count);
            SchedulerMetrics held = ours.metrics();
            assertThat(held.pending()).isZero();
            assertThat(held.cancelled()).isEqualTo(count);
            assertThat(held.cancelledHeld()).isEqualTo(count);
            assertThat(held.toString()).contains("cancelled-held=" + count);

            ours.purge();
            jdk.purge();
            assertThat(ours.getQueue()).isEmpty();
            assertThat(jdk.getQueue()).isEmpty();
            assertThat(ours.metrics().cancelledHeld()).isZero();
        } finally {
            ours.shutdownNow();
            jdk.shutdownNow();
        }
    }

    @Test
    void heldTask_leavesWhenItsDeadlineComes() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true)
                .timeSource(clock).removeOnCancel(false).build();
        try {
            ManualClockWorkers workers = new ManualClockWorkers(clock, executor);
            executor.schedule(() -> { }, 10, MILLISECONDS).cancel(false);
            executor.scheduleAtFixedRate(() -> { }, 10, 10, MILLISECONDS).cancel(false);
            assertThat(executor.metrics().cancelledHeld()).isEqualTo(2);
            workers.advance(10, MILLISECONDS);
            assertThat(executor.getQueue()).isEmpty();
            assertThat(executor.metrics().cancelledHeld()).isZero();
        } finally {
            executor.shutdownNow();
        }
    }

    /** A task cancelled while its body runs is not in the queue: counted only until the run ends. */
    @Test
    void cancelledWhileRunning_isNotHeldOnceTheRunEnds() throws Exception {
        WheelScheduledExecutor executor = new WheelScheduledExecutor(1);
        try {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ScheduledFuture<?> running = executor.schedule(() -> {
                started.countDown();
                ExecutorTesting.awaitInTask(release);
            }, 0, MILLISECONDS);
            await(started);
            running.cancel(false);
            release.countDown();
            executor.shutdown();
            awaitTermination(executor);
            assertThat(executor.metrics().cancelledHeld()).isZero();
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void shutdownNow_takesHeldTasksOut() throws Exception {
        WheelScheduledExecutor executor = new WheelScheduledExecutor(1);
        executor.schedule(() -> { }, 1, HOURS).cancel(false);
        assertThat(executor.shutdownNow()).hasSize(1); // as the JDK's, the cancelled task too
        awaitTermination(executor);
        assertThat(executor.metrics().cancelledHeld()).isZero();
    }

    @Test
    void removeAndShutdownPolicy_takeHeldTasksOut() throws Exception {
        WheelScheduledExecutor executor = new WheelScheduledExecutor(1);
        ScheduledFuture<?> removed = executor.schedule(() -> { }, 1, HOURS);
        removed.cancel(false);
        executor.schedule(() -> { }, 1, HOURS).cancel(false);
        assertThat(executor.metrics().cancelledHeld()).isEqualTo(2);
        assertThat(executor.remove(null)).as("as ThreadPoolExecutor's").isFalse();
        assertThat(executor.remove((Runnable) removed)).isTrue();
        assertThat(executor.metrics().cancelledHeld()).isEqualTo(1);
        executor.shutdown(); // the JDK's onShutdown: cancelled tasks leave the queue
        awaitTermination(executor);
        assertThat(executor.metrics().cancelledHeld()).isZero();
    }

    /** The builder's policy, and re-armable tasks whatever the policy: released at once, never held. */
    @Test
    void releasedAtOnce_neverHeld() throws Exception {
        WheelScheduledExecutor builder = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        WheelScheduledExecutor jdkStyle = new WheelScheduledExecutor(1);
        try {
            builder.schedule(() -> { }, 1, HOURS).cancel(false);
            jdkStyle.scheduleRearmable(() -> { }, 1, HOURS).cancel(false);
            assertThat(builder.metrics().cancelledHeld()).isZero();
            assertThat(jdkStyle.metrics().cancelledHeld()).isZero();
            assertThat(jdkStyle.getQueue()).isEmpty();
        } finally {
            builder.shutdownNow();
            jdkStyle.shutdownNow();
        }
    }
}
