package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.get;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Faults from tasks and from the user's plug-ins, each run against {@link WheelScheduledExecutor}
 * and, as the control, the JDK's {@link ScheduledThreadPoolExecutor}: the executor must go on
 * as the JDK's does.
 *
 * <ul>
 *   <li>Tasks that throw an {@code InterruptedException} (from a {@code Callable}), that
 *       interrupt their own thread, that never return, or that cancel themselves or shut the
 *       executor down while they run. ({@code RuntimeException} and {@code Error} are in
 *       {@link ScheduledExecutorContractTest#aTaskThatThrows_neverKillsItsWorker_andTheFailureIsItsOutcome}.)
 *   <li>A {@link ThreadFactory} that returns null or throws: the task is accepted (null) or the
 *       factory's exception reaches the caller (throws), the task waits in the queue either way,
 *       and the next worker that can start runs it. That is the JDK's behaviour, which
 *       {@code ThreadPoolExecutor.addWorker} gives both.
 *   <li>A {@link RejectedExecutionHandler} that throws: its exception reaches the caller, and
 *       nothing is left behind.
 * </ul>
 */
class FaultInjectionTest {

    enum Implementation {
        WHEEL, JDK;

        ScheduledExecutorService create(int workers, ThreadFactory threads, RejectedExecutionHandler handler) {
            return this == WHEEL
                    ? new WheelScheduledExecutor(workers, threads, handler)
                    : new ScheduledThreadPoolExecutor(workers, threads, handler);
        }
    }

    private final List<ScheduledExecutorService> executors = new CopyOnWriteArrayList<>();

    private ScheduledExecutorService executor(Implementation implementation, int workers) {
        return executor(implementation, workers, daemonThreads(), new ThreadPoolExecutor.AbortPolicy());
    }

    private ScheduledExecutorService executor(Implementation implementation, int workers,
            ThreadFactory threads, RejectedExecutionHandler handler) {
        ScheduledExecutorService executor = implementation.create(workers, threads, handler);
        executors.add(executor);
        return executor;
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "fault-worker-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    private static ThreadPoolExecutor pool(ScheduledExecutorService executor) {
        return (ThreadPoolExecutor) executor;
    }

    @AfterEach
    void shutDownEveryExecutor() throws InterruptedException {
        for (ScheduledExecutorService executor : executors) {
            executor.shutdownNow();
        }
        for (ScheduledExecutorService executor : executors) {
            awaitTermination(executor);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Faulty tasks.

    @ParameterizedTest
    @EnumSource(Implementation.class)
    void aCallableThatThrowsInterruptedException_failsOnlyItsFuture(Implementation implementation)
            throws Exception {
        ScheduledExecutorService executor = executor(implementation, 1);
        Thread worker = get(executor.submit(Thread::currentThread));

        Future<Object> fails = executor.submit(() -> {
            throw new InterruptedException("thrown by the task, not delivered to the thread");
        });

        assertThatThrownBy(() -> get(fails)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(get(executor.submit(() -> Thread.currentThread().isInterrupted()))).isFalse();
        assertThat(get(executor.submit(Thread::currentThread))).isSameAs(worker);
        assertThat(pool(executor).getPoolSize()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Implementation.class)
    void aTaskThatInterruptsItsOwnThread_doesNotLeakTheInterruptToTheNextTask(
            Implementation implementation) throws Exception {
        ScheduledExecutorService executor = executor(implementation, 1);
        Thread worker = get(executor.submit(Thread::currentThread));

        Future<?> selfInterrupting = executor.submit(() -> Thread.currentThread().interrupt());
        ScheduledFuture<Boolean> next = executor.schedule(() -> Thread.currentThread().isInterrupted(),
                1L, MILLISECONDS);
        ScheduledFuture<?> periodic = executor.scheduleAtFixedRate(
                () -> Thread.currentThread().interrupt(), 0L, 1L, MILLISECONDS);

        assertThat(get(selfInterrupting)).isNull();
        assertThat(get(next)).as("the next task saw an interrupt").isFalse();
        CountDownLatch later = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            executor.schedule(later::countDown, 2L + i, MILLISECONDS); // the idle worker still wakes
        }
        await(later);
        assertThat(periodic.isDone()).as("an interrupt is no failure: the periodic task goes on").isFalse();
        periodic.cancel(false);
        assertThat(get(executor.submit(Thread::currentThread))).isSameAs(worker);
        assertThat(pool(executor).getPoolSize()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Implementation.class)
    void aTaskThatNeverReturns_holdsOneWorker_andTheOtherGoesOn(Implementation implementation)
            throws Exception {
        ScheduledExecutorService executor = executor(implementation, 2);
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        Future<?> hung = executor.submit(() -> {
            stuck.countDown();
            ExecutorTesting.awaitInTask(never); // until shutdownNow interrupts it, in effect
        });
        await(stuck);

        int tasks = 50;
        CountDownLatch ran = new CountDownLatch(tasks);
        List<Integer> order = new CopyOnWriteArrayList<>();
        for (int i = 0; i < tasks; i++) { // deadlines increase with the id
            int id = i;
            executor.schedule(() -> {
                order.add(id);
                ran.countDown();
            }, id * 100_000L, NANOSECONDS);
        }
        CountDownLatch periodicRuns = new CountDownLatch(5);
        executor.scheduleWithFixedDelay(periodicRuns::countDown, 0L, 1L, MILLISECONDS);

        await(ran);
        await(periodicRuns);
        assertThat(order).isSorted();
        assertThat(hung.isDone()).isFalse();
        never.countDown();
        assertThat(get(hung)).isNull();
        assertThat(pool(executor).getPoolSize()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Implementation.class)
    void aTaskThatCancelsItselfWithInterrupt_isInterruptedAlone(Implementation implementation)
            throws Exception {
        ScheduledExecutorService executor = executor(implementation, 1);
        AtomicReference<Future<?>> self = new AtomicReference<>();
        CountDownLatch published = new CountDownLatch(1);
        AtomicBoolean cancelReturned = new AtomicBoolean();
        AtomicBoolean interruptedAfterCancel = new AtomicBoolean();
        CountDownLatch bodyEnded = new CountDownLatch(1);
        self.set(executor.submit(() -> {
            ExecutorTesting.awaitInTask(published);
            cancelReturned.set(self.get().cancel(true));
            interruptedAfterCancel.set(Thread.currentThread().isInterrupted());
            bodyEnded.countDown();
        }));
        published.countDown();

        await(bodyEnded);
        assertThat(cancelReturned).isTrue();
        assertThat(interruptedAfterCancel).as("cancel(true) interrupts the running task").isTrue();
        assertThat(self.get().isCancelled()).isTrue();
        assertThat(get(executor.submit(() -> Thread.currentThread().isInterrupted())))
                .as("the interrupt stays with the cancelled run").isFalse();
        assertThat(pool(executor).getPoolSize()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Implementation.class)
    void shutdownFromInsideATask_letsDelayedTasksFinish_andTerminates(Implementation implementation)
            throws Exception {
        ScheduledExecutorService executor = executor(implementation, 1);
        CountDownLatch delayedRan = new CountDownLatch(1);
        executor.schedule(delayedRan::countDown, 20L, MILLISECONDS);
        ScheduledFuture<?> periodic = executor.scheduleAtFixedRate(() -> { }, 1L, 1L, HOURS);

        Future<?> stopper = executor.submit(executor::shutdown);

        assertThat(get(stopper)).isNull();
        await(delayedRan);
        awaitTermination(executor);
        assertThat(periodic.isCancelled()).as("periodic tasks stop at shutdown").isTrue();
        assertThatThrownBy(() -> executor.submit(() -> { }))
                .isInstanceOf(RejectedExecutionException.class);
    }

    @ParameterizedTest
    @EnumSource(Implementation.class)
    void shutdownNowFromInsideATask_returnsThePendingTasks_interruptsTheCaller_andTerminates(
            Implementation implementation) throws Exception {
        ScheduledExecutorService executor = executor(implementation, 1);
        ScheduledFuture<?> pending = executor.schedule(() -> { }, 1L, HOURS);
        AtomicReference<List<Runnable>> returned = new AtomicReference<>();
        AtomicBoolean interrupted = new AtomicBoolean();

        Future<?> stopper = executor.submit(() -> {
            returned.set(executor.shutdownNow());
            interrupted.set(Thread.interrupted());
        });

        awaitTermination(executor);
        assertThat(stopper.isDone()).isTrue();
        assertThat(returned.get()).containsExactly((Runnable) pending);
        assertThat(interrupted).as("shutdownNow interrupts every worker, the caller's too").isTrue();
    }

    // ---------------------------------------------------------------------------------------
    // Faulty plug-ins.

    /** A thread factory that fails (returns null or throws) until told to work. */
    private static final class FlakyThreadFactory implements ThreadFactory {
        final AtomicBoolean works = new AtomicBoolean();
        final boolean throwing;
        final ThreadFactory real = daemonThreads();
        final AtomicInteger refused = new AtomicInteger();

        FlakyThreadFactory(boolean throwing) {
            this.throwing = throwing;
        }

        @Override
        public Thread newThread(Runnable runnable) {
            if (works.get()) {
                return real.newThread(runnable);
            }
            refused.incrementAndGet();
            if (throwing) {
                throw new IllegalStateException("thread factory failure");
            }
            return null;
        }
    }

    @ParameterizedTest
    @EnumSource(Implementation.class)
    void aThreadFactoryThatReturnsNull_leavesTheTaskQueued_untilAWorkerCanStart(
            Implementation implementation) throws Exception {
        FlakyThreadFactory threads = new FlakyThreadFactory(false);
        ScheduledExecutorService executor = executor(implementation, 1, threads,
                new ThreadPoolExecutor.AbortPolicy());
        CountDownLatch ran = new CountDownLatch(2);

        ScheduledFuture<?> first = executor.schedule(ran::countDown, 0L, NANOSECONDS); // accepted

        assertThat(threads.refused).hasPositiveValue();
        assertThat(pool(executor).getPoolSize()).isZero();
        assertThat(first.isDone()).isFalse();
        assertThat(executor.isShutdown()).isFalse();
        assertThat(pool(executor).getQueue()).hasSize(1);

        threads.works.set(true);
        executor.schedule(ran::countDown, 0L, NANOSECONDS); // starts the worker, which runs both
        await(ran);
        assertThat(pool(executor).getPoolSize()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Implementation.class)
    void aThreadFactoryThatThrows_passesItsExceptionToTheCaller_andTheTaskStaysQueued(
            Implementation implementation) throws Exception {
        FlakyThreadFactory threads = new FlakyThreadFactory(true);
        ScheduledExecutorService executor = executor(implementation, 1, threads,
                new ThreadPoolExecutor.AbortPolicy());
        CountDownLatch ran = new CountDownLatch(2);

        assertThatThrownBy(() -> executor.schedule(ran::countDown, 0L, NANOSECONDS))
                .isInstanceOf(IllegalStateException.class).hasMessage("thread factory failure");

        assertThat(pool(executor).getPoolSize()).isZero();
        assertThat(pool(executor).getQueue()).as("the task the caller saw fail is queued (as in the JDK)")
                .hasSize(1);
        threads.works.set(true);
        executor.schedule(ran::countDown, 0L, NANOSECONDS);
        await(ran);
        assertThat(pool(executor).getPoolSize()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Implementation.class)
    void aThreadFactoryThatReturnsNull_afterShutdown_stillLetsTheExecutorTerminate(
            Implementation implementation) throws Exception {
        FlakyThreadFactory threads = new FlakyThreadFactory(false);
        ScheduledExecutorService executor = executor(implementation, 1, threads,
                new ThreadPoolExecutor.AbortPolicy());
        ScheduledFuture<?> stranded = executor.schedule(() -> { }, 0L, NANOSECONDS);

        List<Runnable> returned = executor.shutdownNow();

        assertThat(returned).containsExactly((Runnable) stranded);
        awaitTermination(executor);
    }

    /** An exception a rejection handler throws on purpose. */
    private static final class HandlerFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HandlerFailure() {
            super("rejection handler failure");
        }
    }

    @ParameterizedTest
    @EnumSource(Implementation.class)
    void aRejectionHandlerThatThrows_passesItsExceptionToTheCaller_andLeavesNothingBehind(
            Implementation implementation) throws Exception {
        AtomicInteger calls = new AtomicInteger();
        RejectedExecutionHandler throwing = (task, pool) -> {
            calls.incrementAndGet();
            throw new HandlerFailure();
        };
        ScheduledExecutorService executor = executor(implementation, 1, daemonThreads(), throwing);
        assertThat(get(executor.submit(() -> 1))).isEqualTo(1);
        executor.shutdown();
        awaitTermination(executor);

        assertThatThrownBy(() -> executor.schedule(() -> { }, 0L, NANOSECONDS))
                .isInstanceOf(HandlerFailure.class);
        assertThatThrownBy(() -> executor.scheduleAtFixedRate(() -> { }, 0L, 1L, MILLISECONDS))
                .isInstanceOf(HandlerFailure.class);
        assertThatThrownBy(() -> executor.execute(() -> { })).isInstanceOf(HandlerFailure.class);

        assertThat(calls).hasValue(3);
        assertThat(pool(executor).getQueue()).isEmpty();
        assertThat(executor.isTerminated()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Implementation.class)
    void aRejectionHandlerThatThrows_racingWithShutdown_neverStrandsATask(Implementation implementation)
            throws Exception {
        RejectedExecutionHandler throwing = (task, pool) -> {
            throw new HandlerFailure();
        };
        for (int round = 0; round < 20; round++) {
            ScheduledExecutorService executor = executor(implementation, 1, daemonThreads(), throwing);
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger ran = new AtomicInteger();
            Thread producer = new Thread(() -> {
                try {
                    for (;;) {
                        executor.schedule(ran::incrementAndGet, 0L, NANOSECONDS);
                        accepted.incrementAndGet();
                    }
                } catch (HandlerFailure expected) {
                    // shut down: the handler's exception ends the loop
                }
            });
            producer.start();
            awaitCondition("some tasks accepted", () -> accepted.get() > 100);
            executor.shutdown();
            producer.join();
            awaitTermination(executor);
            int cancelledAtTheRecheck = accepted.get() - ran.get();
            assertThat(cancelledAtTheRecheck).as("accepted %d, ran %d", accepted.get(), ran.get())
                    .isBetween(0, 1);
        }
    }
}
