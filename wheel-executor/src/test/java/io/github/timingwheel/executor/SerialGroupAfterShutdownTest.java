package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitInTask;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What an orderly {@code shutdown()} of the executor leaves a serial {@link TaskGroup}: its
 * accepted one-shot tasks all run, whatever the executor's {@link RejectedExecutionHandler}
 * does with work submitted after shutdown, and the pool's interrupt rule between tasks still
 * holds. {@link ScheduledThreadPoolExecutor} with one thread, whose tasks also run one at a
 * time, is the control in every case.
 */
class SerialGroupAfterShutdownTest {

    /** More than two batches, so that a drain passes itself on at least twice after shutdown. */
    private static final int TASKS = 3 * SerialRunQueue.BATCH + 4;

    private final List<ThreadPoolExecutor> executors = new CopyOnWriteArrayList<>();

    @AfterEach
    void shutDown() throws InterruptedException {
        for (ThreadPoolExecutor executor : executors) {
            executor.shutdownNow();
        }
        for (ThreadPoolExecutor executor : executors) {
            executor.awaitTermination(TIMEOUT_SECONDS, SECONDS);
        }
    }

    /** A handler that only records what it was given, as a logging handler would. */
    static final class RecordingHandler implements RejectedExecutionHandler {
        final List<Runnable> rejected = new CopyOnWriteArrayList<>();

        @Override
        public void rejectedExecution(Runnable task, ThreadPoolExecutor executor) {
            rejected.add(task);
        }

        @Override
        public String toString() {
            return "logging handler";
        }
    }

    /** Where the tasks go: a serial group of ours, or the JDK's executor with one thread. */
    enum Subject {
        SERIAL_GROUP {
            @Override
            ScheduledExecutorService tasksOf(ThreadPoolExecutor executor) {
                return ((WheelScheduledExecutor) executor).newSerialGroup();
            }
        },
        JDK_ONE_THREAD {
            @Override
            ScheduledExecutorService tasksOf(ThreadPoolExecutor executor) {
                return (ScheduledExecutorService) executor;
            }
        };

        abstract ScheduledExecutorService tasksOf(ThreadPoolExecutor executor);
    }

    static Stream<Arguments> handlers() {
        List<Arguments> cases = new ArrayList<>();
        for (Subject subject : Subject.values()) {
            cases.add(Arguments.of(subject, new ThreadPoolExecutor.AbortPolicy()));
            cases.add(Arguments.of(subject, new ThreadPoolExecutor.DiscardPolicy()));
            cases.add(Arguments.of(subject, new ThreadPoolExecutor.DiscardOldestPolicy()));
            cases.add(Arguments.of(subject, new ThreadPoolExecutor.CallerRunsPolicy()));
            cases.add(Arguments.of(subject, new RecordingHandler()));
        }
        return cases.stream();
    }

    private ThreadPoolExecutor executor(Subject subject, RejectedExecutionHandler handler) {
        BiFunction<Integer, RejectedExecutionHandler, ThreadPoolExecutor> constructor =
                subject == Subject.SERIAL_GROUP ? WheelScheduledExecutor::new : ScheduledThreadPoolExecutor::new;
        ThreadPoolExecutor executor = constructor.apply(subject == Subject.SERIAL_GROUP ? 2 : 1, handler);
        executors.add(executor);
        return executor;
    }

    /** Ours: the wheel has handed every task out, into the group's queue behind the first. */
    private static void awaitQueuedBehindTheFirst(Subject subject, ThreadPoolExecutor executor) {
        if (subject == Subject.SERIAL_GROUP) {
            awaitCondition("every task handed out to the group", () -> executor.getQueue().isEmpty());
        }
    }

    /**
     * The first task holds the group while the rest queue up behind it; then the executor
     * shuts down and the first task ends. Every accepted task runs, every future completes,
     * and the executor does not report termination before they have.
     */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("handlers")
    void shutdown_runsEveryAcceptedTask_whateverTheHandler(Subject subject, RejectedExecutionHandler handler)
            throws Exception {
        ThreadPoolExecutor executor = executor(subject, handler);
        ScheduledExecutorService tasks = subject.tasksOf(executor);
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        futures.add(tasks.submit(() -> {
            firstStarted.countDown();
            awaitInTask(releaseFirst);
            ran.incrementAndGet();
        }));
        for (int i = 1; i < TASKS; i++) {
            futures.add(tasks.schedule(ran::incrementAndGet, 0L, NANOSECONDS));
        }
        await(firstStarted);
        awaitQueuedBehindTheFirst(subject, executor);

        executor.shutdown();
        releaseFirst.countDown();

        assertThat(executor.awaitTermination(TIMEOUT_SECONDS, SECONDS)).as("terminated").isTrue();
        assertThat(ran).as("tasks run when the executor reported termination").hasValue(TASKS);
        assertThat(futures).allMatch(Future::isDone);
        if (handler instanceof RecordingHandler recording) {
            assertThat(recording.rejected).as("tasks given to the handler").isEmpty();
        }
    }

    /**
     * A task interrupts its own thread; the next task, due at the same time, starts with the
     * flag clear after an orderly shutdown, as the pool clears it between tasks unless it is
     * stopping.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Subject.class)
    void interruptOfOneTask_doesNotReachTheNext_afterShutdown(Subject subject) throws Exception {
        ThreadPoolExecutor executor = executor(subject, new ThreadPoolExecutor.AbortPolicy());
        ScheduledExecutorService tasks = subject.tasksOf(executor);
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        tasks.submit(() -> {
            firstStarted.countDown();
            awaitInTask(releaseFirst);
            Thread.currentThread().interrupt();
        });
        Future<Boolean> next = tasks.schedule(() -> Thread.currentThread().isInterrupted(), 0L, MILLISECONDS);
        await(firstStarted);
        awaitQueuedBehindTheFirst(subject, executor);

        executor.shutdown();
        releaseFirst.countDown();

        assertThat(next.get(TIMEOUT_SECONDS, SECONDS)).as("the next task saw an interrupt").isFalse();
    }
}
