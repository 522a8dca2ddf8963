package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.LATE_SLACK_NANOS;
import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitInTask;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.get;
import static io.github.timingwheel.executor.ExecutorTesting.nanosSince;
import static io.github.timingwheel.executor.ExecutorTesting.observeFor;
import static io.github.timingwheel.executor.ExecutorTesting.shutDownAll;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract of {@link ScheduledExecutorService} as {@code ScheduledThreadPoolExecutor} defines
 * it, for every implementation: one subclass per implementation supplies the factories, and the
 * JDK's own executor runs the same tests as the control, so that each property is shown to hold
 * for the reference too. Behaviour only one implementation has belongs in its subclass.
 *
 * <p>Both implementations extend {@link ThreadPoolExecutor}; the tests use that class for the
 * queue, the statistics and the hooks. The policy setters are declared by neither interface
 * nor {@code ThreadPoolExecutor}, so they are hooks here.
 *
 * <p>Real-clock rules: a task must never start early (elapsed time measured with
 * {@link System#nanoTime()} from before the call that scheduled it), and it must start within a
 * generous bound ({@link ExecutorTesting#LATE_SLACK_NANOS}); order and counts are checked with
 * latches and futures, never with sleeps.
 */
abstract class ScheduledExecutorContractTest {

    // ---------------------------------------------------------------------------------------
    // What a subclass supplies.

    /** An executor with {@code workers} core threads, default thread factory and abort policy. */
    abstract ScheduledExecutorService newExecutor(int workers);

    /** The constructor that takes both a thread factory and a rejection handler. */
    abstract ScheduledExecutorService newExecutor(int workers, ThreadFactory threadFactory,
            RejectedExecutionHandler handler);

    /** A subclass of the executor whose protected hooks call {@code hooks}. */
    abstract ScheduledExecutorService newHookedExecutor(int workers, Hooks hooks);

    abstract void setRemoveOnCancelPolicy(ScheduledExecutorService executor, boolean value);

    abstract void setContinueExistingPeriodicTasksAfterShutdownPolicy(
            ScheduledExecutorService executor, boolean value);

    abstract void setExecuteExistingDelayedTasksAfterShutdownPolicy(
            ScheduledExecutorService executor, boolean value);

    /** The protected hooks of {@code ThreadPoolExecutor} and {@code ScheduledThreadPoolExecutor}. */
    interface Hooks {
        default void beforeExecute(Thread thread, Runnable task) {
        }

        default void afterExecute(Runnable task, Throwable failure) {
        }

        default void terminated() {
        }

        /** Called from both {@code decorateTask} overloads; {@code body} is the user's task. */
        default <V> RunnableScheduledFuture<V> decorateTask(Object body,
                RunnableScheduledFuture<V> task) {
            return task;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Fixture: every executor made here is shut down after the test.

    private final List<ScheduledExecutorService> executors = new CopyOnWriteArrayList<>();

    final ScheduledExecutorService executor(int workers) {
        return track(newExecutor(workers));
    }

    final ScheduledExecutorService executor(int workers, RejectedExecutionHandler handler) {
        return track(newExecutor(workers, Executors.defaultThreadFactory(), handler));
    }

    final ScheduledExecutorService hookedExecutor(int workers, Hooks hooks) {
        return track(newHookedExecutor(workers, hooks));
    }

    final ScheduledExecutorService track(ScheduledExecutorService executor) {
        assertThat(executor).isInstanceOf(ThreadPoolExecutor.class);
        executors.add(executor);
        return executor;
    }

    static ThreadPoolExecutor pool(ScheduledExecutorService executor) {
        return (ThreadPoolExecutor) executor;
    }

    @AfterEach
    void shutDownEveryExecutor() throws InterruptedException {
        shutDownAll(executors);
    }

    static final Runnable NOOP = () -> { };

    // ---------------------------------------------------------------------------------------
    // One-shot scheduling: never early, on time within a generous bound.

    @ParameterizedTest(name = "delay {0} ms")
    @ValueSource(longs = {1L, 7L, 70L, 300L})
    void scheduleRunnable_startsNoEarlierThanItsDelay(long delayMillis) throws Exception {
        ScheduledExecutorService executor = executor(2);
        AtomicLong startedAt = new AtomicLong();
        AtomicInteger runs = new AtomicInteger();

        long before = System.nanoTime();
        ScheduledFuture<?> future = executor.schedule(() -> {
            startedAt.set(System.nanoTime());
            runs.incrementAndGet();
        }, delayMillis, MILLISECONDS);

        assertThat(get(future)).isNull();
        long elapsed = startedAt.get() - before;
        assertThat(elapsed).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(delayMillis));
        assertThat(elapsed).isLessThan(MILLISECONDS.toNanos(delayMillis) + LATE_SLACK_NANOS);
        assertThat(runs).hasValue(1);
        assertThat(future.isDone()).isTrue();
        assertThat(future.isCancelled()).isFalse();
    }

    @Test
    void scheduleCallable_deliversItsResultThroughGet() throws Exception {
        ScheduledExecutorService executor = executor(1);
        long before = System.nanoTime();

        ScheduledFuture<Long> future = executor.schedule(() -> nanosSince(before), 30L, MILLISECONDS);

        long elapsedInTask = get(future);
        assertThat(elapsedInTask).isBetween(MILLISECONDS.toNanos(30L),
                MILLISECONDS.toNanos(30L) + LATE_SLACK_NANOS);
        assertThat(future.isDone()).isTrue();
    }

    /** Delays spread over several wheel levels and out of order; each start is checked on its own. */
    @Test
    void manyRandomDelays_eachTaskStartsNoEarlierThanItsOwnDelay() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        ScheduledExecutorService executor = executor(2);
        int tasks = 300;
        long[] delays = new long[tasks];
        long[] starts = new long[tasks];
        CountDownLatch done = new CountDownLatch(tasks);

        long before = System.nanoTime();
        for (int i = 0; i < tasks; i++) {
            int id = i;
            delays[i] = random.nextInt(4) == 0 ? 0L : (long) random.nextInt(250_000) * 1_000L;
            executor.schedule(() -> {
                starts[id] = System.nanoTime();
                done.countDown();
            }, delays[i], NANOSECONDS);
        }
        await(done); // the latch orders the writes to 'starts' before the reads below

        for (int i = 0; i < tasks; i++) {
            assertThat(starts[i] - before)
                    .as("task %d, delay %d ns, seed %d", i, delays[i], seed)
                    .isGreaterThanOrEqualTo(delays[i])
                    .isLessThan(delays[i] + LATE_SLACK_NANOS);
        }
    }

    @Test
    void execute_runsTheCommandWithZeroDelay() throws Exception {
        ScheduledExecutorService executor = executor(1);
        CountDownLatch ran = new CountDownLatch(1);

        executor.execute(ran::countDown);

        await(ran);
    }

    @Test
    void submit_inItsThreeForms_returnsZeroDelayFutures() throws Exception {
        ScheduledExecutorService executor = executor(1);
        AtomicInteger runs = new AtomicInteger();
        Runnable increment = runs::incrementAndGet; // typed, or submit would take it as a Callable

        Future<?> runnable = executor.submit(increment);
        Future<String> withResult = executor.submit(increment, "result");
        Future<Integer> callable = executor.submit(() -> 42);

        assertThat(get(runnable)).isNull();
        assertThat(get(withResult)).isEqualTo("result");
        assertThat(get(callable)).isEqualTo(42);
        assertThat(runs).hasValue(2);
        for (Future<?> future : List.of(runnable, withResult, callable)) {
            assertThat(future).isInstanceOf(ScheduledFuture.class);
            assertThat(((ScheduledFuture<?>) future).getDelay(NANOSECONDS)).isLessThanOrEqualTo(0L);
        }
    }

    @Test
    void invokeAll_untimed_completesEveryTaskInOrder() throws Exception {
        ScheduledExecutorService executor = executor(2);
        IllegalStateException failure = new IllegalStateException("third fails");
        List<Callable<Integer>> tasks = List.of(() -> 1, () -> 2, () -> {
            throw failure;
        });

        List<Future<Integer>> futures = executor.invokeAll(tasks);

        assertThat(futures).hasSize(3).allMatch(Future::isDone);
        assertThat(futures.get(0).get()).isEqualTo(1);
        assertThat(futures.get(1).get()).isEqualTo(2);
        assertThatThrownBy(() -> futures.get(2).get())
                .isInstanceOf(ExecutionException.class).hasCause(failure);
    }

    @Test
    void invokeAll_timed_cancelsWhatHasNotFinished() throws Exception {
        ScheduledExecutorService executor = executor(2);
        CountDownLatch never = new CountDownLatch(1);
        List<Callable<Integer>> tasks = List.of(() -> 1, () -> {
            never.await();
            return 2;
        });

        // The quick task must finish within the timeout; the other one never does.
        List<Future<Integer>> futures = executor.invokeAll(tasks, 500L, MILLISECONDS);

        assertThat(futures).hasSize(2).allMatch(Future::isDone);
        assertThat(futures.get(0).get()).isEqualTo(1);
        assertThat(futures.get(1).isCancelled()).isTrue();
    }

    @Test
    void invokeAny_untimed_returnsTheResultOfATaskThatSucceeded() throws Exception {
        ScheduledExecutorService executor = executor(2);
        List<Callable<String>> tasks = List.of(() -> {
            throw new IllegalStateException("fails");
        }, () -> "ok");

        assertThat(executor.invokeAny(tasks)).isEqualTo("ok");
    }

    @Test
    void invokeAny_whenEveryTaskFails_throwsExecutionException() {
        ScheduledExecutorService executor = executor(2);
        IllegalStateException failure = new IllegalStateException("fails");
        List<Callable<String>> tasks = List.of(() -> {
            throw failure;
        }, () -> {
            throw failure;
        });

        assertThatThrownBy(() -> executor.invokeAny(tasks))
                .isInstanceOf(ExecutionException.class).hasCause(failure);
    }

    @Test
    void invokeAny_timed_returnsAResultOrTimesOut() throws Exception {
        ScheduledExecutorService executor = executor(2);
        CountDownLatch never = new CountDownLatch(1);
        Callable<String> blocks = () -> {
            never.await();
            return "never";
        };

        assertThat(executor.invokeAny(List.of(blocks, () -> "ok"), TIMEOUT_SECONDS, SECONDS))
                .isEqualTo("ok");
        assertThatThrownBy(() -> executor.invokeAny(List.of(blocks), 50L, MILLISECONDS))
                .isInstanceOf(TimeoutException.class);
    }

    @Test
    void corePoolSizeZero_stillStartsAWorkerForDelayedTasks() throws Exception {
        ScheduledExecutorService executor = executor(0);
        long before = System.nanoTime();

        ScheduledFuture<Long> future = executor.schedule(() -> nanosSince(before), 50L, MILLISECONDS);

        assertThat(get(future)).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(50L));
    }

    // ---------------------------------------------------------------------------------------
    // Arguments.

    @Test
    void nullCommandUnitOrCallable_throwNullPointerException() {
        ScheduledExecutorService executor = executor(1);
        Runnable command = NOOP;
        Callable<Integer> callable = () -> 1;

        List<Runnable> calls = List.of(
                () -> executor.schedule((Runnable) null, 1L, SECONDS),
                () -> executor.schedule(command, 1L, null),
                () -> executor.schedule((Callable<Integer>) null, 1L, SECONDS),
                () -> executor.schedule(callable, 1L, null),
                () -> executor.scheduleAtFixedRate(null, 1L, 1L, SECONDS),
                () -> executor.scheduleAtFixedRate(command, 1L, 1L, null),
                () -> executor.scheduleWithFixedDelay(null, 1L, 1L, SECONDS),
                () -> executor.scheduleWithFixedDelay(command, 1L, 1L, null),
                () -> executor.execute(null),
                () -> executor.submit((Runnable) null),
                () -> executor.submit((Runnable) null, "result"),
                () -> executor.submit((Callable<Integer>) null));
        for (int i = 0; i < calls.size(); i++) {
            assertThatThrownBy(calls.get(i)::run).as("call %d", i)
                    .isInstanceOf(NullPointerException.class);
        }
        assertThat(pool(executor).getQueue()).isEmpty();
    }

    @Test
    void nonPositivePeriodOrDelayOfPeriodicTasks_throwIllegalArgumentException() {
        ScheduledExecutorService executor = executor(1);

        for (long bad : new long[] {0L, -1L, Long.MIN_VALUE}) {
            assertThatThrownBy(() -> executor.scheduleAtFixedRate(NOOP, 1L, bad, SECONDS))
                    .as("period %d", bad).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> executor.scheduleWithFixedDelay(NOOP, 1L, bad, SECONDS))
                    .as("delay %d", bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(pool(executor).getQueue()).isEmpty();
    }

    @Test
    void negativeDelay_meansNow() throws Exception {
        ScheduledExecutorService executor = executor(1);
        CountDownLatch periodicRan = new CountDownLatch(2);

        ScheduledFuture<?> runnable = executor.schedule(NOOP, -1L, SECONDS);
        ScheduledFuture<String> callable = executor.schedule(() -> "now", -5L, MINUTES);
        ScheduledFuture<?> fixedRate = executor.scheduleAtFixedRate(periodicRan::countDown, -1L, 1L, MINUTES);
        ScheduledFuture<?> fixedDelay = executor.scheduleWithFixedDelay(periodicRan::countDown, -1L, 1L, MINUTES);

        assertThat(runnable.getDelay(NANOSECONDS)).isLessThanOrEqualTo(0L);
        assertThat(get(runnable)).isNull();
        assertThat(get(callable)).isEqualTo("now");
        await(periodicRan);
        fixedRate.cancel(false);
        fixedDelay.cancel(false);
    }

    @ParameterizedTest
    @EnumSource(TimeUnit.class)
    void longMaxValueDelay_inEveryUnit_doesNotOverflow(TimeUnit unit) throws Exception {
        ScheduledExecutorService executor = executor(1);
        AtomicBoolean ran = new AtomicBoolean();
        Runnable body = () -> ran.set(true);

        List<ScheduledFuture<?>> futures = List.of(
                executor.schedule(body, Long.MAX_VALUE, unit),
                executor.schedule(() -> ran.getAndSet(true), Long.MAX_VALUE, unit),
                executor.scheduleAtFixedRate(body, Long.MAX_VALUE, Long.MAX_VALUE, unit),
                executor.scheduleWithFixedDelay(body, Long.MAX_VALUE, 1L, unit));
        ScheduledFuture<?> soon = executor.schedule(NOOP, 1L, SECONDS);
        // Once a later-scheduled, earlier task has run, an overflowed deadline would have run too.
        get(executor.schedule(NOOP, 0L, NANOSECONDS));

        assertThat(ran).isFalse();
        for (ScheduledFuture<?> future : futures) {
            assertThat(future.isDone()).isFalse();
            // Huge, not overflowed: the JDK clamps to about Long.MAX_VALUE / 2 (less a little
            // elapsed time since JDK 25), ours saturates at Long.MAX_VALUE.
            assertThat(future.getDelay(NANOSECONDS)).isGreaterThan(Long.MAX_VALUE / 4);
            assertThat(future.getDelay(unit)).isPositive();
            assertThat(soon.compareTo(future)).isNegative();
            assertThat(future.compareTo(soon)).isPositive();
        }
        for (ScheduledFuture<?> future : futures) {
            assertThat(future.cancel(false)).isTrue();
            assertThat(future.isCancelled()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(TimeUnit.class)
    void longMinValueDelay_inEveryUnit_meansNow(TimeUnit unit) throws Exception {
        ScheduledExecutorService executor = executor(1);
        CountDownLatch periodicRan = new CountDownLatch(2);

        ScheduledFuture<?> runnable = executor.schedule(NOOP, Long.MIN_VALUE, unit);
        ScheduledFuture<String> callable = executor.schedule(() -> "now", Long.MIN_VALUE, unit);
        ScheduledFuture<?> fixedRate = executor.scheduleAtFixedRate(periodicRan::countDown,
                Long.MIN_VALUE, 1L, TimeUnit.DAYS);
        ScheduledFuture<?> fixedDelay = executor.scheduleWithFixedDelay(periodicRan::countDown,
                Long.MIN_VALUE, 1L, TimeUnit.DAYS);

        assertThat(get(runnable)).isNull();
        assertThat(get(callable)).isEqualTo("now");
        assertThat(runnable.getDelay(unit)).isLessThanOrEqualTo(0L);
        await(periodicRan);
        assertThat(fixedRate.cancel(false)).isTrue();
        assertThat(fixedDelay.cancel(false)).isTrue();
    }

    @Test
    void fixedRate_withLongMaxValuePeriod_runsOnceAndWaitsWithoutOverflow() throws Exception {
        ScheduledExecutorService executor = executor(1);
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch first = new CountDownLatch(1);

        ScheduledFuture<?> future = executor.scheduleAtFixedRate(() -> {
            runs.incrementAndGet();
            first.countDown();
        }, 0L, Long.MAX_VALUE, NANOSECONDS);
        await(first);
        get(executor.schedule(NOOP, 20L, MILLISECONDS)); // a second run would be due before this

        assertThat(runs).hasValue(1);
        assertThat(future.getDelay(NANOSECONDS)).isGreaterThan(Long.MAX_VALUE / 2);
        assertThat(future.isDone()).isFalse();
    }

    // ---------------------------------------------------------------------------------------
    // Periodic tasks.

    /**
     * Records each run of a periodic task: when it started and ended, and its own deadline, read
     * inside the run as nanoTime + getDelay and bracketed by two nanoTime readings, so that
     * deadlines are compared exactly, whatever the load: deadline(i) - deadline(j) lies in
     * [low(i) - high(j), high(i) - low(j)].
     */
    static final class RunRecorder {
        final int runs;
        final long[] starts;
        final long[] ends;
        final long[] deadlineLow;
        final long[] deadlineHigh;
        private final IntConsumer work;
        private final AtomicInteger next = new AtomicInteger();
        private final CountDownLatch done;
        private final CountDownLatch published = new CountDownLatch(1);
        private volatile ScheduledFuture<?> self;

        RunRecorder(int runs, IntConsumer work) {
            this.runs = runs;
            this.work = work;
            this.starts = new long[runs];
            this.ends = new long[runs];
            this.deadlineLow = new long[runs];
            this.deadlineHigh = new long[runs];
            this.done = new CountDownLatch(runs);
        }

        Runnable body() {
            return () -> {
                long start = System.nanoTime();
                int i = next.getAndIncrement();
                if (i >= runs) {
                    return;
                }
                awaitInTask(published);
                long low = System.nanoTime();
                long delay = self.getDelay(NANOSECONDS);
                long high = System.nanoTime();
                work.accept(i);
                starts[i] = start;
                deadlineLow[i] = low + delay;
                deadlineHigh[i] = high + delay;
                ends[i] = System.nanoTime();
                done.countDown();
            };
        }

        /** Hands the task its own future, then waits for every run; the latch orders the arrays. */
        void awaitRuns(ScheduledFuture<?> future) throws InterruptedException {
            self = future;
            published.countDown();
            await(done);
            future.cancel(false);
        }

        /** Whether run i's deadline is exactly {@code nanos} after run j's. */
        boolean deadlineDistanceIs(int i, int j, long nanos) {
            return deadlineLow[i] - deadlineHigh[j] <= nanos && nanos <= deadlineHigh[i] - deadlineLow[j];
        }
    }

    /**
     * Run n is due at initialDelay + n * period: the real-clock lower bound is exact, and each
     * run's own deadline is exactly n periods after the first one's, so lateness never adds up.
     */
    @Test
    void fixedRate_runsAtInitialDelayPlusMultiplesOfPeriod_withoutDrift() throws Exception {
        ScheduledExecutorService executor = executor(2);
        long initialNanos = MILLISECONDS.toNanos(30L);
        long periodNanos = MILLISECONDS.toNanos(15L);
        RunRecorder recorder = new RunRecorder(20, run -> { });

        long before = System.nanoTime();
        recorder.awaitRuns(executor.scheduleAtFixedRate(recorder.body(), initialNanos, periodNanos,
                NANOSECONDS));

        for (int i = 0; i < recorder.runs; i++) {
            long due = initialNanos + i * periodNanos;
            assertThat(recorder.starts[i] - before).as("start of run %d", i)
                    .isGreaterThanOrEqualTo(due)
                    .isLessThan(due + LATE_SLACK_NANOS);
            assertThat(recorder.deadlineDistanceIs(i, 0, i * periodNanos))
                    .as("deadline of run %d is %d periods after run 0's", i, i).isTrue();
        }
    }

    /**
     * A run longer than the period is followed at once by the runs that fell due meanwhile: their
     * deadlines stay on the fixed-rate grid, so they were already past when the slow run ended
     * (fixed delay would put the next one a period after it).
     */
    @Test
    void fixedRate_afterASlowRun_catchesUpAtOnce() throws Exception {
        ScheduledExecutorService executor = executor(2);
        long initialMillis = 10L;
        long periodMillis = 50L;
        long slowMillis = 130L; // run 1 starts at >= 60 ms, ends at >= 190 ms: past runs 2 and 3
        RunRecorder recorder = new RunRecorder(5, run -> {
            if (run == 1) {
                observeFor(slowMillis, MILLISECONDS);
            }
        });

        long before = System.nanoTime();
        recorder.awaitRuns(executor.scheduleAtFixedRate(recorder.body(), initialMillis, periodMillis,
                MILLISECONDS));

        long periodNanos = MILLISECONDS.toNanos(periodMillis);
        for (int i = 0; i < recorder.runs; i++) {
            long due = MILLISECONDS.toNanos(initialMillis) + i * periodNanos;
            assertThat(recorder.starts[i] - before).as("start of run %d", i)
                    .isGreaterThanOrEqualTo(due)
                    .isLessThan(due + LATE_SLACK_NANOS);
            assertThat(recorder.deadlineDistanceIs(i, 0, i * periodNanos))
                    .as("deadline of run %d is on the fixed-rate grid", i).isTrue();
        }
        for (int i = 2; i <= 3; i++) {
            assertThat(recorder.deadlineHigh[i]).as("run %d was due before the slow run ended", i)
                    .isLessThan(recorder.ends[1]);
            assertThat(recorder.starts[i] - recorder.ends[i - 1]).as("gap before run %d", i)
                    .isLessThan(LATE_SLACK_NANOS);
        }
    }

    @Test
    void fixedDelay_eachRunStartsTheDelayAfterThePreviousEnded() throws Exception {
        ScheduledExecutorService executor = executor(2);
        long delayNanos = MILLISECONDS.toNanos(25L);
        int runs = 6;
        long[] starts = new long[runs];
        long[] ends = new long[runs];
        AtomicInteger run = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(runs);

        long before = System.nanoTime();
        ScheduledFuture<?> future = executor.scheduleWithFixedDelay(() -> {
            int i = run.getAndIncrement();
            if (i >= runs) {
                return;
            }
            starts[i] = System.nanoTime();
            observeFor(10L, MILLISECONDS); // a body that takes time, so rate and delay differ
            ends[i] = System.nanoTime();
            done.countDown();
        }, 10L, 25L, MILLISECONDS);
        await(done);
        future.cancel(false);

        assertThat(starts[0] - before).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(10L));
        for (int i = 1; i < runs; i++) {
            assertThat(starts[i] - ends[i - 1]).as("gap before run %d", i)
                    .isGreaterThanOrEqualTo(delayNanos)
                    .isLessThan(delayNanos + LATE_SLACK_NANOS);
        }
    }

    @ParameterizedTest(name = "fixedRate={0}")
    @ValueSource(booleans = {true, false})
    void runsOfOnePeriodicTask_neverOverlap_evenWithIdleWorkers(boolean fixedRate) throws Exception {
        ScheduledExecutorService executor = executor(4);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        int[] plainCounter = new int[1]; // no synchronisation: each run must happen-before the next
        int runs = 15;
        CountDownLatch done = new CountDownLatch(runs);
        Runnable body = () -> {
            int now = inside.incrementAndGet();
            maxInside.accumulateAndGet(now, Math::max);
            plainCounter[0]++;
            observeFor(3L, MILLISECONDS); // longer than the 1 ms period: the next run is always due
            inside.decrementAndGet();
            done.countDown();
        };

        ScheduledFuture<?> future = fixedRate
                ? executor.scheduleAtFixedRate(body, 0L, 1L, MILLISECONDS)
                : executor.scheduleWithFixedDelay(body, 0L, 1L, MILLISECONDS);
        await(done);
        future.cancel(false);
        executor.shutdown();
        awaitTermination(executor);

        assertThat(maxInside).hasValue(1);
        assertThat(plainCounter[0]).isGreaterThanOrEqualTo(runs);
    }

    @ParameterizedTest(name = "fixedRate={0}")
    @ValueSource(booleans = {true, false})
    void anExceptionEndsAPeriodicTask_andIsItsOutcome(boolean fixedRate) throws Exception {
        ScheduledExecutorService executor = executor(2);
        AtomicInteger runs = new AtomicInteger();
        IllegalStateException failure = new IllegalStateException("third run fails");
        Runnable body = () -> {
            if (runs.incrementAndGet() == 3) {
                throw failure;
            }
        };

        ScheduledFuture<?> future = fixedRate
                ? executor.scheduleAtFixedRate(body, 0L, 2L, MILLISECONDS)
                : executor.scheduleWithFixedDelay(body, 0L, 2L, MILLISECONDS);

        assertThatThrownBy(() -> get(future))
                .isInstanceOf(ExecutionException.class).hasCause(failure);
        assertThat(future.isDone()).isTrue();
        assertThat(future.isCancelled()).isFalse();
        assertThat(pool(executor).getQueue()).doesNotContain((Runnable) future);
        // Ten periods later it still has not run again.
        get(executor.schedule(NOOP, 20L, MILLISECONDS));
        assertThat(runs).hasValue(3);
    }

    @Test
    void getOnAPeriodicFuture_returnsOnlyByCancellation() throws Exception {
        ScheduledExecutorService executor = executor(2);
        CountDownLatch threeRuns = new CountDownLatch(3);
        ScheduledFuture<?> future = executor.scheduleAtFixedRate(threeRuns::countDown, 0L, 1L, MILLISECONDS);
        await(threeRuns);

        assertThatThrownBy(() -> future.get(20L, MILLISECONDS)).isInstanceOf(TimeoutException.class);

        AtomicReference<Throwable> outcome = new AtomicReference<>();
        CountDownLatch returned = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                future.get();
                outcome.set(new AssertionError("get returned normally"));
            } catch (Throwable t) {
                outcome.set(t);
            }
            returned.countDown();
        }, "periodic-get-waiter");
        waiter.start();
        assertThat(future.cancel(false)).isTrue();
        await(returned);

        assertThat(outcome.get()).isInstanceOf(CancellationException.class);
        assertThatThrownBy(future::get).isInstanceOf(CancellationException.class);
    }

    @Test
    void aPeriodicTaskThatCancelsItselfInARun_neverRunsAgain() throws Exception {
        ScheduledExecutorService executor = executor(2);
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch published = new CountDownLatch(1);
        AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();

        ScheduledFuture<?> future = executor.scheduleAtFixedRate(() -> {
            awaitInTask(published);
            if (runs.incrementAndGet() == 3) {
                self.get().cancel(false);
            }
        }, 0L, 1L, MILLISECONDS);
        self.set(future);
        published.countDown();

        assertThatThrownBy(() -> get(future)).isInstanceOf(CancellationException.class);
        get(executor.schedule(NOOP, 20L, MILLISECONDS)); // twenty periods later
        assertThat(runs).hasValue(3);
        assertThat(pool(executor).getQueue()).doesNotContain((Runnable) future);
    }

    @Test
    void tasksMayScheduleAndCancelFromInsideTheExecutor() throws Exception {
        ScheduledExecutorService executor = executor(1);
        ScheduledFuture<?> victim = executor.schedule(NOOP, 1L, MINUTES);
        CountDownLatch followUpRan = new CountDownLatch(1);
        long before = System.nanoTime();

        ScheduledFuture<Boolean> first = executor.schedule(() -> {
            executor.schedule(followUpRan::countDown, 10L, MILLISECONDS);
            return victim.cancel(false);
        }, 0L, MILLISECONDS);

        assertThat(get(first)).isTrue();
        await(followUpRan);
        assertThat(nanosSince(before)).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(10L));
        assertThat(victim.isCancelled()).isTrue();
    }

    // ---------------------------------------------------------------------------------------
    // ScheduledFuture.

    @Test
    void getDelay_isInTheAskedUnit_andDecreasesWithTime() throws Exception {
        ScheduledExecutorService executor = executor(1);
        long delayNanos = SECONDS.toNanos(10L);

        long before = System.nanoTime();
        ScheduledFuture<?> future = executor.schedule(NOOP, 10L, SECONDS);

        for (TimeUnit unit : TimeUnit.values()) {
            long delay = future.getDelay(unit);
            long elapsed = nanosSince(before);
            assertThat(delay).as(unit.name())
                    .isLessThanOrEqualTo(unit.convert(delayNanos, NANOSECONDS))
                    .isGreaterThanOrEqualTo(unit.convert(delayNanos - elapsed, NANOSECONDS));
        }
        long first = future.getDelay(NANOSECONDS);
        observeFor(2L, MILLISECONDS);
        long second = future.getDelay(NANOSECONDS);
        assertThat(second).isLessThanOrEqualTo(first - MILLISECONDS.toNanos(2L));
        assertThat(second).isPositive();
    }

    @Test
    void compareTo_isConsistentWithGetDelay() {
        ScheduledExecutorService executor = executor(1);
        ScheduledFuture<?> in5 = executor.schedule(NOOP, 5L, SECONDS);
        ScheduledFuture<?> in20 = executor.schedule(() -> 1, 20L, SECONDS);
        ScheduledFuture<?> in10 = executor.schedule(NOOP, 10L, SECONDS);
        ScheduledFuture<?> in15 = executor.scheduleAtFixedRate(NOOP, 15L, 1L, SECONDS);
        List<ScheduledFuture<?>> futures = List.of(in20, in5, in15, in10);

        List<ScheduledFuture<?>> sorted = new ArrayList<>(futures);
        sorted.sort(Delayed::compareTo);
        assertThat(sorted).containsExactly(in5, in10, in15, in20);
        for (ScheduledFuture<?> a : futures) {
            assertThat(a.compareTo(a)).isZero();
            for (ScheduledFuture<?> b : futures) {
                if (a != b) {
                    long delayOrder = Long.signum(a.getDelay(NANOSECONDS) - b.getDelay(NANOSECONDS));
                    assertThat(Integer.signum(a.compareTo(b))).isEqualTo((int) delayOrder)
                            .isEqualTo(-Integer.signum(b.compareTo(a)));
                }
            }
        }
    }

    /**
     * A future compares with a Delayed of another kind by their delays, as the JDK's does (a
     * DelayQueue or a sorted list may hold both). Mutant: every comparison by deadline and
     * sequence, which throws ClassCastException here.
     */
    @Test
    void compareTo_aDelayedOfAnotherKind_byDelay() {
        ScheduledExecutorService executor = executor(1);
        ScheduledFuture<?> in10 = executor.schedule(NOOP, 10L, SECONDS);

        assertThat(in10.compareTo(fixedDelay(5L, SECONDS))).isPositive();
        assertThat(in10.compareTo(fixedDelay(20L, SECONDS))).isNegative();
        assertThat(in10.compareTo(fixedDelay(-1L, SECONDS))).isPositive();
    }

    private static Delayed fixedDelay(long delay, TimeUnit unit) {
        return new Delayed() {
            @Override
            public long getDelay(TimeUnit asked) {
                return asked.convert(delay, unit);
            }

            @Override
            public int compareTo(Delayed other) {
                return Long.compare(getDelay(NANOSECONDS), other.getDelay(NANOSECONDS));
            }
        };
    }

    @Test
    void cancelTrue_interruptsTheRunningTask() throws Exception {
        ScheduledExecutorService executor = executor(1);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);

        Future<?> future = executor.submit(() -> {
            started.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        await(started);

        assertThat(future.cancel(true)).isTrue();
        await(interrupted);
        assertThat(future.isCancelled()).isTrue();
        assertThat(future.isDone()).isTrue();
        assertThatThrownBy(future::get).isInstanceOf(CancellationException.class);
        // The worker survives the interrupt and runs the next task.
        assertThat(get(executor.submit(() -> "next"))).isEqualTo("next");
    }

    @Test
    void cancelFalse_letsTheRunningTaskFinishWithoutInterrupt() throws Exception {
        ScheduledExecutorService executor = executor(1);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(1);
        AtomicBoolean sawInterrupt = new AtomicBoolean();

        Future<?> future = executor.submit(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                sawInterrupt.set(true);
            }
            sawInterrupt.compareAndSet(false, Thread.currentThread().isInterrupted());
            finished.countDown();
        });
        await(started);

        assertThat(future.cancel(false)).isTrue();
        assertThat(future.isCancelled()).isTrue();
        assertThat(future.isDone()).isTrue();
        release.countDown();
        await(finished);
        assertThat(sawInterrupt).isFalse();
        assertThatThrownBy(future::get).isInstanceOf(CancellationException.class);
    }

    @Test
    void isDoneAndIsCancelled_areThoseOfFutureTask() throws Exception {
        ScheduledExecutorService executor = executor(1);
        ScheduledFuture<?> pending = executor.schedule(NOOP, 1L, MINUTES);
        ScheduledFuture<String> normal = executor.schedule(() -> "done", 0L, SECONDS);
        ScheduledFuture<?> failed = executor.schedule(() -> {
            throw new IllegalStateException();
        }, 0L, SECONDS);
        ScheduledFuture<?> cancelled = executor.schedule(NOOP, 1L, MINUTES);
        cancelled.cancel(false);
        get(normal);
        assertThatThrownBy(() -> get(failed)).isInstanceOf(ExecutionException.class);

        assertThat(pending.isDone()).isFalse();
        assertThat(pending.isCancelled()).isFalse();
        assertThatThrownBy(() -> pending.get(1L, MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(normal.isDone()).isTrue();
        assertThat(normal.isCancelled()).isFalse();
        assertThat(failed.isDone()).isTrue();
        assertThat(failed.isCancelled()).isFalse();
        assertThat(cancelled.isDone()).isTrue();
        assertThat(cancelled.isCancelled()).isTrue();
        assertThatThrownBy(() -> cancelled.get(1L, MILLISECONDS))
                .isInstanceOf(CancellationException.class);
    }

    @Test
    void cancel_succeedsOnce_andNeverOnceDone() throws Exception {
        ScheduledExecutorService executor = executor(1);
        ScheduledFuture<?> pending = executor.schedule(NOOP, 1L, MINUTES);
        ScheduledFuture<String> completed = executor.schedule(() -> "done", 0L, SECONDS);
        get(completed);

        assertThat(pending.cancel(false)).isTrue();
        assertThat(pending.cancel(false)).isFalse();
        assertThat(pending.cancel(true)).isFalse();
        assertThat(pending.isCancelled()).isTrue();
        assertThat(completed.cancel(true)).isFalse();
        assertThat(completed.cancel(false)).isFalse();
        assertThat(completed.isCancelled()).isFalse();
        assertThat(get(completed)).isEqualTo("done");
    }

    // ---------------------------------------------------------------------------------------
    // The queue: removal on cancel, remove, purge.

    /**
     * Another executor's task is not in this one's queue: contains and remove say no, and the
     * task stays in its own executor's queue, from which remove takes it. Mutant: every task of
     * ours taken as this queue's own (contains said yes, and remove unlinked it from the other
     * executor's wheel without that wheel's lock).
     */
    @Test
    void anotherExecutorsTask_isNotInThisQueue() {
        ScheduledExecutorService mine = executor(1);
        ScheduledExecutorService theirs = executor(1);
        ScheduledFuture<?> theirTask = theirs.schedule(NOOP, 1L, MINUTES);

        assertThat(pool(mine).getQueue().contains(theirTask)).isFalse();
        assertThat(pool(mine).remove((Runnable) theirTask)).isFalse();
        assertThat(pool(mine).getQueue().remove(theirTask)).isFalse();

        assertThat(pool(theirs).getQueue().contains(theirTask)).isTrue();
        assertThat(pool(theirs).remove((Runnable) theirTask)).as("still in its own queue, whole").isTrue();
        assertThat(pool(theirs).getQueue()).isEmpty();
    }

    @Test
    void removeOnCancelPolicy_true_takesACancelledTaskOutOfTheQueue() {
        ScheduledExecutorService executor = executor(1);
        setRemoveOnCancelPolicy(executor, true);
        ScheduledFuture<?> a = executor.schedule(NOOP, 1L, MINUTES);
        ScheduledFuture<?> b = executor.scheduleAtFixedRate(NOOP, 1L, 1L, MINUTES);
        ScheduledFuture<?> c = executor.schedule(() -> 1, 1L, MINUTES);
        assertThat(pool(executor).getQueue()).hasSize(3);

        assertThat(a.cancel(false)).isTrue();
        assertThat(b.cancel(true)).isTrue();

        assertThat(pool(executor).getQueue()).hasSize(1).containsExactly((Runnable) c)
                .doesNotContain((Runnable) a, (Runnable) b);
    }

    @Test
    void removeOnCancelPolicy_false_keepsCancelledTasksUntilPurge() {
        ScheduledExecutorService executor = executor(1);
        setRemoveOnCancelPolicy(executor, false);
        List<ScheduledFuture<?>> futures = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            futures.add(executor.schedule(NOOP, 1L + i, MINUTES));
        }
        futures.get(1).cancel(false);
        futures.get(3).cancel(true);
        assertThat(pool(executor).getQueue()).hasSize(5);

        pool(executor).purge();

        assertThat(pool(executor).getQueue()).hasSize(3)
                .containsExactlyInAnyOrder((Runnable) futures.get(0), (Runnable) futures.get(2),
                        (Runnable) futures.get(4));
    }

    @Test
    void getQueue_showsThePendingTasks_andRemoveTakesOneOutWithoutCancelling() {
        ScheduledExecutorService executor = executor(1);
        ScheduledFuture<?> a = executor.schedule(NOOP, 1L, MINUTES);
        ScheduledFuture<?> b = executor.schedule(() -> 1, 2L, MINUTES);
        ScheduledFuture<?> c = executor.scheduleWithFixedDelay(NOOP, 3L, 1L, MINUTES);
        ThreadPoolExecutor pool = pool(executor);

        assertThat(pool.getQueue()).containsExactlyInAnyOrder((Runnable) a, (Runnable) b, (Runnable) c);
        assertThat(pool.getQueue().toArray()).containsExactlyInAnyOrder(a, b, c);

        assertThat(pool.remove((Runnable) b)).isTrue();
        assertThat(pool.remove((Runnable) b)).isFalse();
        assertThat(pool.remove(NOOP)).isFalse();

        assertThat(pool.getQueue()).containsExactlyInAnyOrder((Runnable) a, (Runnable) c);
        assertThat(b.isDone()).isFalse(); // removal is not cancellation
    }

    /** As in the JDK, the queue's drainTo and poll hand out only tasks that are due. */
    @Test
    void getQueue_drainToAndPoll_handOutOnlyTasksThatAreDue() throws Exception {
        ScheduledExecutorService executor = executor(1);
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        executor.execute(() -> {
            busy.countDown();
            awaitInTask(release);
        });
        await(busy); // the only worker is busy: due tasks wait in the queue
        ScheduledFuture<?> later = executor.schedule(NOOP, 1L, MINUTES);
        ScheduledFuture<?> dueFirst = executor.schedule(NOOP, -1L, SECONDS);
        ScheduledFuture<?> dueSecond = executor.schedule(NOOP, 0L, SECONDS);
        BlockingQueue<Runnable> queue = pool(executor).getQueue();
        List<Runnable> drained = new ArrayList<>();

        try {
            assertThat(queue.drainTo(drained)).isEqualTo(2);
            assertThat(drained).containsExactly((Runnable) dueFirst, (Runnable) dueSecond);
            assertThat(queue.poll()).isNull();
            assertThat(queue).containsExactly((Runnable) later);
        } finally {
            release.countDown();
        }
        assertThat(dueFirst.isDone()).isFalse(); // drained, never run
    }

    // ---------------------------------------------------------------------------------------
    // Shutdown and its policies.

    @Test
    void shutdown_letsDelayedTasksRun_andTerminatesWhenTheLastIsDone() throws Exception {
        AtomicLong terminatedAt = new AtomicLong();
        ScheduledExecutorService executor = hookedExecutor(2, new Hooks() {
            @Override
            public void terminated() {
                terminatedAt.set(System.nanoTime());
            }
        });
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong endedAt = new AtomicLong();
        ScheduledFuture<?> delayed = executor.schedule(() -> {
            started.countDown();
            awaitInTask(release);
            endedAt.set(System.nanoTime());
        }, 50L, MILLISECONDS);

        executor.shutdown();
        assertThat(executor.isShutdown()).isTrue();
        await(started); // a delayed task still runs after shutdown

        assertThat(executor.isTerminated()).isFalse();
        assertThat(executor.awaitTermination(20L, MILLISECONDS)).isFalse();
        release.countDown();
        awaitTermination(executor);

        assertThat(executor.isTerminated()).isTrue();
        assertThat(delayed.isDone()).isTrue();
        assertThat(delayed.isCancelled()).isFalse();
        assertThat(terminatedAt.get() - endedAt.get()).as("terminated after the task ended")
                .isGreaterThanOrEqualTo(0L);
    }

    @Test
    void shutdown_ofAnIdleExecutor_terminates() throws Exception {
        ScheduledExecutorService executor = executor(2);
        get(executor.submit(NOOP)); // start a worker

        executor.shutdown();

        awaitTermination(executor);
        assertThat(executor.isShutdown()).isTrue();
        assertThat(executor.isTerminated()).isTrue();
    }

    @Test
    void shutdown_stopsPeriodicTasksByDefault() throws Exception {
        ScheduledExecutorService executor = executor(2);
        CountDownLatch twoRuns = new CountDownLatch(2);
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> periodic = executor.scheduleAtFixedRate(() -> {
            runs.incrementAndGet();
            twoRuns.countDown();
        }, 0L, 5L, MILLISECONDS);
        ScheduledFuture<?> delayedPeriodic = executor.scheduleWithFixedDelay(NOOP, 1L, 1L, MINUTES);
        await(twoRuns);

        executor.shutdown();
        awaitTermination(executor);

        assertThat(periodic.isCancelled()).isTrue();
        assertThat(delayedPeriodic.isCancelled()).isTrue();
        assertThat(pool(executor).getQueue()).isEmpty();
    }

    @Test
    void continueExistingPeriodicTasksAfterShutdown_keepsThemRunningUntilCancelled() throws Exception {
        ScheduledExecutorService executor = executor(2);
        setContinueExistingPeriodicTasksAfterShutdownPolicy(executor, true);
        AtomicBoolean shutDown = new AtomicBoolean();
        CountDownLatch runsAfterShutdown = new CountDownLatch(3);
        ScheduledFuture<?> periodic = executor.scheduleAtFixedRate(() -> {
            if (shutDown.get()) {
                runsAfterShutdown.countDown();
            }
        }, 0L, 5L, MILLISECONDS);

        executor.shutdown();
        shutDown.set(true);
        await(runsAfterShutdown);

        assertThat(executor.isTerminated()).isFalse();
        assertThat(periodic.isDone()).isFalse();
        assertThatThrownBy(() -> executor.schedule(NOOP, 0L, SECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        assertThat(periodic.cancel(false)).isTrue();
        awaitTermination(executor);
    }

    @Test
    void executeExistingDelayedTasksAfterShutdown_false_cancelsThemAtShutdown() throws Exception {
        ScheduledExecutorService executor = executor(2);
        setExecuteExistingDelayedTasksAfterShutdownPolicy(executor, false);
        AtomicBoolean ran = new AtomicBoolean();
        ScheduledFuture<?> runnable = executor.schedule(() -> ran.set(true), 1L, MINUTES);
        ScheduledFuture<Integer> callable = executor.schedule(() -> 1, 1L, MINUTES);

        long before = System.nanoTime();
        executor.shutdown();

        assertThat(runnable.isCancelled()).isTrue();
        assertThat(callable.isCancelled()).isTrue();
        awaitTermination(executor);
        assertThat(nanosSince(before)).isLessThan(LATE_SLACK_NANOS);
        assertThat(ran).isFalse();
    }

    /**
     * A shutdown that comes after a worker has taken a periodic task but before its run starts
     * (here, from beforeExecute) cancels that run: the task was no longer in the queue for the
     * shutdown to cancel, so the run itself checks the executor's state and policies, as the
     * JDK's task does. Mutant: a run that skips the check (the body runs once after shutdown).
     */
    @Test
    void aShutdownBetweenTakingAPeriodicTaskAndItsRun_cancelsTheRun() throws Exception {
        AtomicInteger runs = new AtomicInteger();

        ScheduledFuture<?> periodic = stoppedBeforeItsRun(ScheduledExecutorService::shutdown,
                executor -> executor.scheduleAtFixedRate(runs::incrementAndGet, 0L, 1L, MILLISECONDS));

        assertThat(runs).as("runs of the periodic body").hasValue(0);
        assertThat(periodic.isCancelled()).isTrue();
    }

    /**
     * A shutdownNow that comes after a worker has taken a due one-shot task but before its run
     * cancels the run: after shutdownNow nothing more runs. (After a plain shutdown, a one-shot
     * task that is due still runs, for both executors.) Mutant: a run that skips the check.
     */
    @Test
    void aShutdownNowBetweenTakingATaskAndItsRun_cancelsTheRun() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();

        ScheduledFuture<?> task = stoppedBeforeItsRun(ScheduledExecutorService::shutdownNow,
                executor -> executor.schedule(() -> ran.set(true), 0L, MILLISECONDS));

        assertThat(ran).as("the body ran").isFalse();
        assertThat(task.isCancelled()).isTrue();
    }

    /**
     * Schedules a task with {@code schedule} on a one-worker executor whose beforeExecute calls
     * {@code stop} on the executor just before that task's run; returns the task once the
     * executor has terminated.
     */
    private ScheduledFuture<?> stoppedBeforeItsRun(Consumer<ScheduledExecutorService> stop,
            Function<ScheduledExecutorService, ScheduledFuture<?>> schedule) throws Exception {
        AtomicReference<ScheduledExecutorService> self = new AtomicReference<>();
        AtomicReference<Runnable> stopBefore = new AtomicReference<>();
        ScheduledExecutorService executor = hookedExecutor(1, new Hooks() {
            @Override
            public void beforeExecute(Thread thread, Runnable task) {
                if (task == stopBefore.get()) {
                    stop.accept(self.get());
                }
            }
        });
        self.set(executor);
        CountDownLatch taken = new CountDownLatch(1);
        executor.submit(() -> { // holds the only worker until the task is known
            await(taken);
            return null;
        });
        ScheduledFuture<?> task = schedule.apply(executor);
        stopBefore.set((Runnable) task);
        taken.countDown();
        awaitTermination(executor);
        return task;
    }

    /**
     * The periodic policy turned off once shutdown has begun cancels the periodic tasks at once,
     * as the delayed policy does for delayed ones. Mutant: the setter that does not look at
     * the shutdown (the task stayed until cancelled by hand).
     */
    @Test
    void droppingPeriodicTasksAfterShutdownHasBegun_cancelsThemAtOnce() throws Exception {
        ScheduledExecutorService executor = executor(1);
        setContinueExistingPeriodicTasksAfterShutdownPolicy(executor, true);
        ScheduledFuture<?> periodic = executor.scheduleAtFixedRate(NOOP, 1L, 1L, MINUTES);
        executor.shutdown();
        assertThat(periodic.isCancelled()).isFalse();

        setContinueExistingPeriodicTasksAfterShutdownPolicy(executor, false);

        assertThat(periodic.isCancelled()).isTrue();
        awaitTermination(executor);
    }

    @Test
    void droppingDelayedTasksAfterShutdownHasBegun_cancelsThemAtOnce() throws Exception {
        ScheduledExecutorService executor = executor(1);
        ScheduledFuture<?> delayed = executor.schedule(NOOP, 1L, MINUTES);
        executor.shutdown();
        assertThat(executor.isTerminated()).isFalse();

        setExecuteExistingDelayedTasksAfterShutdownPolicy(executor, false);

        assertThat(delayed.isCancelled()).isTrue();
        awaitTermination(executor);
    }

    @Test
    void shutdownNow_returnsEveryTaskThatNeverStarted_andInterruptsTheRunningOne() throws Exception {
        ScheduledExecutorService executor = executor(1);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger pendingRuns = new AtomicInteger();
        Runnable counted = pendingRuns::incrementAndGet;
        executor.submit(() -> {
            started.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        await(started);
        List<Future<?>> futures = List.of(
                executor.schedule(counted, 1L, MINUTES),
                executor.schedule(() -> pendingRuns.incrementAndGet(), 1L, MINUTES),
                executor.scheduleAtFixedRate(counted, 1L, 1L, MINUTES),
                executor.scheduleWithFixedDelay(counted, 1L, 1L, MINUTES),
                executor.submit(counted), // zero delay, behind the busy worker
                executor.submit(counted, "result"),
                executor.submit(() -> pendingRuns.incrementAndGet()));
        executor.execute(counted);

        List<Runnable> neverStarted = executor.shutdownNow();

        assertThat(executor.isShutdown()).isTrue();
        await(interrupted);
        awaitTermination(executor);
        assertThat(neverStarted).hasSize(futures.size() + 1);
        Set<Object> returned = Collections.newSetFromMap(new IdentityHashMap<>());
        returned.addAll(neverStarted);
        assertThat(returned).hasSize(neverStarted.size()).containsAll(futures);
        for (Runnable task : neverStarted) {
            assertThat(task).isInstanceOf(Future.class); // execute's command comes back as its future
            assertThat(((Future<?>) task).isDone()).isFalse();
        }
        assertThat(pendingRuns).hasValue(0);
        assertThat(pool(executor).getQueue()).isEmpty();
    }

    @Test
    void afterShutdown_everySubmissionIsRejected_withTheDefaultAbortPolicy() {
        ScheduledExecutorService executor = executor(1);
        executor.shutdown();
        Callable<Integer> callable = () -> 1;

        List<Runnable> calls = List.of(
                () -> executor.schedule(NOOP, 0L, SECONDS),
                () -> executor.schedule(callable, 1L, SECONDS),
                () -> executor.scheduleAtFixedRate(NOOP, 0L, 1L, SECONDS),
                () -> executor.scheduleWithFixedDelay(NOOP, 0L, 1L, SECONDS),
                () -> executor.execute(NOOP),
                () -> executor.submit(NOOP),
                () -> executor.submit(NOOP, "result"),
                () -> executor.submit(callable),
                () -> {
                    try {
                        executor.invokeAll(List.of(callable));
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                });
        for (int i = 0; i < calls.size(); i++) {
            assertThatThrownBy(calls.get(i)::run).as("call %d", i)
                    .isInstanceOf(RejectedExecutionException.class);
        }
    }

    static Stream<Arguments> handlersThatDoNotThrow() {
        return Stream.of(
                Arguments.of(new ThreadPoolExecutor.DiscardPolicy()),
                Arguments.of(new ThreadPoolExecutor.CallerRunsPolicy()),
                Arguments.of(new ThreadPoolExecutor.DiscardOldestPolicy()));
    }

    /** After shutdown the JDK's other three policies all drop the task: it never runs, not even in the caller. */
    @ParameterizedTest
    @MethodSource("handlersThatDoNotThrow")
    void afterShutdown_theOtherPolicies_discardTheTask(RejectedExecutionHandler handler)
            throws Exception {
        ScheduledExecutorService executor = executor(1, handler);
        executor.shutdown();
        AtomicInteger runs = new AtomicInteger();

        ScheduledFuture<?> scheduled = executor.schedule(runs::incrementAndGet, 0L, SECONDS);
        Future<Integer> submitted = executor.submit(runs::incrementAndGet);
        executor.execute(runs::incrementAndGet);
        ScheduledFuture<?> periodic = executor.scheduleAtFixedRate(runs::incrementAndGet, 0L, 1L, SECONDS);
        awaitTermination(executor);

        assertThat(runs).hasValue(0);
        for (Future<?> future : List.of(scheduled, submitted, periodic)) {
            assertThat(future).isNotNull();
            assertThat(future.isDone()).isFalse();
        }
    }

    @Test
    void theRejectionHandler_receivesTheTaskThatScheduleReturns() {
        List<Runnable> rejected = new CopyOnWriteArrayList<>();
        AtomicReference<ThreadPoolExecutor> rejectingExecutor = new AtomicReference<>();
        ScheduledExecutorService executor = executor(1, (task, pool) -> {
            rejected.add(task);
            rejectingExecutor.set(pool);
        });
        executor.shutdown();

        ScheduledFuture<?> a = executor.schedule(NOOP, 1L, SECONDS);
        ScheduledFuture<?> b = executor.scheduleWithFixedDelay(NOOP, 1L, 1L, SECONDS);
        Future<Integer> c = executor.submit(() -> 1);

        assertThat(rejected).containsExactly((Runnable) a, (Runnable) b, (Runnable) c);
        assertThat(rejectingExecutor.get()).isSameAs(executor);
    }

    // ---------------------------------------------------------------------------------------
    // Failures do not kill workers.

    static Stream<Arguments> failures() {
        return Stream.of(
                Arguments.of(new IllegalStateException("a runtime exception")),
                Arguments.of(new TaskError("an error")));
    }

    /** An Error a task throws on purpose. */
    static final class TaskError extends Error {
        private static final long serialVersionUID = 1L;

        TaskError(String message) {
            super(message);
        }
    }

    @ParameterizedTest
    @MethodSource("failures")
    void aTaskThatThrows_neverKillsItsWorker_andTheFailureIsItsOutcome(Throwable failure)
            throws Exception {
        ScheduledExecutorService executor = executor(1);
        Thread worker = get(executor.submit(Thread::currentThread));

        Future<?> fails = executor.submit(() -> {
            if (failure instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) failure;
        });
        ScheduledFuture<?> failsPeriodic = executor.scheduleAtFixedRate(() -> {
            if (failure instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) failure;
        }, 0L, 1L, MILLISECONDS);

        assertThatThrownBy(() -> get(fails)).isInstanceOf(ExecutionException.class).hasCause(failure);
        assertThatThrownBy(() -> get(failsPeriodic)).isInstanceOf(ExecutionException.class)
                .hasCause(failure);
        assertThat(fails.isDone()).isTrue();
        assertThat(get(executor.submit(Thread::currentThread))).isSameAs(worker);
        assertThat(pool(executor).getPoolSize()).isEqualTo(1);
    }

    // ---------------------------------------------------------------------------------------
    // Idle workers that time out (allowCoreThreadTimeOut): the queue's timed poll. Not tested:
    // a task due while the other workers are busy, after the idle one's keep-alive. The JDK's
    // executor leaves it until a busy worker is free (the idle worker's poll times out before
    // the task is due, and it exits since it is not the last), and ours does the same.

    /** An executor of {@code workers} whose idle workers exit after 20 ms. */
    private ThreadPoolExecutor timingOutExecutor(int workers) {
        ThreadPoolExecutor executor = (ThreadPoolExecutor) executor(workers);
        executor.setKeepAliveTime(20L, MILLISECONDS);
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    @Test
    void withCoreThreadTimeOut_idleWorkersExit_andALaterTaskStillRunsOnTime() throws Exception {
        ThreadPoolExecutor executor = timingOutExecutor(2);
        executor.prestartAllCoreThreads();
        awaitCondition("every idle worker has exited", () -> executor.getPoolSize() == 0);

        for (int round = 0; round < 3; round++) {
            long before = System.nanoTime();
            // Due after several keep-alives: the worker started for it times out of its poll
            // first, and stays because the queue is not empty.
            ScheduledFuture<Long> task = ((ScheduledExecutorService) executor).schedule(System::nanoTime, 100L, MILLISECONDS);

            long startedAt = get(task);

            assertThat(startedAt - before).as("round %d", round)
                    .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(100L))
                    .isLessThan(MILLISECONDS.toNanos(100L) + LATE_SLACK_NANOS);
            awaitCondition("every worker has exited again", () -> executor.getPoolSize() == 0);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Hooks, decoration and statistics.

    @Test
    void beforeAndAfterExecute_bracketEachTask_andTerminatedIsCalledOnce() throws Exception {
        Queue<Object[]> before = new ConcurrentLinkedQueue<>();
        Queue<Object[]> after = new ConcurrentLinkedQueue<>();
        AtomicInteger terminated = new AtomicInteger();
        ScheduledExecutorService executor = hookedExecutor(1, new Hooks() {
            @Override
            public void beforeExecute(Thread thread, Runnable task) {
                before.add(new Object[] {thread, task});
            }

            @Override
            public void afterExecute(Runnable task, Throwable failure) {
                after.add(new Object[] {task, failure});
            }

            @Override
            public void terminated() {
                terminated.incrementAndGet();
            }
        });
        AtomicReference<Thread> bodyThread = new AtomicReference<>();

        Future<?> ok = executor.submit(() -> bodyThread.set(Thread.currentThread()));
        get(ok);
        Future<?> fails = executor.schedule(() -> {
            throw new IllegalStateException("recorded in the future, not passed to afterExecute");
        }, 1L, MILLISECONDS);
        assertThatThrownBy(() -> get(fails)).isInstanceOf(ExecutionException.class);
        executor.shutdown();
        awaitTermination(executor);

        assertThat(before).hasSize(2);
        assertThat(after).hasSize(2);
        Object[][] befores = before.toArray(new Object[0][]);
        Object[][] afters = after.toArray(new Object[0][]);
        assertThat(befores[0]).containsExactly(bodyThread.get(), ok);
        assertThat(befores[1]).containsExactly(bodyThread.get(), fails);
        // As in the JDK, the future catches the task's exception: afterExecute sees none.
        assertThat(afters[0]).containsExactly(ok, null);
        assertThat(afters[1]).containsExactly(fails, null);
        assertThat(terminated).hasValue(1);
    }

    /** Wraps a task and delegates everything to it, as decorateTask's javadoc expects. */
    static class DecoratedTask<V> implements RunnableScheduledFuture<V> {
        final Object body;
        final RunnableScheduledFuture<V> task;

        DecoratedTask(Object body, RunnableScheduledFuture<V> task) {
            this.body = body;
            this.task = task;
        }

        @Override
        public void run() {
            task.run();
        }

        @Override
        public boolean isPeriodic() {
            return task.isPeriodic();
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return task.getDelay(unit);
        }

        @Override
        public int compareTo(Delayed other) {
            return task.compareTo(other instanceof DecoratedTask<?> d ? d.task : other);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return task.cancel(mayInterruptIfRunning);
        }

        @Override
        public boolean isCancelled() {
            return task.isCancelled();
        }

        @Override
        public boolean isDone() {
            return task.isDone();
        }

        @Override
        public V get() throws InterruptedException, ExecutionException {
            return task.get();
        }

        @Override
        public V get(long timeout, TimeUnit unit)
                throws InterruptedException, ExecutionException, TimeoutException {
            return task.get(timeout, unit);
        }
    }

    @Test
    void decorateTask_wrapsWhatScheduleReturns_whatTheQueueHolds_andWhatHooksSee() throws Exception {
        Queue<Runnable> executed = new ConcurrentLinkedQueue<>();
        ScheduledExecutorService executor = hookedExecutor(2, new Hooks() {
            @Override
            public void afterExecute(Runnable task, Throwable failure) {
                executed.add(task);
            }

            @Override
            public <V> RunnableScheduledFuture<V> decorateTask(Object body,
                    RunnableScheduledFuture<V> task) {
                return new DecoratedTask<>(body, task);
            }
        });
        Runnable runnable = NOOP;
        Callable<String> callable = () -> "called";
        CountDownLatch threeRuns = new CountDownLatch(3);
        Runnable periodicBody = threeRuns::countDown;

        ScheduledFuture<?> oneShot = executor.schedule(runnable, 1L, MILLISECONDS);
        ScheduledFuture<String> withResult = executor.schedule(callable, 1L, MILLISECONDS);
        ScheduledFuture<?> periodic = executor.scheduleAtFixedRate(periodicBody, 0L, 1L, MILLISECONDS);
        ScheduledFuture<?> later = executor.schedule(NOOP, 1L, MINUTES);

        assertThat(List.of(oneShot, withResult, periodic, later)).allMatch(DecoratedTask.class::isInstance);
        assertThat(((DecoratedTask<?>) oneShot).body).isSameAs(runnable);
        assertThat(((DecoratedTask<?>) withResult).body).isSameAs(callable);
        assertThat(((DecoratedTask<?>) periodic).body).isSameAs(periodicBody);
        assertThat(get(withResult)).isEqualTo("called");
        assertThat(get(oneShot)).isNull();
        await(threeRuns);
        assertThat(periodic.cancel(false)).isTrue();
        assertThat(pool(executor).getQueue()).contains((Runnable) later);
        assertThat(pool(executor).remove((Runnable) later)).isTrue();
        executor.shutdown();
        awaitTermination(executor);

        assertThat(executed).contains((Runnable) oneShot, (Runnable) withResult);
        assertThat(executed.stream().filter(task -> task == periodic).count()).isGreaterThanOrEqualTo(3L);
        assertThat(executed).allMatch(DecoratedTask.class::isInstance);
    }

    @Test
    void taskCounts_countCompletedAndPendingTasks() throws Exception {
        ScheduledExecutorService executor = executor(2);
        ThreadPoolExecutor pool = pool(executor);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            done.add(executor.submit(NOOP));
        }
        for (Future<?> future : done) {
            get(future);
        }
        executor.schedule(NOOP, 1L, MINUTES);
        executor.schedule(NOOP, 2L, MINUTES);

        // Approximate while running (a finishing worker may count twice), exact once terminated.
        assertThat(pool.getTaskCount()).isGreaterThanOrEqualTo(7L);
        assertThat(pool.getCompletedTaskCount()).isLessThanOrEqualTo(5L);
        setExecuteExistingDelayedTasksAfterShutdownPolicy(executor, false);
        executor.shutdown();
        awaitTermination(executor);

        assertThat(pool.getCompletedTaskCount()).isEqualTo(5L);
        assertThat(pool.getTaskCount()).isEqualTo(5L);
        assertThat(pool.getPoolSize()).isZero();
    }
}
