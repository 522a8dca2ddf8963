package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The four constructors that mirror {@link ScheduledThreadPoolExecutor}'s give what the JDK's
 * give, defaults included: each is called with the same arguments on both classes, and every
 * setting a user can read back is compared, as are the threads the default factory makes. The
 * builder keeps its own documented defaults (prompt release of cancelled tasks).
 */
class ConstructorDefaultsTest {

    private final List<ThreadPoolExecutor> executors = new CopyOnWriteArrayList<>();

    @AfterEach
    void shutDown() throws InterruptedException {
        for (ThreadPoolExecutor executor : executors) {
            executor.shutdownNow();
            executor.awaitTermination(TIMEOUT_SECONDS, SECONDS);
        }
    }

    /** One of the four constructor shapes, on either class. */
    enum Constructor {
        CORE_SIZE {
            @Override
            ThreadPoolExecutor jdk(int core, ThreadFactory threads, RejectedExecutionHandler handler) {
                return new ScheduledThreadPoolExecutor(core);
            }

            @Override
            ThreadPoolExecutor wheel(int core, ThreadFactory threads, RejectedExecutionHandler handler) {
                return new WheelScheduledExecutor(core);
            }
        },
        THREAD_FACTORY {
            @Override
            ThreadPoolExecutor jdk(int core, ThreadFactory threads, RejectedExecutionHandler handler) {
                return new ScheduledThreadPoolExecutor(core, threads);
            }

            @Override
            ThreadPoolExecutor wheel(int core, ThreadFactory threads, RejectedExecutionHandler handler) {
                return new WheelScheduledExecutor(core, threads);
            }
        },
        HANDLER {
            @Override
            ThreadPoolExecutor jdk(int core, ThreadFactory threads, RejectedExecutionHandler handler) {
                return new ScheduledThreadPoolExecutor(core, handler);
            }

            @Override
            ThreadPoolExecutor wheel(int core, ThreadFactory threads, RejectedExecutionHandler handler) {
                return new WheelScheduledExecutor(core, handler);
            }
        },
        THREAD_FACTORY_AND_HANDLER {
            @Override
            ThreadPoolExecutor jdk(int core, ThreadFactory threads, RejectedExecutionHandler handler) {
                return new ScheduledThreadPoolExecutor(core, threads, handler);
            }

            @Override
            ThreadPoolExecutor wheel(int core, ThreadFactory threads, RejectedExecutionHandler handler) {
                return new WheelScheduledExecutor(core, threads, handler);
            }
        };

        abstract ThreadPoolExecutor jdk(int core, ThreadFactory threads, RejectedExecutionHandler handler);

        abstract ThreadPoolExecutor wheel(int core, ThreadFactory threads, RejectedExecutionHandler handler);
    }

    static Stream<Arguments> constructors() {
        List<Arguments> cases = new ArrayList<>();
        for (Constructor constructor : Constructor.values()) {
            for (int core : new int[] {0, 1, 3}) {
                cases.add(Arguments.of(constructor, core));
            }
        }
        return cases.stream();
    }

