package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.LATE_SLACK_NANOS;
import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.get;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.ManualTimeSource;
import io.github.timingwheel.core.WheelShape;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Delayed;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;

/** {@link WheelScheduledExecutor} under the contract, plus what only it does. */
class WheelScheduledExecutorContractTest extends ScheduledExecutorContractTest {

    @Override
    ScheduledExecutorService newExecutor(int workers) {
        return new WheelScheduledExecutor(workers);
    }

    @Override
    ScheduledExecutorService newExecutor(int workers, ThreadFactory threadFactory,
            RejectedExecutionHandler handler) {
        return new WheelScheduledExecutor(workers, threadFactory, handler);
    }

    @Override
    ScheduledExecutorService newHookedExecutor(int workers, Hooks hooks) {
        return new WheelScheduledExecutor(workers) {
            @Override
            protected void beforeExecute(Thread thread, Runnable task) {
                hooks.beforeExecute(thread, task);
            }

            @Override
            protected void afterExecute(Runnable task, Throwable failure) {
                hooks.afterExecute(task, failure);
            }

            @Override
            protected void terminated() {
                hooks.terminated();
            }

            @Override
            protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable,
                    RunnableScheduledFuture<V> task) {
                return hooks.decorateTask(runnable, task);
            }

            @Override
            protected <V> RunnableScheduledFuture<V> decorateTask(Callable<V> callable,
                    RunnableScheduledFuture<V> task) {
                return hooks.decorateTask(callable, task);
            }
        };
    }

    @Override
    void setRemoveOnCancelPolicy(ScheduledExecutorService executor, boolean value) {
        ((WheelScheduledExecutor) executor).setRemoveOnCancelPolicy(value);
    }

    @Override
    void setContinueExistingPeriodicTasksAfterShutdownPolicy(ScheduledExecutorService executor,
            boolean value) {
        ((WheelScheduledExecutor) executor).setContinueExistingPeriodicTasksAfterShutdownPolicy(value);
    }

    @Override
    void setExecuteExistingDelayedTasksAfterShutdownPolicy(ScheduledExecutorService executor,
            boolean value) {
        ((WheelScheduledExecutor) executor).setExecuteExistingDelayedTasksAfterShutdownPolicy(value);
    }

    /**
     * A wheel of two levels of four 1 ms slots spans 16 ms: most delays here go through the
     * overflow list and cascade twice, where index arithmetic that fits only the default shape
     * would start a task early.
     */
    @Test
    void tinyWheel_withOverflowAndCascades_neverStartsATaskEarly() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        WheelShape tiny = WheelShape.builder().tick(1L, MILLISECONDS).slotsPerLevel(4).levels(2).build();
        ScheduledExecutorService executor = track(
                WheelScheduledExecutor.builder().workers(2).shape(tiny).build());
        int tasks = 200;
        long[] delays = new long[tasks];
        long[] starts = new long[tasks];
        CountDownLatch done = new CountDownLatch(tasks);

        long before = System.nanoTime();
        for (int i = 0; i < tasks; i++) {
            int id = i;
            delays[i] = (long) random.nextInt(200_000) * 1_000L;
            executor.schedule(() -> {
                starts[id] = System.nanoTime();
                done.countDown();
            }, delays[i], NANOSECONDS);
        }
        await(done);

        for (int i = 0; i < tasks; i++) {
            assertThat(starts[i] - before)
                    .as("task %d, delay %d ns, seed %d", i, delays[i], seed)
                    .isGreaterThanOrEqualTo(delays[i])
                    .isLessThan(delays[i] + LATE_SLACK_NANOS);
        }
    }

    /**
     * Futures of equal deadlines compare in submission order, never as equal, as the queue runs
     * them (the JDK's futures compare by their sequence numbers there too), on a clock that
     * stands still. Mutant: our own futures compared by their delays alone (they compare as 0).
     */
    @Test
    void compareTo_equalDeadlines_goBySubmissionOrder() {
        WheelScheduledExecutor executor = (WheelScheduledExecutor) track(WheelScheduledExecutor.builder()
                .workers(1).timeSource(new ManualTimeSource()).build());
        ScheduledFuture<?> first = executor.schedule(NOOP, 10L, SECONDS);
        ScheduledFuture<Integer> second = executor.schedule(() -> 2, 10L, SECONDS);
        ScheduledFuture<?> third = executor.scheduleAtFixedRate(NOOP, 10L, 1L, SECONDS);

        assertThat(first.getDelay(NANOSECONDS)).isEqualTo(third.getDelay(NANOSECONDS));
        List<ScheduledFuture<?>> sorted = new ArrayList<>(List.of(third, first, second));
        sorted.sort(Delayed::compareTo);
        assertThat(sorted).containsExactly(first, second, third);
        assertThat(first.compareTo(second)).isNegative();
        assertThat(second.compareTo(first)).isPositive();
    }

    /** The shutdown policies read back as set, from the JDK's defaults (their getters' mutants). */
    @Test
    void shutdownPolicies_readBackAsSet() {
        WheelScheduledExecutor executor = (WheelScheduledExecutor) track(new WheelScheduledExecutor(1));
        assertThat(executor.getContinueExistingPeriodicTasksAfterShutdownPolicy()).isFalse();
        assertThat(executor.getExecuteExistingDelayedTasksAfterShutdownPolicy()).isTrue();
        assertThat(executor.getRemoveOnCancelPolicy()).isFalse();

        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);

        assertThat(executor.getContinueExistingPeriodicTasksAfterShutdownPolicy()).isTrue();
        assertThat(executor.getExecuteExistingDelayedTasksAfterShutdownPolicy()).isFalse();
        assertThat(executor.getRemoveOnCancelPolicy()).isTrue();
    }

    /** A bound on pending tasks rejects cleanly, and a finished or cancelled task frees its place. */
    @Test
    void maxPendingTasks_rejectsPastTheBound_andFreesAPlaceWhenATaskFinishes() throws Exception {
        WheelScheduledExecutor executor = (WheelScheduledExecutor) track(
                WheelScheduledExecutor.builder().workers(1).maxPendingTasks(2).build());
        ScheduledFuture<?> first = executor.schedule(NOOP, 1L, MINUTES);
        ScheduledFuture<?> periodic = executor.scheduleAtFixedRate(NOOP, 1L, 1L, MINUTES);

        assertThatThrownBy(() -> executor.schedule(NOOP, 1L, MINUTES))
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("2");
        assertThatThrownBy(() -> executor.execute(NOOP))
                .isInstanceOf(RejectedExecutionException.class);
        assertThat(executor.getQueue()).hasSize(2);

        assertThat(first.cancel(false)).isTrue();
        get(executor.submit(NOOP)); // takes the freed place, runs, and gives it back
        ScheduledFuture<?> next = executor.schedule(NOOP, 1L, MINUTES);
        assertThatThrownBy(() -> executor.schedule(NOOP, 1L, MINUTES))
                .isInstanceOf(RejectedExecutionException.class);

        assertThat(periodic.cancel(false)).isTrue();
        assertThat(next.cancel(false)).isTrue();
        get(executor.submit(NOOP));
        get(executor.submit(NOOP));
    }
}
