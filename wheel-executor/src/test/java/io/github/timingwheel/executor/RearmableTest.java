package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.ManualTimeSource;
import io.netty.util.Timeout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Re-armable timeouts on a manual clock, for the executor and the timer alike: a touch pushes
 * the deadline back without wheel work, the harvest re-links the task once for what is left, a
 * shorter timeout moves it earlier exactly, and a handle fires or is cancelled once.
 *
 * <p>Mutants each test was seen to fail on (named in the test): a touch that does not move the
 * deadline, a harvest that hands a touched task out instead of re-linking it, a move earlier
 * that does not reach the wheel, a claim that fires on a later deadline, a cancel that leaves
 * the handle armed.
 */
class RearmableTest {

    /** Clock origins: the wheel's time must not care where nanoTime starts. */
    static Stream<Long> origins() {
        return Stream.of(Long.MIN_VALUE + 1, -1L, 0L, Long.MAX_VALUE - SECONDS.toNanos(3600));
    }

    /** A scheduler under test: the executor or the timer, each with one worker, no tolerance. */
    private interface Subject extends AutoCloseable {
        Rearmable arm(Runnable action, long timeout, java.util.concurrent.TimeUnit unit);

        /** A handle with a tolerance of its own. */
        Rearmable arm(Runnable action, long timeout, long tolerance, java.util.concurrent.TimeUnit unit);

        boolean cancel(Rearmable handle);

        /** A plain one-shot task. */
        void once(Runnable action, long delay, java.util.concurrent.TimeUnit unit);

        SchedulerMetrics metrics();

        /** Stops the group the handles belong to; false if they belong to none. */
        boolean stopGroup();

        ManualClockWorkers workers();

        @Override
        void close();
    }

    /** The schedulers, alone and through a group and a serial group. */
    private static final String[] KINDS = {
        "executor", "timer", "executor group", "timer group", "executor serial group", "timer serial group"};

    static Stream<Object[]> subjects() {
        List<Object[]> all = new ArrayList<>();
        origins().forEach(origin -> {
            for (String kind : KINDS) {
                all.add(new Object[] {kind, origin});
            }
        });
        return all.stream();
    }

    private static Subject subject(String kind, ManualTimeSource clock) {
        if (kind.startsWith("executor")) {
            WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                    .workers(1).timeSource(clock).daemon(true).build();
            ManualClockWorkers workers = new ManualClockWorkers(clock, executor);
            TaskGroup group = kind.contains("serial") ? executor.newSerialGroup()
                    : kind.contains("group") ? executor.newGroup() : null;
            return new Subject() {
                @Override
                public Rearmable arm(Runnable action, long timeout, java.util.concurrent.TimeUnit unit) {
                    return group != null ? group.scheduleRearmable(action, timeout, unit)
                            : executor.scheduleRearmable(action, timeout, unit);
                }

                @Override
                public Rearmable arm(Runnable action, long timeout, long tolerance,
                        java.util.concurrent.TimeUnit unit) {
                    return group != null ? group.scheduleRearmable(action, timeout, tolerance, unit)
                            : executor.scheduleRearmable(action, timeout, tolerance, unit);
                }

                @Override
                public boolean stopGroup() {
                    if (group == null) {
                        return false;
                    }
                    group.shutdownNow();
                    return true;
                }

                @Override
                public boolean cancel(Rearmable handle) {
                    return ((RearmableFuture<?>) handle).cancel(false);
                }

                @Override
                public void once(Runnable action, long delay, java.util.concurrent.TimeUnit unit) {
                    executor.schedule(action, delay, unit);
                }

                @Override
                public SchedulerMetrics metrics() {
                    return executor.metrics();
                }

                @Override
                public ManualClockWorkers workers() {
                    return workers;
                }

                @Override
                public void close() {
                    executor.shutdownNow();
                    try {
                        awaitTermination(executor);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new AssertionError(e);
                    }
                }
            };
        }
        WheelTimer timer = WheelTimer.builder().timeSource(clock).tolerance(0, MILLISECONDS).daemon(true).build();
        ManualClockWorkers workers = new ManualClockWorkers(clock, timer.engine());
        TimeoutGroup group = kind.contains("serial") ? timer.newSerialGroup()
                : kind.contains("group") ? timer.newGroup() : null;
        return new Subject() {
            @Override
            public Rearmable arm(Runnable action, long timeout, java.util.concurrent.TimeUnit unit) {
                return group != null ? group.newRearmableTimeout(t -> action.run(), timeout, unit)
                        : timer.newRearmableTimeout(t -> action.run(), timeout, unit);
            }

            @Override
            public Rearmable arm(Runnable action, long timeout, long tolerance,
                    java.util.concurrent.TimeUnit unit) {
                return group != null ? group.newRearmableTimeout(t -> action.run(), timeout, tolerance, unit)
                        : timer.newRearmableTimeout(t -> action.run(), timeout, tolerance, unit);
            }

            @Override
            public boolean stopGroup() {
                if (group == null) {
                    return false;
                }
                group.stop();
                return true;
            }

            @Override
            public boolean cancel(Rearmable handle) {
                return ((Timeout) handle).cancel();
            }

            @Override
            public void once(Runnable action, long delay, java.util.concurrent.TimeUnit unit) {
                timer.newTimeout(t -> action.run(), delay, unit);
            }

            @Override
            public SchedulerMetrics metrics() {
                return timer.metrics();
            }

            @Override
            public ManualClockWorkers workers() {
                return workers;
            }

            @Override
            public void close() {
                timer.stop();
            }
        };
    }