    /** Every setting a user can read back from a new executor, by name. */
    private static Map<String, Object> settings(ThreadPoolExecutor executor) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("corePoolSize", executor.getCorePoolSize());
        settings.put("maximumPoolSize", executor.getMaximumPoolSize());
        settings.put("keepAliveTime (ns)", executor.getKeepAliveTime(NANOSECONDS));
        settings.put("allowsCoreThreadTimeOut", executor.allowsCoreThreadTimeOut());
        settings.put("rejectedExecutionHandler", executor.getRejectedExecutionHandler().getClass());
        settings.put("poolSize", executor.getPoolSize());
        settings.put("largestPoolSize", executor.getLargestPoolSize());
        settings.put("activeCount", executor.getActiveCount());
        settings.put("taskCount", executor.getTaskCount());
        settings.put("completedTaskCount", executor.getCompletedTaskCount());
        settings.put("queue size", executor.getQueue().size());
        settings.put("isShutdown", executor.isShutdown());
        settings.put("isTerminating", executor.isTerminating());
        settings.put("isTerminated", executor.isTerminated());
        if (executor instanceof ScheduledThreadPoolExecutor jdk) {
            settings.put("removeOnCancelPolicy", jdk.getRemoveOnCancelPolicy());
            settings.put("continueExistingPeriodicTasksAfterShutdownPolicy",
                    jdk.getContinueExistingPeriodicTasksAfterShutdownPolicy());
            settings.put("executeExistingDelayedTasksAfterShutdownPolicy",
                    jdk.getExecuteExistingDelayedTasksAfterShutdownPolicy());
        } else {
            WheelScheduledExecutor wheel = (WheelScheduledExecutor) executor;
            settings.put("removeOnCancelPolicy", wheel.getRemoveOnCancelPolicy());
            settings.put("continueExistingPeriodicTasksAfterShutdownPolicy",
                    wheel.getContinueExistingPeriodicTasksAfterShutdownPolicy());
            settings.put("executeExistingDelayedTasksAfterShutdownPolicy",
                    wheel.getExecuteExistingDelayedTasksAfterShutdownPolicy());
        }
        return settings;
    }

    @ParameterizedTest(name = "{0}, core size {1}")
    @MethodSource("constructors")
    void everySetting_isTheJdks(Constructor constructor, int core) {
        ThreadFactory threads = Executors.defaultThreadFactory();
        RejectedExecutionHandler handler = new ThreadPoolExecutor.DiscardPolicy();
        ThreadPoolExecutor jdk = track(constructor.jdk(core, threads, handler));
        ThreadPoolExecutor wheel = track(constructor.wheel(core, threads, handler));

        assertThat(settings(wheel)).as("settings of a new executor, JDK's on the right")
                .containsExactlyEntriesOf(settings(jdk));
    }

    /**
     * The policies the JDK's defaults imply: a cancelled task stays in the queue until its
     * deadline or a purge, on both.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Constructor.class)
    void aCancelledTask_staysQueued_asInTheJdk(Constructor constructor) {
        ThreadFactory threads = Executors.defaultThreadFactory();
        RejectedExecutionHandler handler = new ThreadPoolExecutor.AbortPolicy();
        for (ThreadPoolExecutor executor : List.of(track(constructor.jdk(1, threads, handler)),
                track(constructor.wheel(1, threads, handler)))) {
            ScheduledFuture<?> cancelled = ((ScheduledExecutorService) executor)
                    .schedule(() -> { }, 1L, MINUTES);

            cancelled.cancel(false);

            assertThat(executor.getQueue()).as("%s", executor.getClass().getSimpleName())
                    .containsExactly((Runnable) cancelled);
            executor.purge();
            assertThat(executor.getQueue()).isEmpty();
        }
    }

    /**
     * The default thread factory: workers are not daemons and run at normal priority, whatever
     * the thread that starts them, as {@link Executors#defaultThreadFactory()} makes them.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Constructor.class, names = {"CORE_SIZE", "HANDLER"})
    void defaultThreads_areNormalPriorityNonDaemons_whoeverStartsThem(Constructor constructor) throws Exception {
        RejectedExecutionHandler handler = new ThreadPoolExecutor.AbortPolicy();
        ThreadPoolExecutor jdk = track(constructor.jdk(1, null, handler));
        ThreadPoolExecutor wheel = track(constructor.wheel(1, null, handler));

        assertThat(workerOf(wheel)).as("worker of ours (daemon, priority)").isEqualTo(workerOf(jdk))
                .isEqualTo(List.of(false, Thread.NORM_PRIORITY));
    }

    /** Starts the executor's worker from a daemon thread of maximum priority; its traits. */
    private static List<Object> workerOf(ThreadPoolExecutor executor) throws Exception {
        FutureTask<List<Object>> traits = new FutureTask<>(() -> List.of(
                Thread.currentThread().isDaemon(), Thread.currentThread().getPriority()));
        Thread starter = new Thread(() -> executor.execute(traits), "high-priority-daemon-starter");
        starter.setDaemon(true);
        starter.setPriority(Thread.MAX_PRIORITY);
        starter.start();
        starter.join(SECONDS.toMillis(TIMEOUT_SECONDS));
        return traits.get(TIMEOUT_SECONDS, SECONDS);
    }

    /** The builder keeps its documented default: cancelled tasks are released at once. */
    @Test
    void builder_releasesCancelledTasksAtOnce_byDefault() {
        WheelScheduledExecutor executor = track(WheelScheduledExecutor.builder().workers(1).daemon(true).build());
        ScheduledFuture<?> cancelled = executor.schedule(() -> { }, 1L, MINUTES);

        cancelled.cancel(false);

        assertThat(executor.getRemoveOnCancelPolicy()).isTrue();
        assertThat(executor.getQueue()).isEmpty();
    }

    private <E extends ThreadPoolExecutor> E track(E executor) {
        executors.add(executor);
        return executor;
    }
}
