package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitInTask;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.get;
import static io.github.timingwheel.executor.ExecutorTesting.observeFor;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.testing.NullPointerTester;
import io.github.timingwheel.core.ManualTimeSource;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TaskGroup} on a manual clock: tracking, close, rejection, periodic tasks, lifecycle.
 * The serial variant has {@link SerialTaskGroupTest}.
 *
 * <p>Time moves only by {@link #advance}, after which every task due has run: the executor has
 * one worker, which {@link ManualClockWorkers} wakes and waits for.
 */
class TaskGroupTest {

    private final ManualTimeSource clock = new ManualTimeSource(Long.MAX_VALUE - SECONDS.toNanos(1));
    private final WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
            .workers(1)
            .daemon(true)
            .timeSource(clock)
            .threadNamePrefix("task-group-test-")
            .build();

    @AfterEach
    void shutDown() throws InterruptedException {
        executor.shutdownNow();
        awaitTermination(executor);
    }

    private final ManualClockWorkers workers = new ManualClockWorkers(clock, executor);

    private void advance(long amount, TimeUnit unit) throws Exception {
        workers.advance(amount, unit);
    }

    private void passDueTasks() throws Exception {
        workers.passDueTasks();
    }

    // ---------------------------------------------------------------------------------------
    // Tracking.

    @Test
    void tracking_countsPendingTasks_andDropsEachWhenItCompletesFailsOrIsCancelled() throws Exception {
        TaskGroup group = executor.newGroup();
        AtomicInteger runs = new AtomicInteger();
        List<ScheduledFuture<?>> futures = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            futures.add(group.schedule(runs::incrementAndGet, i, SECONDS));
        }
        ScheduledFuture<String> callable = group.schedule(() -> "done", 1, SECONDS);
        ScheduledFuture<?> failing = group.schedule(() -> {
            throw new IllegalStateException("failed on purpose");
        }, 1, SECONDS);
        ScheduledFuture<?> periodic = group.scheduleAtFixedRate(runs::incrementAndGet, 1, 1, SECONDS);
        assertThat(group.pendingTasks()).isEqualTo(13);

        futures.get(9).cancel(false);
        futures.get(8).cancel(true);
        assertThat(group.pendingTasks()).isEqualTo(11);

        advance(1, SECONDS);
        assertThat(callable.get()).isEqualTo("done");
        assertThat(failing.isDone()).isTrue();
        assertThat(group.pendingTasks()).as("the periodic task stays; three one-shots left").isEqualTo(8);

        for (int second = 2; second <= 9; second++) {
            advance(1, SECONDS); // one period at a time: a run due now is rescheduled after the marker
        }
        assertThat(group.pendingTasks()).as("only the periodic task").isEqualTo(1);
        assertThat(runs.get()).as("8 one-shots and 9 periodic runs").isEqualTo(8 + 9);

        periodic.cancel(false);
        assertThat(group.pendingTasks()).isZero();
        assertThat(group.isShutdown()).isFalse();
    }

    @Test
    void tracking_retainsNothing_completedAndCancelledTasksAreCollectableWhileTheGroupLives()
            throws Exception {
        TaskGroup group = executor.newGroup();
        List<WeakReference<Object>> refs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Object body = new Object();
            ScheduledFuture<?> future = group.schedule(() -> body.hashCode(), i % 2 == 0 ? 1 : 60, SECONDS);
            refs.add(new WeakReference<>(future));
            refs.add(new WeakReference<>(body));
            if (i % 2 == 1) {
                future.cancel(false);
            }
        }
        advance(1, SECONDS);
        assertThat(group.pendingTasks()).isZero();

        awaitCondition("every task and body collected", () -> {
            System.gc();
            return refs.stream().allMatch(ref -> ref.get() == null);
        });
        assertThat(group.isShutdown()).as("the group is alive and open").isFalse();
    }

    // ---------------------------------------------------------------------------------------
    // cancelAll().

    @Test
    void cancelAll_cancelsExactlyThePendingTasks_ofThisGroupOnly() throws Exception {
        TaskGroup closing = executor.newGroup();
        TaskGroup other = executor.newGroup();
        AtomicInteger otherRuns = new AtomicInteger();
        ScheduledFuture<String> ran = closing.schedule(() -> "ran", 1, SECONDS);
        List<ScheduledFuture<?>> pending = List.of(
                closing.schedule(() -> { }, 10, SECONDS),
                closing.schedule(() -> "x", 1, HOURS),
                closing.scheduleWithFixedDelay(() -> { }, 1, 1, MINUTES));
        List<ScheduledFuture<?>> others = List.of(
                other.schedule(otherRuns::incrementAndGet, 10, SECONDS),
                other.scheduleAtFixedRate(otherRuns::incrementAndGet, 10, 10, SECONDS));
        ScheduledFuture<?> ungrouped = executor.schedule(otherRuns::incrementAndGet, 10, SECONDS);
        advance(1, SECONDS);

        closing.cancelAll();

        assertThat(pending).allMatch(Future::isCancelled);
        assertThat(ran.isCancelled()).isFalse();
        assertThat(get(ran)).isEqualTo("ran");
        assertThat(closing.pendingTasks()).isZero();
        assertThat(closing.isShutdown()).isTrue();
        assertThat(closing.isTerminated()).isTrue();
        assertThat(pending).noneMatch(executor.getQueue()::contains);

        assertThat(others).noneMatch(Future::isDone);
        assertThat(ungrouped.isDone()).isFalse();
        assertThat(other.pendingTasks()).isEqualTo(2);
        advance(10, SECONDS);
        assertThat(otherRuns.get()).as("the other group's two tasks and the ungrouped one ran").isEqualTo(3);
        assertThat(executor.isShutdown()).isFalse();
    }

    @Test
    void cancelAll_isIdempotent_andCalledFromATaskOfTheGroup_cancelsTheOthers() throws Exception {
        TaskGroup group = executor.newGroup();
        AtomicInteger finishedAfterClose = new AtomicInteger();
        ScheduledFuture<?> later = group.schedule(() -> { }, 2, SECONDS);
        ScheduledFuture<?> closer = group.schedule(() -> {
            group.cancelAll();
            finishedAfterClose.incrementAndGet();
        }, 1, SECONDS);

        advance(1, SECONDS);

        assertThat(closer.isCancelled())
                .as("a running task is still pending to its future, as with cancel(false)").isTrue();
        assertThat(finishedAfterClose.get()).as("its body went on to the end").isEqualTo(1);
        assertThat(later.isCancelled()).isTrue();
        assertThat(group.isTerminated()).isTrue();
        group.cancelAll();
        assertThat(group.shutdownNow()).isEmpty();
    }

    @Test
    void cancelAll_rejectsNewWork_withRejectedExecutionException() {
        TaskGroup group = executor.newGroup();
        group.cancelAll();

        assertThatThrownBy(() -> group.schedule(() -> { }, 1, SECONDS))
                .isInstanceOf(RejectedExecutionException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> group.schedule(() -> 1, 1, SECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> group.scheduleAtFixedRate(() -> { }, 1, 1, SECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> group.scheduleWithFixedDelay(() -> { }, 1, 1, SECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> group.execute(() -> { }))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> group.submit(() -> 1))
                .isInstanceOf(RejectedExecutionException.class);
        assertThat(group.pendingTasks()).isZero();
        assertThat(executor.getQueue()).isEmpty();
    }

    @Test
    void badInput_namesTheArgument() {
        TaskGroup group = executor.newGroup();
        assertThatThrownBy(() -> group.schedule((Runnable) null, 1, SECONDS))
                .isInstanceOf(NullPointerException.class).hasMessage("command");
        assertThatThrownBy(() -> group.schedule(() -> 1, 1, null))
                .isInstanceOf(NullPointerException.class).hasMessage("unit");
        assertThatThrownBy(() -> group.scheduleAtFixedRate(() -> { }, 1, 0, SECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("period");
        assertThatThrownBy(() -> group.scheduleWithFixedDelay(() -> { }, 1, -1, SECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delay");
        assertThatThrownBy(() -> group.awaitTermination(1, null))
                .isInstanceOf(NullPointerException.class).hasMessage("unit");
        assertThat(group.pendingTasks()).isZero();
    }

    @Test
    void nullForEveryReferenceParameter_throwsNullPointerException() throws Exception {
        TaskGroup group = executor.newSerialGroup();
        new NullPointerTester()
                .setDefault(TimeUnit.class, HOURS)
                .ignore(TaskGroup.class.getMethod("submit", Runnable.class, Object.class)) // null result is allowed
                .testAllPublicInstanceMethods(group);

        assertThat(group.isShutdown()).isFalse();
        group.cancelAll();
        assertThat(group.pendingTasks()).isZero();
    }

    @Test
    void aTaskTheExecutorRejects_leavesTheGroup() {
        WheelScheduledExecutor bounded = WheelScheduledExecutor.builder()
                .workers(1).daemon(true).timeSource(clock).maxPendingTasks(2).build();
        try {
            TaskGroup full = bounded.newGroup();
            full.schedule(() -> { }, 1, HOURS);
            full.schedule(() -> { }, 1, HOURS);
            assertThatThrownBy(() -> full.schedule(() -> { }, 1, HOURS))
                    .isInstanceOf(RejectedExecutionException.class);
            assertThat(full.pendingTasks()).isEqualTo(2);

            full.cancelAll();
            assertThat(full.pendingTasks()).isZero();
            TaskGroup next = bounded.newGroup();
            next.schedule(() -> { }, 1, HOURS);
            next.schedule(() -> { }, 1, HOURS);
            assertThat(next.pendingTasks()).as("close gave back both places in the bound").isEqualTo(2);
        } finally {
            bounded.shutdownNow();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Periodic tasks.

    @Test
    void periodicTask_neverRunsAgainAfterClose() throws Exception {
        TaskGroup group = executor.newGroup();
        AtomicInteger rate = new AtomicInteger();
        AtomicInteger delay = new AtomicInteger();
        ScheduledFuture<?> fixedRate = group.scheduleAtFixedRate(rate::incrementAndGet, 1, 1, SECONDS);
        ScheduledFuture<?> fixedDelay = group.scheduleWithFixedDelay(delay::incrementAndGet, 1, 1, SECONDS);
        advance(1, SECONDS);
        advance(1, SECONDS);
        assertThat(rate.get()).isEqualTo(2);
        assertThat(delay.get()).isEqualTo(2);

        group.cancelAll();
        advance(10, SECONDS);

        assertThat(rate.get()).isEqualTo(2);
        assertThat(delay.get()).isEqualTo(2);
        assertThat(fixedRate.isCancelled()).isTrue();
        assertThat(fixedDelay.isCancelled()).isTrue();
        assertThat(executor.getQueue()).isEmpty();
    }

    /**
     * Real time, two workers: a 1 ms fixed-rate task and a fixed-delay one are closed while they
     * run and reschedule. After close() returned and the group terminated, no run starts.
     */
    @Test
    void periodicTask_closedWhileRunning_noRunStartsAfterCloseReturned() throws Exception {
        WheelScheduledExecutor real = WheelScheduledExecutor.builder().workers(2).daemon(true).build();
        try {
            for (int round = 0; round < 20; round++) {
                TaskGroup group = real.newGroup();
                AtomicInteger runs = new AtomicInteger();
                AtomicInteger startsAfterClose = new AtomicInteger();
                AtomicInteger closed = new AtomicInteger();
                CountDownLatch running = new CountDownLatch(4);
                Runnable body = () -> {
                    if (closed.get() == 1 && !Thread.currentThread().isInterrupted()) {
                        startsAfterClose.incrementAndGet();
                    }
                    runs.incrementAndGet();
                    running.countDown();
                };
                group.scheduleAtFixedRate(body, 0, 1, MILLISECONDS);
                group.scheduleWithFixedDelay(body, 0, 1, MILLISECONDS);
                await(running);

                group.shutdownNow(); // interrupts a run in progress, which marks it as not new
                closed.set(1);

                assertThat(group.awaitTermination(TIMEOUT_SECONDS, SECONDS)).isTrue();
                int runsAtTermination = runs.get();
                observeFor(20, MILLISECONDS);
                assertThat(runs.get()).as("round %d", round).isEqualTo(runsAtTermination);
                assertThat(startsAfterClose.get()).as("round %d", round).isZero();
                assertThat(group.pendingTasks()).isZero();
            }
        } finally {
            real.shutdownNow();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Lifecycle.

    @Test
    void awaitTermination_waitsForARunInProgress_whichCloseDoesNotStop() throws Exception {
        WheelScheduledExecutor real = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        try {
            TaskGroup group = real.newGroup();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ScheduledFuture<?> blocking = group.schedule(() -> {
                started.countDown();
                awaitInTask(release);
            }, 0, NANOSECONDS);
            await(started);

            group.cancelAll();

            assertThat(blocking.isCancelled()).as("cancel(false) of a running task succeeds").isTrue();
            assertThat(group.isTerminated()).isFalse();
            assertThat(group.awaitTermination(10, MILLISECONDS)).isFalse();
            release.countDown();
            assertThat(group.awaitTermination(TIMEOUT_SECONDS, SECONDS)).isTrue();
            assertThat(group.isTerminated()).isTrue();
        } finally {
            real.shutdownNow();
        }
    }

    /**
     * A shut-down group whose last member ends without a run (its future cancelled directly)
     * wakes a thread waiting for its termination then, not when that thread's timeout runs out.
     * Mutant: the completion hook that unlinks a member without waking the waiters (the wait
     * ended only at its 30 s).
     */
    @Test
    void awaitTermination_returnsWhenTheLastMemberIsCancelled_notAtItsTimeout() throws Exception {
        TaskGroup group = executor.newGroup();
        ScheduledFuture<?> later = group.schedule(() -> { }, 1, HOURS);
        group.shutdown(); // a one-shot task stays, as in a shut-down executor
        AtomicReference<Boolean> terminated = new AtomicReference<>();
        AtomicLong waitedNanos = new AtomicLong();
        Thread waiter = new Thread(() -> {
            long start = System.nanoTime();
            try {
                terminated.set(group.awaitTermination(30, SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            waitedNanos.set(System.nanoTime() - start);
        });
        waiter.start();
        awaitCondition("the waiter waits", () -> waiter.getState() == Thread.State.TIMED_WAITING);

        assertThat(later.cancel(false)).isTrue();
        waiter.join(SECONDS.toMillis(60));

        assertThat(terminated.get()).isTrue();
        assertThat(waitedNanos.get()).as("waited (ns), of a 30 s timeout").isLessThan(SECONDS.toNanos(15));
    }

    @Test
    void shutdownNow_interruptsARunInProgress_andReturnsWhatItCancelled() throws Exception {
        WheelScheduledExecutor real = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        try {
            TaskGroup group = real.newGroup();
            CountDownLatch started = new CountDownLatch(1);
            AtomicReference<Boolean> interrupted = new AtomicReference<>();
            CountDownLatch ended = new CountDownLatch(1);
            ScheduledFuture<?> running = group.schedule(() -> {
                started.countDown();
                try {
                    new CountDownLatch(1).await(TIMEOUT_SECONDS, SECONDS);
                    interrupted.set(false);
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
                ended.countDown();
            }, 0, NANOSECONDS);
            ScheduledFuture<?> pending = group.schedule(() -> { }, 1, HOURS);
            ScheduledFuture<?> periodic = group.scheduleAtFixedRate(() -> { }, 1, 1, HOURS);
            RearmableFuture<Void> rearmable = group.scheduleRearmable(() -> { }, 1, HOURS);
            await(started);

            List<Runnable> cancelled = group.shutdownNow();

            await(ended);
            assertThat(interrupted.get()).isTrue();
            // Every kind of member, each named by the future its schedule returned (mutants: a
            // periodic or re-armable member that answers null, or reports no cancel).
            assertThat(cancelled).containsExactlyInAnyOrder((Runnable) running, (Runnable) pending,
                    (Runnable) periodic, (Runnable) rearmable);
            assertThat(group.awaitTermination(TIMEOUT_SECONDS, SECONDS)).isTrue();
            assertThat(real.isShutdown()).isFalse();
        } finally {
            real.shutdownNow();
        }
    }

    @Test
    void shutdown_cancelsPeriodicTasks_letsOneShotTasksRun_andRejectsNewWork() throws Exception {
        TaskGroup group = executor.newGroup();
        AtomicInteger periodicRuns = new AtomicInteger();
        ScheduledFuture<?> periodic = group.scheduleAtFixedRate(periodicRuns::incrementAndGet, 1, 1, SECONDS);
        ScheduledFuture<String> oneShot = group.schedule(() -> "ran", 5, SECONDS);

        group.shutdown();

        assertThat(periodic.isCancelled()).isTrue();
        assertThat(group.isShutdown()).isTrue();
        assertThat(group.isTerminated()).isFalse();
        assertThatThrownBy(() -> group.execute(() -> { })).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("shut down");
        advance(5, SECONDS);
        assertThat(get(oneShot)).isEqualTo("ran");
        assertThat(periodicRuns.get()).isZero();
        assertThat(group.awaitTermination(TIMEOUT_SECONDS, SECONDS)).isTrue();
        assertThat(group.pendingTasks()).isZero();
    }

    @Test
    void invokeAll_andSubmit_runAsTasksOfTheGroup() throws Exception {
        TaskGroup group = executor.newGroup();
        assertThat(get(group.submit(() -> "a"))).isEqualTo("a");
        assertThat(get(group.submit(() -> { }, "b"))).isEqualTo("b");
        List<Future<Integer>> all = group.invokeAll(List.of(() -> 1, () -> 2));
        assertThat(get(all.get(0)) + get(all.get(1))).isEqualTo(3);
        List<String> order = new CopyOnWriteArrayList<>();
        group.execute(() -> order.add("executed"));
        passDueTasks();
        assertThat(order).containsExactly("executed");
        assertThat(group.pendingTasks()).isZero();
    }
}