    /**
     * Touched at 5 ms, a 10 ms timeout fires at 15 ms, not at 10 ms, and the harvest at 10 ms
     * re-links it once. Mutants: a touch whose CAS is skipped (ArmedDeadline.moveLater, as
     * moveTo was, returning before it) fires at 10 ms; a harvest that hands the task out instead of re-linking it
     * (WheelShards.harvest without the relink branch) still fires at 15 ms, through the worker's
     * claim, but counts no re-arm.
     */
    @ParameterizedTest(name = "{0}, origin {1}")
    @MethodSource("subjects")
    void touch_pushesDeadlineBack_andHarvestRelinksOnce(String kind, long origin) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(origin);
        AtomicInteger fired = new AtomicInteger();
        try (Subject subject = subject(kind, clock)) {
            Rearmable handle = subject.arm(fired::incrementAndGet, 10, MILLISECONDS);
            subject.workers().advance(5, MILLISECONDS);
            assertThat(handle.touch()).isTrue();
            assertThat(handle.remaining(MILLISECONDS)).isEqualTo(10);
            subject.workers().advance(5, MILLISECONDS); // the old deadline
            assertThat(fired).hasValue(0);
            assertThat(subject.metrics().rearms()).isEqualTo(1);
            subject.workers().advance(4_999, MICROSECONDS);
            assertThat(fired).hasValue(0);
            subject.workers().advance(1, MICROSECONDS); // the new one
            assertThat(fired).hasValue(1);
            assertThat(handle.isArmed()).isFalse();
            assertThat(handle.touch()).as("a touch after the firing").isFalse();
            subject.workers().advance(1, SECONDS);
            assertThat(fired).hasValue(1);
            assertThat(subject.metrics().rearms()).isEqualTo(1);
        }
    }

    /**
     * A thousand touches between two harvests cost one re-link, whatever their number.
     * Mutant: a touch that submits the task to its shard as a move (WheelWorkQueue.movedEarlier
     * on every touch) still fires right, but the apply re-links nothing and the count stays
     * one; what this test pins is that touches are not counted as re-arms and that the task
     * fires at the last touch plus the timeout.
     */
    @ParameterizedTest(name = "{0}, origin {1}")
    @MethodSource("subjects")
    void manyTouches_oneRelink_firesAfterTheLast(String kind, long origin) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(origin);
        AtomicInteger fired = new AtomicInteger();
        try (Subject subject = subject(kind, clock)) {
            Rearmable handle = subject.arm(fired::incrementAndGet, 10, MILLISECONDS);
            for (int i = 0; i < 1_000; i++) {
                clock.advance(10, MICROSECONDS); // no harvest in between: the clock only
                assertThat(handle.touch()).isTrue();
            }
            subject.workers().advance(0, MILLISECONDS); // now 10 ms: the old deadline
            assertThat(fired).hasValue(0);
            assertThat(subject.metrics().rearms()).isEqualTo(1);
            subject.workers().advance(9_999, MICROSECONDS);
            assertThat(fired).hasValue(0);
            subject.workers().advance(1, MICROSECONDS); // 10 ms after the last touch
            assertThat(fired).hasValue(1);
        }
    }

    /**
     * A shorter timeout moves the deadline earlier exactly. Mutant: a move earlier that only
     * CASes the handle (no WheelWorkQueue.movedEarlier) fires at 10 s instead of 1 ms.
     */
    @ParameterizedTest(name = "{0}, origin {1}")
    @MethodSource("subjects")
    void rearmShorter_movesEarlier_exactly(String kind, long origin) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(origin);
        AtomicInteger fired = new AtomicInteger();
        try (Subject subject = subject(kind, clock)) {
            Rearmable handle = subject.arm(fired::incrementAndGet, 10, SECONDS);
            subject.workers().advance(1, MILLISECONDS);
            assertThat(handle.rearm(2, MILLISECONDS)).isTrue();
            assertThat(handle.timeout(MILLISECONDS)).isEqualTo(2);
            subject.workers().advance(1_999, MICROSECONDS);
            assertThat(fired).as("never early").hasValue(0);
            subject.workers().advance(1, MICROSECONDS);
            assertThat(fired).hasValue(1);
        }
    }

    /**
     * A re-arm to an earlier deadline wakes the worker parked for the old one, with nothing else
     * to wake it: on a manual clock that stands still the worker parked for the hour of the first
     * deadline; re-armed to 1 ms, the task runs once the clock passes that. Mutant (PIT):
     * {@code WheelWorkQueue.movedEarlier} without its wake-up (the task waited out the test's
     * timeout; the other tests here wake the worker themselves at each step of the clock).
     */
    @Test
    void rearmEarlier_wakesTheWorkerParkedForTheOldDeadline() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        List<Thread> workers = new CopyOnWriteArrayList<>();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).timeSource(clock)
                .threadFactory(ExecutorTesting.recordingThreads("rearm-test-worker", workers)).build();
        CountDownLatch fired = new CountDownLatch(1);
        try {
            RearmableFuture<Void> handle = executor.scheduleRearmable(fired::countDown, 1, HOURS);
            ExecutorTesting.awaitTimedPark(workers);

            assertThat(handle.rearm(1, MILLISECONDS)).isTrue();
            clock.advance(1, MILLISECONDS);

            ExecutorTesting.await(fired);
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }

    /**
     * A touch after the deadline but before the firing re-arms: the claim fails on the later
     * deadline. A plain task due at the same time, scheduled first, is handed out in the same
     * batch and runs first on the one worker; it touches the re-armable one, which the harvest
     * has already handed out. Mutant: a claim that fires whatever the deadline
     * (ArmedDeadline.claim without the {@code seen > now} test) fires at 10 ms.
     */
    @ParameterizedTest(name = "{0}, origin {1}")
    @MethodSource("subjects")
    void touchAfterHandOut_beforeClaim_wins(String kind, long origin) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(origin);
        AtomicInteger fired = new AtomicInteger();
        AtomicReference<Rearmable> handle = new AtomicReference<>();
        AtomicBoolean touched = new AtomicBoolean();
        try (Subject subject = subject(kind, clock)) {
            subject.once(() -> touched.set(handle.get().touch()), 10, MILLISECONDS);
            handle.set(subject.arm(fired::incrementAndGet, 10, MILLISECONDS));
            subject.workers().advance(10, MILLISECONDS);
            assertThat(touched).isTrue();
            assertThat(fired).hasValue(0);
            assertThat(handle.get().isArmed()).isTrue();
            subject.workers().advance(9_999, MICROSECONDS);
            assertThat(fired).as("never early").hasValue(0);
            subject.workers().advance(1, MICROSECONDS);
            assertThat(fired).hasValue(1);
        }
    }

    /**
     * Cancel ends the arming: touch and rearm return false, the action never runs, a second
     * cancel returns false. Mutant: a cancel that skips ArmedDeadline.cancel leaves touch
     * returning true.
     */
    @ParameterizedTest(name = "{0}, origin {1}")
    @MethodSource("subjects")
    void cancel_endsTheArming(String kind, long origin) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(origin);
        AtomicInteger fired = new AtomicInteger();
        try (Subject subject = subject(kind, clock)) {
            Rearmable handle = subject.arm(fired::incrementAndGet, 10, MILLISECONDS);
            subject.workers().advance(5, MILLISECONDS);
            assertThat(subject.cancel(handle)).isTrue();
            assertThat(subject.cancel(handle)).isFalse();
            assertThat(handle.isArmed()).isFalse();
            assertThat(handle.touch()).isFalse();
            assertThat(handle.rearm(1, MILLISECONDS)).isFalse();
            subject.workers().advance(1, SECONDS);
            assertThat(fired).hasValue(0);
            assertThat(subject.metrics().cancelled()).isEqualTo(1);
        }
    }

    /**
     * Stopping a group cancels its re-armable timeouts, touched or not. Mutant: a grouped
     * handle whose cancelByGroup does nothing leaves the timeout armed, and it fires.
     */
    @ParameterizedTest(name = "{0}, origin {1}")
    @MethodSource("subjects")
    void groupStop_cancelsRearmables(String kind, long origin) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(origin);
        AtomicInteger fired = new AtomicInteger();
        try (Subject subject = subject(kind, clock)) {
            Rearmable touched = subject.arm(fired::incrementAndGet, 10, MILLISECONDS);
            Rearmable untouched = subject.arm(fired::incrementAndGet, 10, MILLISECONDS);
            subject.workers().advance(5, MILLISECONDS);
            touched.touch();
            if (!subject.stopGroup()) {
                return; // no group: nothing to stop
            }
            assertThat(touched.isArmed()).isFalse();
            assertThat(untouched.isArmed()).isFalse();
            assertThat(touched.touch()).isFalse();
            subject.workers().advance(1, SECONDS);
            assertThat(fired).hasValue(0);
        }
    }

    // ---------------------------------------------------------------------------------------
    // A tolerance of the handle's own (ArmedDeadline [4]). The wheel's time is 0 when the
    // scheduler is built, and a tolerance of 5 ms has a grain of 2^22 ns = 4.194304 ms (the
    // largest power of two not above it).

    private static final long GRAIN_5MS = 1L << 22;

    /**
     * Two handles with a 5 ms tolerance, due at 5 ms and 8 ms, share the position 8.388608 ms
     * (two grains) and fire together there, in the order they were made; a handle without one,
     * due at 5 ms, fires at 5 ms. Mutants: positionOf returning the deadline (no rounding) fires
     * the 5 ms handle at 5 ms; rounding down (deadline & -grain) fires it at 4.194304 ms,
     * before its deadline.
     */
    @ParameterizedTest(name = "{0}, origin {1}")
    @MethodSource("subjects")
    void tolerance_handlesInOneGrainShareAWakeUp_neverEarly(String kind, long origin) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(origin);
        List<String> fired = java.util.Collections.synchronizedList(new ArrayList<>());
        try (Subject subject = subject(kind, clock)) {
            subject.arm(() -> fired.add("5 ms, tolerant"), 5, 5, MILLISECONDS);
            subject.arm(() -> fired.add("8 ms, tolerant"), 8, 5, MILLISECONDS);
            subject.arm(() -> fired.add("5 ms, exact"), 5, MILLISECONDS);
            subject.workers().advance(GRAIN_5MS, java.util.concurrent.TimeUnit.NANOSECONDS);
            assertThat(fired).as("at 4.194304 ms: none is due").isEmpty();
            subject.workers().advance(5_000_000L - GRAIN_5MS, java.util.concurrent.TimeUnit.NANOSECONDS);
            assertThat(fired).as("at 5 ms").containsExactly("5 ms, exact");
            subject.workers().advance(2 * GRAIN_5MS - 1 - 5_000_000L, java.util.concurrent.TimeUnit.NANOSECONDS);
            assertThat(fired).as("at 8.388607 ms").containsExactly("5 ms, exact");
            subject.workers().advance(1, java.util.concurrent.TimeUnit.NANOSECONDS);
            assertThat(fired).as("at 8.388608 ms").containsExactly("5 ms, exact", "5 ms, tolerant", "8 ms, tolerant");
        }
    }

    /**
     * A touched handle with a tolerance is re-linked at its new deadline's grain, and a shorter
     * timeout moves it to the grain of the earlier deadline: 10 ms (position 12.582912 ms),
     * touched at 5 ms (deadline 15 ms), is re-linked by the harvest at 13 ms for position
     * 16.777216 ms and fires there; another,
     * rearmed at 1 ms to 2 ms (deadline 3 ms), fires at 4.194304 ms. Mutants: the harvest's
     * re-link at the armed deadline (WheelShards.harvest without positionOf) fires the first
     * at 15 ms; a move earlier to the armed deadline (WheelShard.moveEarlier without
     * positionOf) fires the second at 3 ms.
     */
    @ParameterizedTest(name = "{0}, origin {1}")
    @MethodSource("subjects")
    void tolerance_keepsTheGrainThroughTouchesAndMovesEarlier(String kind, long origin) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(origin);
        AtomicInteger touched = new AtomicInteger();
        AtomicInteger moved = new AtomicInteger();
        java.util.concurrent.TimeUnit nanos = java.util.concurrent.TimeUnit.NANOSECONDS;
        try (Subject subject = subject(kind, clock)) {
            Rearmable idle = subject.arm(touched::incrementAndGet, 10, 5, MILLISECONDS);
            Rearmable shortened = subject.arm(moved::incrementAndGet, 10, 5, MILLISECONDS);
            subject.workers().advance(1, MILLISECONDS);
            assertThat(shortened.rearm(2, MILLISECONDS)).isTrue();
            subject.workers().advance(GRAIN_5MS - 1 - 1_000_000L, nanos);
            assertThat(moved).as("at 4.194303 ms").hasValue(0);
            subject.workers().advance(1, nanos);
            assertThat(moved).as("at 4.194304 ms").hasValue(1);
            subject.workers().advance(5_000_000L - GRAIN_5MS, nanos);
            assertThat(idle.touch()).isTrue();
            assertThat(idle.remaining(MILLISECONDS)).as("the exact deadline").isEqualTo(10);
            subject.workers().advance(8, MILLISECONDS); // 13 ms: past the old position, not the deadline
            assertThat(touched).as("at 13 ms").hasValue(0);
            assertThat(subject.metrics().rearms()).isEqualTo(1);
            subject.workers().advance(4 * GRAIN_5MS - 1 - 13_000_000L, nanos);
            assertThat(touched).as("at 16.777215 ms").hasValue(0);
            subject.workers().advance(1, nanos);
            assertThat(touched).as("at 16.777216 ms").hasValue(1);
        }
    }

    /**
     * 300 handles, random timeouts up to 50 ms and tolerances up to 10 ms, fixed seed, the
     * clock stepped 100 us at a time: each fires once, never before its deadline and at most
     * its tolerance after it (plus the step). Mutant: a grain of twice the largest power of
     * two not above the tolerance (ArmedDeadline.grainOf) fires some more than their
     * tolerance late.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"executor", "timer"})
    void tolerance_neverEarly_atMostItsToleranceLate(String kind) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(0L);
        java.util.Random random = new java.util.Random(20261124L);
        int handles = 300;
        long step = 100_000L;
        long[] deadline = new long[handles];
        long[] tolerance = new long[handles];
        long[] firedAt = new long[handles];
        java.util.Arrays.fill(firedAt, -1L);
        try (Subject subject = subject(kind, clock)) {
            for (int i = 0; i < handles; i++) {
                int id = i;
                deadline[i] = random.nextInt(50_000_000);
                tolerance[i] = random.nextInt(10_000_000);
                subject.arm(() -> firedAt[id] = clock.nanoTime(), deadline[i], tolerance[i],
                        java.util.concurrent.TimeUnit.NANOSECONDS);
            }
            for (long t = 0; t <= 61_000_000L; t += step) {
                subject.workers().advance(step, java.util.concurrent.TimeUnit.NANOSECONDS);
            }
            for (int i = 0; i < handles; i++) {
                assertThat(firedAt[i]).as("handle %d fired", i).isNotNegative();
                assertThat(firedAt[i] - deadline[i]).as("handle %d: lateness, tolerance %d ns", i, tolerance[i])
                        .isBetween(0L, tolerance[i] + step);
            }
        }
    }

    @ParameterizedTest(name = "{0}, origin {1}")
    @MethodSource("subjects")
    void tolerance_negative_isRefused(String kind, long origin) {
        ManualTimeSource clock = new ManualTimeSource(origin);
        try (Subject subject = subject(kind, clock)) {
            assertThatThrownBy(() -> subject.arm(() -> { }, 1, -1, MILLISECONDS))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tolerance");
        }
    }

    /**
     * The executor's handle tells its delay as a ScheduledFuture does: until the armed deadline,
     * which a touch moves, and after the run, since the deadline it ran for (negative). Mutants:
     * the delay added to the clock rather than taken from it, and the delay read from the last
     * deadline it was placed for while it is armed (both gave the right answer at the start,
     * the only time this was checked).
     */
    @ParameterizedTest(name = "origin {0}")
    @MethodSource("origins")
    void executorHandle_getDelay_followsTheArmedDeadline(long origin) throws Exception {
        onExecutor(origin, (executor, workers) -> {
            RearmableFuture<Void> handle = executor.scheduleRearmable(() -> { }, 10, MILLISECONDS);
            workers.advance(4, MILLISECONDS);
            assertThat(handle.getDelay(MILLISECONDS)).isEqualTo(6);

            handle.touch();
            assertThat(handle.getDelay(MILLISECONDS)).as("after a touch").isEqualTo(10);
            workers.advance(7, MILLISECONDS); // past the first deadline: the handle is re-linked
            assertThat(handle.isDone()).isFalse();
            assertThat(handle.getDelay(MILLISECONDS)).isEqualTo(3);

            workers.advance(8, MILLISECONDS);
            assertThat(handle.isDone()).isTrue();
            assertThat(handle.getDelay(MILLISECONDS)).as("5 ms after it ran").isEqualTo(-5);
        });
    }

    /** The executor's handle is a future: get waits for the action, cancel makes it throw. */
    @ParameterizedTest(name = "origin {0}")
    @MethodSource("origins")
    void executorHandle_isAFuture(long origin) throws Exception {
        onExecutor(origin, (executor, workers) -> {
            RearmableFuture<Void> ran = executor.scheduleRearmable(() -> { }, 1, MILLISECONDS);
            RearmableFuture<Void> cancelled = executor.scheduleRearmable(() -> { }, 1, MILLISECONDS);
            assertThat(ran.getDelay(MILLISECONDS)).isEqualTo(1);
            cancelled.cancel(false);
            workers.advance(1, MILLISECONDS);
            assertThat(ran.get()).isNull();
            assertThat(ran.isDone()).isTrue();
            assertThatThrownBy(cancelled::get).isInstanceOf(CancellationException.class);
        });
    }

    private interface ExecutorCheck {
        void run(WheelScheduledExecutor executor, ManualClockWorkers workers) throws Exception;
    }

    /** Runs {@code check} on an executor of one worker on a manual clock from {@code origin}. */
    private static void onExecutor(long origin, ExecutorCheck check) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(origin);
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(1).timeSource(clock).daemon(true).build();
        try {
            check.run(executor, new ManualClockWorkers(clock, executor));
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }
}
