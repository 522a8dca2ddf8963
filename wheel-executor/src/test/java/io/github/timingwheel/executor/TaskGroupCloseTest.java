package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link TaskGroup#close()} is {@code ExecutorService.close()} of Java 19: shut down, then wait
 * for the tasks; {@link TaskGroup#cancelAll()} is the cancel that returns at once. On JDK 19
 * and later the JDK's executor runs beside ours through the same {@code close()}.
 *
 * <p>Mutants seen red: close() as cancelAll() (the old close) fails
 * {@link #close_waitsForAOneShotTaskScheduledInTheBlock} (the task never ran); close() without
 * its look at the executor ({@code isStopping()} never read) hangs in
 * {@link #close_afterTheExecutorStopped_cancelsWhatIsLeft_doesNotWaitForever}, which fails on
 * its timeout.
 */
class TaskGroupCloseTest {

    /** A task due 20 ms after the block's start runs before the block ends, as with the JDK's. */
    @Test
    void close_waitsForAOneShotTaskScheduledInTheBlock() throws Exception {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        try {
            AtomicBoolean ran = new AtomicBoolean();
            ScheduledFuture<?> future;
            try (TaskGroup group = executor.newGroup()) {
                future = group.schedule(() -> ran.set(true), 20, MILLISECONDS);
            }
            assertThat(ran).as("ran before close returned").isTrue();
            assertThat(future.isDone()).isTrue();
            assertThat(future.isCancelled()).isFalse();
        } finally {
            executor.shutdownNow();
        }
        closeOfTheJdksExecutor_runsItsTask();
    }

    /** The same through the JDK's executor, where ExecutorService has close() (JDK 19+). */
    private static void closeOfTheJdksExecutor_runsItsTask() throws Exception {
        Method close;
        try {
            close = ExecutorService.class.getMethod("close");
        } catch (NoSuchMethodException beforeJdk19) {
            return; // JDK 17: ExecutorService has no close() to compare with
        }
        ScheduledExecutorService jdk = new ScheduledThreadPoolExecutor(1);
        AtomicBoolean ran = new AtomicBoolean();
        jdk.schedule(() -> ran.set(true), 20, MILLISECONDS);
        close.invoke(jdk);
        assertThat(ran).as("the JDK's close() ran it too").isTrue();
    }

    /** close() cancels periodic tasks (the group's shutdown does) and waits only for one-shot ones. */
    @Test
    void close_cancelsPeriodicTasks_andRejectsNewWork() throws Exception {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        try {
            TaskGroup group = executor.newGroup();
            ScheduledFuture<?> periodic = group.scheduleAtFixedRate(() -> { }, 1, 1, HOURS);
            assertTimeoutPreemptively(Duration.ofSeconds(TIMEOUT_SECONDS), group::close);
            assertThat(periodic.isCancelled()).isTrue();
            assertThat(group.isTerminated()).isTrue();
            assertThatThrownBy(() -> group.schedule(() -> { }, 1, MILLISECONDS))
                    .isInstanceOf(RejectedExecutionException.class);
        } finally {
            executor.shutdownNow();
        }
    }

    /** cancelAll() cancels what is pending and returns at once, with what it cancelled. */
    @Test
    void cancelAll_cancelsAtOnce_andReturnsWhatItCancelled() {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        try {
            TaskGroup group = executor.newGroup();
            AtomicInteger ran = new AtomicInteger();
            ScheduledFuture<?> oneShot = group.schedule(ran::incrementAndGet, 1, HOURS);
            ScheduledFuture<?> periodic = group.scheduleWithFixedDelay(ran::incrementAndGet, 1, 1, HOURS);
            assertThat(group.cancelAll()).containsExactlyInAnyOrder((Runnable) oneShot, (Runnable) periodic);
            assertThat(oneShot.isCancelled()).isTrue();
            assertThat(periodic.isCancelled()).isTrue();
            assertThat(group.isTerminated()).isTrue();
            assertThat(group.cancelAll()).isEmpty();
            assertThat(ran).hasValue(0);
        } finally {
            executor.shutdownNow();
        }
    }

    /**
     * A task the executor's shutdownNow() took never runs: close() cancels it instead of
     * waiting for it forever.
     */
    @Test
    void close_afterTheExecutorStopped_cancelsWhatIsLeft_doesNotWaitForever() {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        TaskGroup group = executor.newGroup();
        ScheduledFuture<?> future = group.schedule(() -> { }, 1, HOURS);
        executor.shutdownNow();
        assertTimeoutPreemptively(Duration.ofSeconds(TIMEOUT_SECONDS), group::close);
        assertThat(group.isTerminated()).isTrue();
        assertThat(future.isDone()).isTrue();
    }
}
