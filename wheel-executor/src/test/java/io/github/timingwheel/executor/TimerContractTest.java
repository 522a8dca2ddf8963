package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.LATE_SLACK_NANOS;
import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract of Netty's {@link Timer} as {@code HashedWheelTimer} defines it, through the
 * interface only: one subclass per implementation supplies the factory and a few hooks, and
 * Netty's own {@code HashedWheelTimer} runs the same tests as the control, so that each
 * property is shown to hold for the reference too. Behaviour only one implementation has
 * belongs in its subclass.
 *
 * <p>Real-clock rules: a timeout must never fire early (elapsed time measured with
 * {@link System#nanoTime()} from before the {@code newTimeout} call), and must fire within
 * {@link #lateByDesignNanos()} (a tick, for a ticking timer) plus the generous
 * {@link ExecutorTesting#LATE_SLACK_NANOS}. Everything else is awaited with latches or bounded
 * polls, never with sleeps.
 *
 * <p>{@link TimerTask#cancelled(Timeout)} runs on a thread the contract does not name (ours:
 * the cancelling thread; {@code HashedWheelTimer}: its worker, at the next tick), so the tests
 * wait for it with a latch and assume nothing about the thread.
 */
abstract class TimerContractTest {

    /**
     * Whether the Netty on the class path has {@code TimerTask.cancelled(Timeout)}: 4.2 has it,
     * 4.1 does not. The build runs these tests against both (the {@code netty-4.1} Surefire
     * execution), so each test that expects the callback says so.
     */
    static final boolean NETTY_HAS_CANCELLED = hasCancelledCallback();

    private static boolean hasCancelledCallback() {
        try {
            TimerTask.class.getMethod("cancelled", Timeout.class);
            return true;
        } catch (NoSuchMethodException netty41) {
            return false;
        }
    }

    // ---------------------------------------------------------------------------------------
    // What a subclass supplies.

    /** A timer with default settings and at most {@code maxPendingTimeouts} pending (0: no bound). */
    abstract Timer newTimer(long maxPendingTimeouts);

    /** {@code pendingTimeouts()}: both implementations have it, the interface does not. */
    abstract long pendingTimeouts(Timer timer);

    /** How late past its deadline a timeout may fire by design: the tick of a ticking timer. */
    abstract long lateByDesignNanos();

    /** Whether timeouts with distinct deadlines fire in deadline order (one worker, no buckets). */
    abstract boolean firesInDeadlineOrder();

    /** The logger to which the timer reports a task's failure. */
    abstract String loggerName();

    // ---------------------------------------------------------------------------------------
    // Fixture: every timer made here is stopped after the test.

    private final List<Timer> timers = new CopyOnWriteArrayList<>();

    final Timer timer() {
        return timer(0L);
    }

    final Timer timer(long maxPendingTimeouts) {
        return track(newTimer(maxPendingTimeouts));
    }

    final <T extends Timer> T track(T timer) {
        timers.add(timer);
        return timer;
    }

    @AfterEach
    void stopEveryTimer() {
        for (Timer timer : timers) {
            timer.stop(); // a second stop returns at once
        }
    }

    /** A task that records its one run or its one cancellation; the latches publish the fields. */
    static class Probe implements TimerTask {
        final CountDownLatch ran = new CountDownLatch(1);
        final CountDownLatch cancelled = new CountDownLatch(1);
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger cancellations = new AtomicInteger();
        volatile long ranAt;
        volatile Thread ranOn;
        volatile Timeout ranWith;
        volatile boolean expiredWhileRunning;
        volatile Timeout cancelledWith;

        @Override
        public void run(Timeout timeout) {
            ranAt = System.nanoTime();
            ranOn = Thread.currentThread();
            ranWith = timeout;
            expiredWhileRunning = timeout.isExpired() && !timeout.isCancelled();
            runs.incrementAndGet();
            ran.countDown();
        }

        @Override
        public void cancelled(Timeout timeout) {
            cancelledWith = timeout;
            cancellations.incrementAndGet();
            cancelled.countDown();
        }
    }

    /**
     * Fires one more timeout and waits for it: by then the worker has passed every earlier
     * deadline and (for a ticking timer) run at least one more tick, which handles the
     * cancellations made before this call.
     */
    static void awaitOneMoreRound(Timer timer) throws InterruptedException {
        Probe marker = new Probe();
        timer.newTimeout(marker, 1L, MILLISECONDS);
        await(marker.ran);
    }

    final void assertFiredOnTime(String what, long before, long firedAt, long delayNanos) {
        assertThat(firedAt - before)
                .as("%s: elapsed from before newTimeout to the run, delay %d ns", what, delayNanos)
                .isGreaterThanOrEqualTo(delayNanos)
                .isLessThan(delayNanos + lateByDesignNanos() + LATE_SLACK_NANOS);
    }

    // ---------------------------------------------------------------------------------------
    // newTimeout: arguments and state.

    @Test
    void newTimeout_nullTaskOrUnit_throwsNullPointerException() {
        Timer timer = timer();

        assertThatThrownBy(() -> timer.newTimeout(null, 1L, SECONDS))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> timer.newTimeout(new Probe(), 1L, null))
                .isInstanceOf(NullPointerException.class);
        assertThat(pendingTimeouts(timer)).isZero();
    }

    @ParameterizedTest(name = "used before stop: {0}")
    @ValueSource(booleans = {false, true})
    void newTimeout_afterStop_throwsIllegalStateException(boolean usedBeforeStop) throws Exception {
        Timer timer = timer();
        if (usedBeforeStop) {
            awaitOneMoreRound(timer);
        }
        timer.stop();

        Probe task = new Probe();
        assertThatThrownBy(() -> timer.newTimeout(task, 1L, MILLISECONDS))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> timer.newTimeout(task, 0L, MILLISECONDS))
                .isInstanceOf(IllegalStateException.class);
        assertThat(task.runs).hasValue(0);
    }

    // ---------------------------------------------------------------------------------------
    // newTimeout: firing on the real clock.

    @ParameterizedTest(name = "delay {0} ms")
    @ValueSource(longs = {0L, 1L, 7L, 70L, 300L})
    void newTimeout_firesNoEarlierThanItsDelay_withItsOwnHandle(long delayMillis) throws Exception {
        Timer timer = timer();
        Probe task = new Probe();

        long before = System.nanoTime();
        Timeout timeout = timer.newTimeout(task, delayMillis, MILLISECONDS);
        await(task.ran);

        assertFiredOnTime("timeout", before, task.ranAt, MILLISECONDS.toNanos(delayMillis));
        assertThat(task.ranWith).isSameAs(timeout);
        assertThat(task.expiredWhileRunning).as("isExpired inside run").isTrue();
        assertThat(timeout.isExpired()).isTrue();
        assertThat(timeout.isCancelled()).isFalse();
        assertThat(timeout.timer()).isSameAs(timer);
        assertThat(timeout.task()).isSameAs(task);
        assertThat(task.runs).hasValue(1);
        assertThat(task.cancellations).hasValue(0);
    }

    /** A task that schedules the next, as idle and retry handlers do: five in a chain. */
    @Test
    void newTimeout_fromATimerTask_isAccepted_andNeverEarly() throws Exception {
        Timer timer = timer();
        int links = 5;
        long delay = MILLISECONDS.toNanos(5L);
        long[] scheduledAt = new long[links];
        long[] firedAt = new long[links];
        CountDownLatch done = new CountDownLatch(links);
        TimerTask[] chain = new TimerTask[links];
        for (int i = 0; i < links; i++) {
            int link = i;
            chain[i] = timeout -> {
                firedAt[link] = System.nanoTime();
                if (link + 1 < links) {
                    scheduledAt[link + 1] = System.nanoTime();
                    timeout.timer().newTimeout(chain[link + 1], delay, NANOSECONDS);
                }
                done.countDown();
            };
        }

        scheduledAt[0] = System.nanoTime();
        timer.newTimeout(chain[0], delay, NANOSECONDS);
        await(done);

        for (int i = 0; i < links; i++) {
            assertFiredOnTime("link " + i, scheduledAt[i], firedAt[i], delay);
        }
    }

    /** Delays in microseconds, out of order and spread over wheel slots; each checked alone. */
    @Test
    void manyRandomDelays_eachTimeoutFiresNoEarlierThanItsOwnDelay() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Timer timer = timer();
        int count = 200;
        long[] delays = new long[count];
        long[] befores = new long[count];
        long[] firedAt = new long[count];
        CountDownLatch done = new CountDownLatch(count);

        for (int i = 0; i < count; i++) {
            int id = i;
            delays[i] = random.nextInt(4) == 0 ? 0L : MICROS_TO_NANOS * random.nextInt(300_000);
            befores[i] = System.nanoTime();
            timer.newTimeout(timeout -> {
                firedAt[id] = System.nanoTime();
                done.countDown();
            }, delays[i], NANOSECONDS);
        }
        await(done); // orders the writes to firedAt before the reads below

        for (int i = 0; i < count; i++) {
            assertFiredOnTime("timeout " + i + ", seed " + seed, befores[i], firedAt[i], delays[i]);
        }
    }

    private static final long MICROS_TO_NANOS = 1_000L;

    static Stream<Arguments> negativeDelays() {
        return Stream.of(
                Arguments.of(-1L, NANOSECONDS),
                Arguments.of(-1L, MILLISECONDS),
                Arguments.of(-1L, DAYS),
                Arguments.of(Long.MIN_VALUE, NANOSECONDS),
                Arguments.of(Long.MIN_VALUE, DAYS));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("negativeDelays")
    void newTimeout_negativeDelay_firesNow(long delay, TimeUnit unit) throws Exception {
        Timer timer = timer();
        Probe task = new Probe();

        long before = System.nanoTime();
        Timeout timeout = timer.newTimeout(task, delay, unit);
        await(task.ran);

        assertFiredOnTime("negative delay", before, task.ranAt, 0L);
        assertThat(timeout.isExpired()).isTrue();
    }

    static Stream<Arguments> hugeDelays() {
        return Stream.concat(
                Stream.of(TimeUnit.values()).map(unit -> Arguments.of(Long.MAX_VALUE, unit)),
                Stream.of(
                        Arguments.of(Long.MAX_VALUE - 1L, NANOSECONDS),
                        Arguments.of(Long.MAX_VALUE / 2L, NANOSECONDS),
                        Arguments.of(36_500L, DAYS)));
    }

    /**
     * A delay that overflows a deadline would wrap into the past and fire at once: before the
     * marker, which is due in 20 ms. So once the marker has fired, the huge one must still be
     * pending, and cancellable.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("hugeDelays")
    void newTimeout_hugeDelay_neverOverflows_staysPending_andCancels(long delay, TimeUnit unit)
            throws Exception {
        Timer timer = timer();
        Probe huge = new Probe();
        Probe marker = new Probe();

        Timeout timeout = timer.newTimeout(huge, delay, unit);
        timer.newTimeout(marker, 20L, MILLISECONDS);
        await(marker.ran);

        assertThat(huge.runs).hasValue(0);
        assertThat(timeout.isExpired()).isFalse();
        assertThat(timeout.isCancelled()).isFalse();
        assertThat(pendingTimeouts(timer)).isEqualTo(1L);

        assertThat(timeout.cancel()).isTrue();
        if (NETTY_HAS_CANCELLED) {
            await(huge.cancelled);
        }
        assertThat(timeout.isCancelled()).isTrue();
        awaitCondition("no timeout pending", () -> pendingTimeouts(timer) == 0L);
        assertThat(huge.runs).hasValue(0);
    }

    // ---------------------------------------------------------------------------------------
    // Timeout.cancel.

    @Test
    void cancel_pendingTimeout_returnsTrueOnce_andCallsCancelledOnce() throws Exception {
        Timer timer = timer();
        Probe task = new Probe();
        Timeout timeout = timer.newTimeout(task, 1L, MINUTES);

        assertThat(timeout.cancel()).isTrue();
        assertThat(timeout.isCancelled()).isTrue();
        assertThat(timeout.isExpired()).isFalse();
        assertThat(timeout.cancel()).isFalse();

        if (NETTY_HAS_CANCELLED) {
            await(task.cancelled);
            assertThat(task.cancelledWith).isSameAs(timeout);
        }
        awaitOneMoreRound(timer);
        assertThat(task.cancellations).hasValue(NETTY_HAS_CANCELLED ? 1 : 0);
        assertThat(task.runs).hasValue(0);
        assertThat(timeout.cancel()).isFalse();
        assertThat(timeout.isCancelled()).isTrue();
        assertThat(timeout.timer()).isSameAs(timer);
        assertThat(timeout.task()).isSameAs(task);
    }

    @Test
    void cancel_afterExpiry_returnsFalse_andDoesNotCallCancelled() throws Exception {
        Timer timer = timer();
        Probe task = new Probe();
        Timeout timeout = timer.newTimeout(task, 1L, MILLISECONDS);
        await(task.ran);

        assertThat(timeout.cancel()).isFalse();

        assertThat(timeout.isExpired()).isTrue();
        assertThat(timeout.isCancelled()).isFalse();
        awaitOneMoreRound(timer);
        assertThat(task.cancellations).hasValue(0);
    }

    @Test
    void cancel_fromItsOwnRun_returnsFalse() throws Exception {
        Timer timer = timer();
        AtomicReference<Boolean> cancelResult = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);

        timer.newTimeout(timeout -> {
            cancelResult.set(timeout.cancel());
            ran.countDown();
        }, 0L, MILLISECONDS);
        await(ran);

        assertThat(cancelResult.get()).isFalse();
    }

    @Test
    void cancel_ofOneTimeout_leavesTheOthersToFire() throws Exception {
        Timer timer = timer();
        Probe cancelled = new Probe();
        Probe kept = new Probe();

        long before = System.nanoTime();
        Timeout first = timer.newTimeout(cancelled, 30L, MILLISECONDS);
        timer.newTimeout(kept, 30L, MILLISECONDS);
        assertThat(first.cancel()).isTrue();
        await(kept.ran);
        if (NETTY_HAS_CANCELLED) {
            await(cancelled.cancelled);
        }

        assertFiredOnTime("kept", before, kept.ranAt, MILLISECONDS.toNanos(30L));
        assertThat(cancelled.runs).hasValue(0);
    }

    @Test
    void cancelled_thatThrows_isLogged_andTheTimerGoesOn() throws Exception {
        assumeTrue(NETTY_HAS_CANCELLED, "TimerTask.cancelled exists (Netty 4.2)");
        Timer timer = timer();
        RuntimeException failure = new IllegalStateException("cancelled() fails on purpose");
        try (CapturedLog log = new CapturedLog(loggerName())) {
            Timeout timeout = timer.newTimeout(new TimerTask() {
                @Override
                public void run(Timeout ignored) {
                }

                @Override
                public void cancelled(Timeout ignored) {
                    throw failure;
                }
            }, 1L, MINUTES);

            assertThat(timeout.cancel()).isTrue();
            log.awaitWarningWith(failure);
            assertThat(timeout.isCancelled()).isTrue();
            awaitOneMoreRound(timer);
        }
    }

    /**
     * Cancelling and stopping log nothing, whichever Netty is on the class path: with 4.1,
     * which has no {@code TimerTask.cancelled}, a timer that calls it anyway fails with a
     * {@code NoSuchMethodError} on every cancel.
     */
    @Test
    void cancelAndStop_logNothing() throws Exception {
        Timer timer = timer();
        try (CapturedLog log = new CapturedLog(loggerName())) {
            for (int i = 0; i < 100; i++) {
                assertThat(timer.newTimeout(timeout -> { }, 1L, MINUTES).cancel()).isTrue();
            }
            Timeout pending = timer.newTimeout(timeout -> { }, 1L, MINUTES);
            awaitOneMoreRound(timer);

            assertThat(timer.stop()).containsExactly(pending);
            assertThat(log.records).extracting(r -> r.getMessage() + " " + r.getThrown())
                    .as("log records").isEmpty();
        }
    }

    // ---------------------------------------------------------------------------------------
    // A task that throws.

    static Stream<Arguments> failures() {
        return Stream.of(
                Arguments.of(new IllegalStateException("unchecked, on purpose")),
                Arguments.of(new Exception("checked, on purpose")),
                Arguments.of(new AssertionError("an Error, on purpose")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void throwingTask_isLogged_andTheTimerGoesOn(Throwable failure) throws Exception {
        Timer timer = timer();
        try (CapturedLog log = new CapturedLog(loggerName())) {
            Timeout failing = timer.newTimeout(timeout -> {
                if (failure instanceof Exception exception) {
                    throw exception;
                }
                throw (Error) failure;
            }, 1L, MILLISECONDS);
            log.awaitWarningWith(failure);

            Probe later = new Probe();
            long before = System.nanoTime();
            timer.newTimeout(later, 10L, MILLISECONDS);
            await(later.ran);

            assertFiredOnTime("later", before, later.ranAt, MILLISECONDS.toNanos(10L));
            assertThat(failing.isExpired()).isTrue();
        }
    }

    // ---------------------------------------------------------------------------------------
    // stop.

    @Test
    void stop_returnsTheTimeoutsThatNeverRan_eachCancelled() throws Exception {
        Timer timer = timer();
        Probe firedTask = new Probe();
        Timeout fired = timer.newTimeout(firedTask, 0L, MILLISECONDS);
        await(firedTask.ran);
        Timeout cancelled = timer.newTimeout(new Probe(), 1L, MINUTES);
        assertThat(cancelled.cancel()).isTrue();
        Timeout inAMinute = timer.newTimeout(new Probe(), 1L, MINUTES);
        Timeout inAnHour = timer.newTimeout(new Probe(), 1L, HOURS);
        Timeout never = timer.newTimeout(new Probe(), Long.MAX_VALUE, DAYS);
        Timeout justScheduled = timer.newTimeout(new Probe(), 1L, SECONDS);

        Set<Timeout> unprocessed = timer.stop();

        assertThat(unprocessed).containsExactlyInAnyOrder(inAMinute, inAnHour, never, justScheduled);
        assertThat(unprocessed).allSatisfy(timeout -> {
            assertThat(timeout.isCancelled()).isTrue();
            assertThat(timeout.isExpired()).isFalse();
            assertThat(timeout.cancel()).isFalse();
        });
        assertThat(fired.isExpired()).isTrue();
        assertThat(cancelled.isCancelled()).isTrue();
    }

    @Test
    void stop_secondCall_returnsAnEmptySet() throws Exception {
        Timer timer = timer();
        timer.newTimeout(new Probe(), 1L, MINUTES);

        assertThat(timer.stop()).hasSize(1);
        assertThat(timer.stop()).isEmpty();
    }

    @Test
    void stop_ofAnIdleTimer_returnsAnEmptySet() throws Exception {
        Timer timer = timer();
        awaitOneMoreRound(timer);

        assertThat(timer.stop()).isEmpty();
    }

    @Test
    void stop_fromATimerTask_throwsIllegalStateException_andTheTimerGoesOn() throws Exception {
        Timer timer = timer();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);

        timer.newTimeout(timeout -> {
            try {
                timeout.timer().stop();
            } catch (Throwable e) {
                thrown.set(e);
            } finally {
                done.countDown();
            }
        }, 0L, MILLISECONDS);
        await(done);

        assertThat(thrown.get()).isInstanceOf(IllegalStateException.class);
        awaitOneMoreRound(timer);
    }

    @Test
    void stop_endsTheWorkerThread() throws Exception {
        Timer timer = timer();
        Probe task = new Probe();
        timer.newTimeout(task, 0L, MILLISECONDS);
        await(task.ran);
        Thread worker = task.ranOn;
        assertThat(worker).isNotSameAs(Thread.currentThread());

        timer.stop();

        worker.join(SECONDS.toMillis(TIMEOUT_SECONDS));
        assertThat(worker.isAlive()).as("%s alive after stop", worker).isFalse();
    }

    // ---------------------------------------------------------------------------------------
    // maxPendingTimeouts.

    @Test
    void maxPendingTimeouts_rejectsTheOneOverTheBound_andAcceptsAgainAfterACancel() throws Exception {
        Timer timer = timer(3L);
        List<Timeout> pending = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            pending.add(timer.newTimeout(new Probe(), 1L, MINUTES));
        }
        assertThat(pendingTimeouts(timer)).isEqualTo(3L);

        Probe rejected = new Probe();
        assertThatThrownBy(() -> timer.newTimeout(rejected, 1L, MINUTES))
                .isInstanceOf(RejectedExecutionException.class);
        assertThat(pendingTimeouts(timer)).isEqualTo(3L);

        assertThat(pending.get(1).cancel()).isTrue();
        awaitCondition("pending count down to 2", () -> pendingTimeouts(timer) == 2L);
        pending.add(timer.newTimeout(new Probe(), 1L, MINUTES));
        assertThat(pendingTimeouts(timer)).isEqualTo(3L);
        assertThatThrownBy(() -> timer.newTimeout(rejected, 1L, MINUTES))
                .isInstanceOf(RejectedExecutionException.class);
        assertThat(rejected.runs).hasValue(0);
    }

    @Test
    void maxPendingTimeouts_anExpiredTimeoutIsNoLongerPending() throws Exception {
        Timer timer = timer(1L);
        Probe first = new Probe();
        timer.newTimeout(first, 1L, MILLISECONDS);
        await(first.ran);

        awaitCondition("pending count down to 0", () -> pendingTimeouts(timer) == 0L);
        Probe second = new Probe();
        timer.newTimeout(second, 1L, MILLISECONDS);
        await(second.ran);
    }

    @Test
    void pendingTimeouts_countsScheduledNeitherFiredNorCancelled() throws Exception {
        Timer timer = timer();
        Timeout a = timer.newTimeout(new Probe(), 1L, MINUTES);
        timer.newTimeout(new Probe(), 1L, HOURS);
        assertThat(pendingTimeouts(timer)).isEqualTo(2L);

        awaitOneMoreRound(timer);
        assertThat(pendingTimeouts(timer)).isEqualTo(2L);

        a.cancel();
        awaitCondition("pending count down to 1", () -> pendingTimeouts(timer) == 1L);
    }

    // ---------------------------------------------------------------------------------------
    // Order.

    /**
     * Distinct delays, scheduled in shuffled order. Each deadline is known to lie between
     * {@code before + delay} and {@code after + delay} of its call; a timer that fires in
     * deadline order never fires one timeout after another whose deadline surely came later.
     * The first deadline is 50 ms away, so the scheduling loop cannot outrun the worker.
     */
    @Test
    void distinctDelays_fireInDeadlineOrder_orAtLeastAllFire() throws Exception {
        long seed = System.nanoTime();
        int count = 20;
        List<Integer> ks = new ArrayList<>(IntStream.range(0, count).boxed().toList());
        Collections.shuffle(ks, new Random(seed));
        Timer timer = timer();
        long[] earliestDeadline = new long[count];
        long[] latestDeadline = new long[count];
        long[] firedAt = new long[count];
        Queue<Integer> order = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(count);

        for (int k : ks) {
            long delay = MILLISECONDS.toNanos(50L + 5L * k);
            long before = System.nanoTime();
            timer.newTimeout(timeout -> {
                firedAt[k] = System.nanoTime();
                order.add(k);
                done.countDown();
            }, delay, NANOSECONDS);
            earliestDeadline[k] = before + delay;
            latestDeadline[k] = System.nanoTime() + delay;
        }
        await(done);

        assertThat(order).containsExactlyInAnyOrderElementsOf(ks);
        for (int k = 0; k < count; k++) {
            assertThat(firedAt[k] - earliestDeadline[k]).as("timeout %d, seed %d", k, seed)
                    .isGreaterThanOrEqualTo(0L)
                    .isLessThan(lateByDesignNanos() + LATE_SLACK_NANOS);
        }
        if (firesInDeadlineOrder()) {
            List<Integer> fired = List.copyOf(order);
            for (int i = 0; i < count; i++) {
                for (int j = i + 1; j < count; j++) {
                    int a = fired.get(i);
                    int b = fired.get(j);
                    assertThat(latestDeadline[b] - earliestDeadline[a])
                            .as("%d fired before %d although its deadline came later; order %s, seed %d",
                                    a, b, fired, seed)
                            .isGreaterThanOrEqualTo(0L);
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Concurrency.

    /**
     * Four threads schedule and cancel at once. Each timeout ends exactly one way: run once
     * (and its cancel returned false) or cancelled once (cancel returned true, cancelled()
     * called once, never run); and the pending count, kept by a counter when bounded, returns
     * to zero.
     */
    @ParameterizedTest(name = "maxPendingTimeouts {0}")
    @ValueSource(longs = {0L, 1_000_000L})
    void concurrentScheduleAndCancel_eachTimeoutRunsOrIsCancelled_exactlyOnce(long maxPendingTimeouts)
            throws Exception {
        Timer timer = timer(maxPendingTimeouts);
        int threads = 4;
        int perThread = 2_000;
        int total = threads * perThread;
        AtomicIntegerArray runs = new AtomicIntegerArray(total);
        AtomicIntegerArray cancellations = new AtomicIntegerArray(total);
        AtomicIntegerArray cancelReturned = new AtomicIntegerArray(total);
        CountDownLatch ended = new CountDownLatch(total);
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> producers = new ArrayList<>();
        Queue<Throwable> producerFailures = new ConcurrentLinkedQueue<>();

        for (int t = 0; t < threads; t++) {
            int offset = t * perThread;
            Thread producer = new Thread(() -> {
                try {
                    start.await();
                    Random random = new Random(offset);
                    for (int i = 0; i < perThread; i++) {
                        int id = offset + i;
                        Timeout timeout = timer.newTimeout(new TimerTask() {
                            @Override
                            public void run(Timeout ignored) {
                                runs.incrementAndGet(id);
                                ended.countDown();
                            }

                            @Override
                            public void cancelled(Timeout ignored) {
                                cancellations.incrementAndGet(id);
                                ended.countDown();
                            }
                        }, random.nextInt(50_000), TimeUnit.MICROSECONDS);
                        if (random.nextBoolean() && timeout.cancel()) {
                            cancelReturned.incrementAndGet(id);
                            if (!NETTY_HAS_CANCELLED) {
                                ended.countDown(); // no callback to count it
                            }
                        }
                    }
                } catch (Throwable e) {
                    producerFailures.add(e);
                }
            }, "timer-contract-producer-" + t);
            producers.add(producer);
            producer.start();
        }
        start.countDown();
        for (Thread producer : producers) {
            producer.join(SECONDS.toMillis(TIMEOUT_SECONDS));
        }
        assertThat(producerFailures).isEmpty();
        await(ended);
        awaitOneMoreRound(timer);

        for (int id = 0; id < total; id++) {
            boolean cancelled = cancelReturned.get(id) == 1;
            assertThat(runs.get(id)).as("runs of %d", id).isEqualTo(cancelled ? 0 : 1);
            assertThat(cancellations.get(id)).as("cancelled() calls of %d", id).isEqualTo(cancelled && NETTY_HAS_CANCELLED ? 1 : 0);
        }
        awaitCondition("no timeout pending", () -> pendingTimeouts(timer) == 0L);
    }

    // ---------------------------------------------------------------------------------------
    // Log capture.

    /**
     * Records what Netty's logger for the timer writes, and keeps it off the console. Netty logs
     * through {@code java.util.logging} when no other back end is on the class path, as here.
     */
    static final class CapturedLog extends Handler implements AutoCloseable {
        private final Logger logger;
        private final boolean usedParentHandlers;
        private final Queue<LogRecord> records = new ConcurrentLinkedQueue<>();

        CapturedLog(String loggerName) {
            assumeTrue(InternalLoggerFactory.getDefaultFactory() instanceof JdkLoggerFactory,
                    "Netty logs through java.util.logging");
            this.logger = Logger.getLogger(loggerName);
            this.usedParentHandlers = logger.getUseParentHandlers();
            logger.addHandler(this);
            logger.setUseParentHandlers(false);
        }

        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
            logger.setUseParentHandlers(usedParentHandlers);
        }

        void awaitWarningWith(Throwable failure) {
            awaitCondition("a warning logged with " + failure, () -> records.stream()
                    .anyMatch(r -> r.getLevel().intValue() >= Level.WARNING.intValue()
                            && r.getThrown() == failure));
        }
    }
}
