package io.github.timingwheel.core;

import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Shared fixtures for the wheel-core tests: the matrices of clock origins and wheel shapes, a
 * node with an id, and a {@link Harness} that drives one wheel on a manual clock and checks
 * {@link WheelInvariants} after every operation.
 *
 * <p>The random origin is printed in every test name; re-run with {@code -Dwheel.origin=N}.
 */
final class WheelFixtures {

    /** The random clock origin for this run, printed in test names; {@code -Dwheel.origin}. */
    static final long RANDOM_ORIGIN = Long.getLong("wheel.origin", new SplittableRandom().nextLong());

    /** Origins close enough to the top of the range that a test of a few seconds wraps. */
    static final long NEAR_MAX_ORIGIN = Long.MAX_VALUE - SECONDS.toNanos(3);

    /** Firing order when ids follow scheduling order: deadline, then FIFO. */
    static final Comparator<TestNode> FIRING_ORDER =
            Comparator.comparingLong(TestNode::deadline).thenComparingInt(node -> node.id);

    private WheelFixtures() {
    }

    /** Runs a test once per (shape, origin) pair with a fresh {@link Harness}. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.github.timingwheel.core.WheelFixtures#harnesses")
    @interface EveryShapeAndOrigin {
    }

    /** Runs a test once per origin, with the origin as a {@code long}. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.github.timingwheel.core.WheelFixtures#originsOnly")
    @interface EveryOrigin {
    }

    /** A node with an id, so that failure messages say which one. */
    static final class TestNode extends TimerNode {
        final int id;

        TestNode(int id) {
            this.id = id;
        }

        @Override
        public String toString() {
            return "#" + id + "@" + deadline;
        }
    }

    /** The origins every rule is checked from; {@code random} is the last one. */
    static List<Named<Long>> origins(long random) {
        return List.of(
                Named.of("origin=MIN_VALUE", Long.MIN_VALUE),
                Named.of("origin=-1", -1L),
                Named.of("origin=0", 0L),
                Named.of("origin=MAX_VALUE-3s", NEAR_MAX_ORIGIN),
                Named.of("origin=random(" + random + ")", random));
    }

    /**
     * 1 ms ticks, 5 levels of 64 slots: the shape of the tests whose figures (slot starts, counts
     * per slot) are worked out for a narrow level 0, where bursts cascade through level 1.
     */
    static final WheelShape NARROW = shape(1, MILLISECONDS, 64, 5);

    /** Shapes where tick, slots and levels all differ, so that shape-specific arithmetic fails. */
    static List<Named<WheelShape>> shapes() {
        return List.of(
                Named.of("default", WheelShape.defaults()),
                Named.of("1ms*64^5", NARROW),
                Named.of("1ns*2^31", shape(1, NANOSECONDS, 2, 31)),
                Named.of("7ms*8^3", shape(7, MILLISECONDS, 8, 3)),
                Named.of("1us*1024^2", shape(1, MICROSECONDS, 1024, 2)),
                Named.of("1ms*64^1", shape(1, MILLISECONDS, 64, 1)));
    }

    static WheelShape shape(long tick, TimeUnit unit, int slots, int levels) {
        return WheelShape.builder().tick(tick, unit).slotsPerLevel(slots).levels(levels).build();
    }

    /** Every (shape, origin) pair as one named {@link Harness} argument. */
    static Stream<Arguments> harnesses() {
        List<Arguments> all = new ArrayList<>();
        for (Named<WheelShape> shape : shapes()) {
            for (Named<Long> origin : origins(RANDOM_ORIGIN)) {
                all.add(Arguments.of(Named.of(shape.getName() + ", " + origin.getName(),
                        new Harness(shape.getPayload(), origin.getPayload()))));
            }
        }
        return all.stream();
    }

    /** As {@link #harnesses()}, without the shapes of one level: for rules about two levels. */
    static Stream<Arguments> harnessesOfTwoLevelsOrMore() {
        return harnesses().filter(arguments -> {
            Named<?> named = (Named<?>) arguments.get()[0];
            return ((Harness) named.getPayload()).shape.levels() > 1;
        });
    }

    /** Every origin with the default shape, for rules that do not depend on the shape. */
    static Stream<Arguments> originsOnly() {
        return origins(RANDOM_ORIGIN).stream().map(Arguments::of);
    }

