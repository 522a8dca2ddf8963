package io.github.timingwheel.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static java.util.concurrent.TimeUnit.MINUTES;

import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;

/**
 * The control: the JDK's {@link ScheduledThreadPoolExecutor} passes every contract test, so that
 * each property checked there is one the reference has, not one we invented.
 */
class JdkScheduledThreadPoolExecutorContractTest extends ScheduledExecutorContractTest {

    @Override
    ScheduledExecutorService newExecutor(int workers) {
        return new ScheduledThreadPoolExecutor(workers);
    }

    @Override
    ScheduledExecutorService newExecutor(int workers, ThreadFactory threadFactory,
            RejectedExecutionHandler handler) {
        return new ScheduledThreadPoolExecutor(workers, threadFactory, handler);
    }

    @Override
    ScheduledExecutorService newHookedExecutor(int workers, Hooks hooks) {
        return new ScheduledThreadPoolExecutor(workers) {
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
        ((ScheduledThreadPoolExecutor) executor).setRemoveOnCancelPolicy(value);
    }

    @Override
    void setContinueExistingPeriodicTasksAfterShutdownPolicy(ScheduledExecutorService executor,
            boolean value) {
        ((ScheduledThreadPoolExecutor) executor).setContinueExistingPeriodicTasksAfterShutdownPolicy(value);
    }

    @Override
    void setExecuteExistingDelayedTasksAfterShutdownPolicy(ScheduledExecutorService executor,
            boolean value) {
        ((ScheduledThreadPoolExecutor) executor).setExecuteExistingDelayedTasksAfterShutdownPolicy(value);
    }

    /**
     * The JDK keeps cancelled tasks by default; so do our constructors, and our builder does
     * not (ConstructorDefaultsTest).
     */
    @Test
    void removeOnCancel_isOffByDefault() {
        ScheduledThreadPoolExecutor executor = (ScheduledThreadPoolExecutor) executor(1);
        ScheduledFuture<?> cancelled = executor.schedule(NOOP, 1L, MINUTES);

        cancelled.cancel(false);

        assertThat(executor.getRemoveOnCancelPolicy()).isFalse();
        assertThat(executor.getQueue()).containsExactly((Runnable) cancelled);
    }
}