    /** {@code tickNanos * slots^level}: the span of one slot of {@code level}, saturated. */
    static long slotSpanNanos(WheelShape shape, int level) {
        return saturatedShift(shape.tickNanos(), level * shape.slotBits());
    }

    /** The span of the whole wheel: deadlines at least this far ahead start in the overflow. */
    static long wheelSpanNanos(WheelShape shape) {
        return slotSpanNanos(shape, shape.levels());
    }

    /**
     * Delays that, from wheel time 0, land in every level and in the overflow: the first and last
     * tick of slot 1, the last tick of the level, and a random one between, plus 0 and the last
     * nanosecond of the current tick.
     */
    static List<Long> delaysAtEveryLevel(WheelShape shape, SplittableRandom random) {
        List<Long> delays = new ArrayList<>(List.of(0L, shape.tickNanos() - 1));
        for (int level = 0; level <= shape.levels(); level++) {
            long span = slotSpanNanos(shape, level);
            long levelEnd = level == shape.levels() ? span * 4 : slotSpanNanos(shape, level + 1);
            delays.add(span);
            delays.add(2 * span - 1);
            delays.add(levelEnd - 1);
            delays.add(random.nextLong(span, levelEnd));
        }
        return delays;
    }

    /** A value in [0, max), log-uniform so that small and large delays (every level) get a share. */
    static long logUniform(SplittableRandom random, long max) {
        int bits = 64 - Long.numberOfLeadingZeros(max);
        long value = random.nextLong() >>> (64 - random.nextInt(1, bits + 1));
        return value < max ? value : random.nextLong(max);
    }

    private static long saturatedShift(long value, int bits) {
        return bits > Long.numberOfLeadingZeros(value) - 1 ? Long.MAX_VALUE : value << bits;
    }

    /** One wheel on one manual clock; every operation is followed by an invariant check. */
    static final class Harness {
        final WheelShape shape;
        final long origin;
        final ManualTimeSource clock;
        final TimingWheel<TestNode> wheel;
        private int nextId;

        Harness(WheelShape shape, long origin) {
            this.shape = shape;
            this.origin = origin;
            this.clock = new ManualTimeSource(origin);
            this.wheel = new TimingWheel<>(shape, origin);
        }

        long tickNanos() {
            return shape.tickNanos();
        }

        /** The current wheel time. */
        long now() {
            return wheel.wheelTime(clock.nanoTime());
        }

        /** A random source fixed by the shape and origin, both printed in the test name. */
        SplittableRandom random() {
            return new SplittableRandom(origin * 31 + shape.hashCode());
        }

        TestNode newNode() {
            return new TestNode(nextId++);
        }

        /** Schedules a new node {@code delayNanos} from now. */
        TestNode schedule(long delayNanos) {
            TestNode node = newNode();
            wheel.schedule(node, wheel.deadlineAfter(clock.nanoTime(), delayNanos));
            WheelInvariants.check(wheel);
            return node;
        }

        /** Schedules a new node at the wheel-time {@code deadline}. */
        TestNode scheduleAt(long deadline) {
            TestNode node = newNode();
            wheel.schedule(node, deadline);
            WheelInvariants.check(wheel);
            return node;
        }

        boolean cancel(TestNode node) {
            boolean cancelled = wheel.cancel(node);
            WheelInvariants.check(wheel);
            return cancelled;
        }

        /** Moves the clock to the wheel time {@code wheelTime}, which must not be in the past. */
        void advanceTo(long wheelTime) {
            clock.advanceNanos(wheelTime - now());
        }

        /** Polls every due node, checking that none is early. */
        List<TestNode> pollAll() {
            long now = now();
            List<TestNode> fired = new ArrayList<>();
            for (TestNode node; (node = wheel.poll(clock.nanoTime())) != null; ) {
                if (node.deadline() > now || node.isScheduled()) {
                    throw new AssertionError("early or still scheduled: " + node + " at " + now);
                }
                fired.add(node);
            }
            WheelInvariants.check(wheel);
            return fired;
        }

        List<TestNode> advanceAndPoll(long nanos) {
            clock.advanceNanos(nanos);
            return pollAll();
        }

        List<TestNode> pending() {
            List<TestNode> all = new ArrayList<>();
            wheel.forEach(all::add);
            return all;
        }

        @Override
        public String toString() {
            return shape + ", origin=" + origin;
        }
    }
}
