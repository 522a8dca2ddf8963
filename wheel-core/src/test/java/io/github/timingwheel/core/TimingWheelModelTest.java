package io.github.timingwheel.core;

import static io.github.timingwheel.core.WheelFixtures.logUniform;
import static io.github.timingwheel.core.WheelFixtures.slotSpanNanos;
import static io.github.timingwheel.core.WheelFixtures.wheelSpanNanos;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.github.timingwheel.core.WheelFixtures.TestNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random schedule/cancel/re-arm/advance sequences against a plain reference model: a set ordered by
 * (deadline, scheduling order). After an advance the due nodes are polled and compared with the
 * model exactly: which nodes fire, in what order, none early. One advance in three polls only a
 * few of them, as the executor's leader does when it hands out a batch and leaves the rest: the
 * wheel then lags the clock (due nodes left, cascades not yet made) while the next steps
 * schedule, cancel and poll, and the model still says exactly what comes out next.
 *
 * <p>Shown to catch a {@code nanosUntilNextEvent} without its floor of 0 (a negative park time
 * while a node is due): with full polls the next event is always ahead of the clock, so only a
 * lagging wheel shows it. The former test passed it.
 *
 * <p>One run per (shape, origin) pair; {@code -Dwheel.model.steps=N} sets the total number of
 * steps (default 2,000,000), {@code -Dwheel.model.seed=S} runs every pair with seed {@code S}.
 * A failure names the seed, shape, origin and step; the random origin is derived from the seed.
 */
class TimingWheelModelTest {

    private static final long TOTAL_STEPS = Long.getLong("wheel.model.steps", 2_000_000L);
    private static final Long FIXED_SEED = Long.getLong("wheel.model.seed");
    /** Above this many pending nodes the run drains the wheel and starts a new one. */
    private static final int MAX_PENDING = 4_000;
    private static final int RECENT = 1_024;
    /**
     * Staging capacities a run's wheels get (TimingWheel [11]): none, and a ring small enough
     * that arrivals often find it full and place its oldest quarter.
     */
    private static final int[] STAGING = {0, 8};
    /**
     * (deadline, the wheel's sequence): the sequence is the scheduling order, and a re-armed
     * node is scheduled anew. A node is taken out of the model before the wheel gives it a new
     * sequence, and put back after.
     */
    private static final Comparator<TestNode> SCHEDULING_ORDER =
            Comparator.comparingLong(TestNode::deadline).thenComparingLong(TestNode::sequence)
                    .thenComparingInt(node -> node.id); // a node never scheduled is no pending one

    /** One run: a shape, an origin and a seed. */
    record Run(String name, WheelShape shape, long origin, int staging, long seed, long steps) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> runs() {
        SplittableRandom seeds = new SplittableRandom();
        List<Named<WheelShape>> shapes = WheelFixtures.shapes();
        int originCount = WheelFixtures.origins(0L).size();
        int runCount = shapes.size() * originCount * STAGING.length;
        long stepsPerRun = Math.max(1, (TOTAL_STEPS + runCount - 1) / runCount);
        List<Arguments> runs = new ArrayList<>();
        for (Named<WheelShape> shape : shapes) {
            for (int i = 0; i < originCount; i++) {
                for (int staging : STAGING) {
                    long seed = FIXED_SEED != null ? FIXED_SEED : seeds.nextLong();
                    Named<Long> origin = WheelFixtures.origins(new SplittableRandom(seed).nextLong()).get(i);
                    String name = shape.getName() + ", " + origin.getName() + ", staging " + staging + ", seed=" + seed
                            + ", steps=" + stepsPerRun;
                    runs.add(Arguments.of(new Run(name, shape.getPayload(), origin.getPayload(), staging, seed, stepsPerRun)));
                }
            }
        }
        return runs.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("runs")
    void randomOperations_matchTheModel(Run run) {
        ModelRun model = new ModelRun(run);
        try {
            // A wheel that loops forever fails here, with the seed, instead of hanging the build.
            assertTimeoutPreemptively(Duration.ofSeconds(60).plusNanos(run.steps * 20_000), model::execute);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("model run failed at step " + model.step + " (" + run + ", " + run.shape
                    + ", origin=" + run.origin + ", wheel time " + model.now + "); re-run with -Dwheel.model.seed="
                    + run.seed + ": " + e.getMessage(), e);
        }
    }

    /** The state of one run: the wheel under test, its clock and the reference model. */
    private static final class ModelRun {
        final WheelShape shape;
        final long tick;
        final long span;
        final SplittableRandom random;
        final long steps;
        final ManualTimeSource clock;
        final int staging;
        TimingWheel<TestNode> wheel;
        /** The reference: pending nodes by (deadline, scheduling order). */
        final TreeSet<TestNode> model = new TreeSet<>(SCHEDULING_ORDER);
        /** The last scheduled nodes, pending or not, for cancels. */
        final TestNode[] recent = new TestNode[RECENT];
        long step;
        /** Coverage, so that a generator that stops reaching a case fails the run. */
        long fired;
        long cancelled;
        long rejectedCancels;
        long scheduledIntoHeap;
        long restarts;
        long rearmed;
        /** Cancels of staged nodes, and staged nodes placed, in wheels before this one (TimingWheel [11]). */
        long stagedCancels;
        long stagedPlaced;
        final boolean[] levelSeen;
        boolean overflowSeen;
        /** The model's own wheel time, checked against the wheel's. */
        long now;
        /** Advances that left due nodes unpolled, and schedules and cancels made while any were. */
        long partialPolls;
        long lagging;
        int nextId;

        ModelRun(Run run) {
            this.shape = run.shape;
            this.tick = shape.tickNanos();
            this.span = wheelSpanNanos(shape);
            this.random = new SplittableRandom(run.seed);
            this.steps = run.steps;
            this.clock = new ManualTimeSource(run.origin);
            this.staging = run.staging;
            this.wheel = new TimingWheel<>(shape, run.origin, staging);
            this.levelSeen = new boolean[shape.levels()];
        }

        void execute() {
            for (step = 0; step < steps; step++) {
                int choice = random.nextInt(20);
                if (model.size() > MAX_PENDING || now == Long.MAX_VALUE || random.nextInt(5_000) == 0) {
                    restart();
                } else if (choice < 9) {
                    lagging += lagsTheClock() ? 1 : 0;
                    schedule(delay());
                } else if (choice < 14) {
                    lagging += lagsTheClock() ? 1 : 0;
                    cancel();
                } else if (choice < 15) {
                    rearm(delay());
                } else {
                    advanceBy(advance(), random.nextInt(3) == 0 ? random.nextInt(4) : Integer.MAX_VALUE);
                }
                checkNextEvent();
                if (step % 16 == 0) {
                    recordCoverage(); // often: a staging wheel's small levels are seldom occupied
                }
                if (step % 128 == 0) {
                    WheelInvariants.check(wheel);
                }
            }
            advanceBy(Long.MAX_VALUE - now, Integer.MAX_VALUE); // everything left fires, in order
            check(model.isEmpty() && wheel.isEmpty(), () -> "the wheel is not empty at wheel time MAX_VALUE");
            WheelInvariants.check(wheel);
            if (steps >= 20_000) {
                check(fired > steps / 20 && cancelled > steps / 50 && rejectedCancels > steps / 50
                        && scheduledIntoHeap > steps / 100 && restarts > 0 && rearmed > steps / 100 && overflowSeen
                        && partialPolls > steps / 100 && lagging > steps / 100 && everyLevelSeen()
                        && (staging == 0 || stagedCancels > steps / 200 && stagedPlaced + wheel.stagedPlaced() > steps / 100),
                        this::coverage);
            }
        }

        void recordCoverage() {
            overflowSeen |= !wheel.overflowBucket().isEmpty();
            for (int level = 0; level < levelSeen.length; level++) {
                for (int slot = 0; slot < shape.slotsPerLevel() && !levelSeen[level]; slot++) {
                    levelSeen[level] = wheel.isOccupied(level, slot);
                }
            }
        }

        boolean everyLevelSeen() {
            for (boolean seen : levelSeen) {
                if (!seen) {
                    return false;
                }
            }
            return true;
        }

        String coverage() {
            return "too little coverage: fired=" + fired + ", cancelled=" + cancelled + ", rejectedCancels="
                    + rejectedCancels + ", scheduledIntoHeap=" + scheduledIntoHeap + ", restarts=" + restarts
                    + ", rearmed=" + rearmed + ", stagedCancels=" + stagedCancels + ", stagedPlaced=" + (stagedPlaced + wheel.stagedPlaced())
                    + ", overflowSeen=" + overflowSeen + ", partialPolls=" + partialPolls + ", lagging=" + lagging
                    + ", levelSeen=" + Arrays.toString(levelSeen);
        }

        void schedule(long delay) {
            long expected = delay <= 0 ? now : now + delay < 0 ? Long.MAX_VALUE : now + delay;
            long deadline = wheel.deadlineAfter(clock.nanoTime(), delay);
            check(deadline == expected, () -> "deadlineAfter(" + delay + ") = " + deadline + ", expected " + expected);
            TestNode node = new TestNode(nextId++);
            wheel.schedule(node, deadline);
            model.add(node);
            scheduledIntoHeap += node.heapIndex != TimerNode.NOT_IN_HEAP && !StagingRing.isStaged(node) ? 1 : 0;
            recent[node.id % RECENT] = node;
        }

        void cancel() {
            int kind = random.nextInt(10);
            TestNode node = kind == 0 ? (model.isEmpty() ? null : model.first())
                    : kind == 1 ? new TestNode(-1)
                    : kind < 5 ? randomPending()
                    : recent[random.nextInt(RECENT)]; // pending, fired or cancelled
            if (node != null) {
                stagedCancels += StagingRing.isStaged(node) ? 1 : 0;
                boolean expected = model.remove(node);
                check(wheel.cancel(node) == expected, () -> "cancel(" + node + ") != " + expected);
                check(!node.isScheduled(), () -> node + " still scheduled after cancel");
                cancelled += expected ? 1 : 0;
                rejectedCancels += expected ? 0 : 1;
            }
        }

        /**
         * Re-arms a pending node for a new deadline, earlier or later, as a driver that moves a
         * re-armable timer does (the executor's move earlier, and its lazy re-link of a touched
         * task when the old place comes due): cancel, then schedule the same node again, which
         * gives it a new place in the scheduling order.
         */
        void rearm(long delay) {
            TestNode node = random.nextBoolean() ? randomPending() : (model.isEmpty() ? null : model.first());
            if (node == null) {
                return;
            }
            check(model.remove(node), () -> node + " pending in the model but not found");
            check(wheel.cancel(node), () -> "cancel(" + node + ") of a pending node failed");
            long deadline = wheel.deadlineAfter(clock.nanoTime(), delay);
            wheel.schedule(node, deadline);
            model.add(node);
            rearmed++;
        }

        /** A pending node, roughly uniform over the deadlines pending; null if none. */
        TestNode randomPending() {
            if (model.isEmpty()) {
                return null;
            }
            TestNode probe = new TestNode(Integer.MIN_VALUE);
            long spread = model.last().deadline() - now;
            probe.deadline = now + Math.min(spread, (long) (random.nextDouble() * spread));
            TestNode found = model.ceiling(probe);
            return found != null ? found : model.last();
        }

        /** Whether the model holds a due node: the wheel then lags the clock. */
        boolean lagsTheClock() {
            return !model.isEmpty() && model.first().deadline() <= now;
        }

        /**
         * Moves time forward, polls at most {@code maxPolls} due nodes and compares them with
         * the model; the rest stay due, with the wheel lagging the clock.
         */
        void advanceBy(long delta, int maxPolls) {
            long target = TimingWheel.addSaturated(now, delta);
            clock.advanceNanos(target - now);
            now = target;
            check(wheel.wheelTime(clock.nanoTime()) == now, () -> "wheel time disagrees with the model");
            // Polled until it returned null: only then has the wheel caught up with the clock.
            boolean caughtUp = random.nextBoolean() ? pollEach(maxPolls) : pollInChunks(maxPolls);
            partialPolls += lagsTheClock() ? 1 : 0;
            check(!caughtUp || !lagsTheClock(), () -> "not fired: " + model.first());
            check(wheel.size() == model.size(), () -> "size " + wheel.size() + ", expected " + model.size());
            TestNode earliest = model.isEmpty() ? null : model.first();
            check(wheel.peekEarliest() == earliest, () -> "peekEarliest " + wheel.peekEarliest() + ", expected " + earliest);
            long next = wheel.nextEventTime();
            if (lagsTheClock()) {
                check(next <= now, () -> "nextEventTime " + next + " at " + now + " with a node due");
            } else if (caughtUp) {
                check(next > now || earliest == null, () -> "nextEventTime " + next + " is not after " + now
                        + " with nothing due");
            }
            long untilNext = wheel.nanosUntilNextEvent(clock.nanoTime());
            check(untilNext == (earliest == null ? Long.MAX_VALUE : Math.max(0L, next - now)),
                    () -> "nanosUntilNextEvent " + untilNext);
        }

        /** Polls one at a time; true if a poll found nothing due (the wheel caught up). */
        private boolean pollEach(int maxPolls) {
            for (int polls = 0; polls < maxPolls; polls++) {
                TestNode fired = wheel.poll(clock.nanoTime());
                if (fired == null) {
                    return true;
                }
                checkFired(fired);
            }
            return false;
        }

        /** Polls with pollDue, up to a random number at a time; true if the wheel caught up. */
        private boolean pollInChunks(int maxPolls) {
            TestNode[] into = new TestNode[1 + random.nextInt(16)];
            int from = random.nextInt(into.length); // pollDue fills from an offset
            for (int polls = 0; polls < maxPolls; ) {
                int wanted = Math.min(into.length - from, maxPolls - polls);
                int got = wheel.pollDue(clock.nanoTime(), into, from, wanted);
                for (int i = from; i < from + got; i++) {
                    checkFired(into[i]);
                    into[i] = null;
                }
                if (got < wanted) {
                    return true;
                }
                polls += got;
            }
            return false;
        }

        private void checkFired(TestNode fired) {
            TestNode expected = model.pollFirst();
            check(fired == expected, () -> "fired " + fired + ", expected " + expected);
            check(fired.deadline() <= now, () -> "fired early: " + fired);
            this.fired++;
        }

        /** nextEventTime is never later than the earliest deadline, and MAX_VALUE only when empty. */
        void checkNextEvent() {
            long next = wheel.nextEventTime();
            if (model.isEmpty()) {
                check(next == Long.MAX_VALUE, () -> "nextEventTime " + next + " of an empty wheel");
            } else {
                check(next <= model.first().deadline(), () -> "nextEventTime " + next + " after " + model.first());
            }
        }

        /** Drains the wheel, checks that it hands back exactly the pending nodes, starts anew. */
        void restart() {
            Set<TestNode> drained = Collections.newSetFromMap(new IdentityHashMap<>());
            long count = wheel.drain(node -> {
                check(!node.isScheduled(), () -> node + " drained but still scheduled");
                drained.add(node);
            });
            check(count == model.size() && drained.size() == model.size() && drained.containsAll(model),
                    () -> "drained " + count + " nodes, expected " + model.size());
            WheelInvariants.check(wheel);
            model.clear();
            restarts++;
            stagedPlaced += wheel.stagedPlaced();
            wheel = new TimingWheel<>(shape, clock.nanoTime(), staging);
            now = 0;
        }

        /** A delay from a mix: now, this tick, each level, beyond the wheel, huge, MAX_VALUE, ties. */
        long delay() {
            switch (random.nextInt(10)) {
                case 0:
                    return random.nextBoolean() ? 0 : random.nextBoolean() ? -random.nextLong(1, 1_000_000) : Long.MIN_VALUE;
                case 1:
                    return random.nextLong(tick - now % tick);
                case 2:
                    int level = random.nextInt(shape.levels());
                    return random.nextLong(slotSpanNanos(shape, level), slotSpanNanos(shape, level + 1) + 1);
                case 3:
                    return untilBoundary(slotSpanNanos(shape, random.nextInt(shape.levels() + 1))) - random.nextInt(2);
                case 4:
                    return random.nextLong(span, Math.min(Long.MAX_VALUE / 2, span * 64));
                case 5:
                    return logUniform(random, Long.MAX_VALUE);
                case 6:
                    return Long.MAX_VALUE;
                case 7:
                    TestNode other = recent[random.nextInt(RECENT)];
                    return other == null ? 0 : other.deadline() - now; // a tie, if still ahead
                default:
                    return logUniform(random, span * 4);
            }
        }

        /** An advance: small, to a tick or slot boundary, large, huge, or to the next event. */
        long advance() {
            switch (random.nextInt(12)) {
                case 0:
                    return 0;
                case 1:
                case 2:
                    return random.nextLong(2 * tick + 1);
                case 3:
                    return untilBoundary(tick) - random.nextInt(2);
                case 4:
                    return untilBoundary(slotSpanNanos(shape, random.nextInt(shape.levels() + 1))) - random.nextInt(2);
                case 5:
                    return logUniform(random, span * 8);
                case 6:
                    return random.nextInt(50) == 0 ? logUniform(random, Long.MAX_VALUE / 4) : logUniform(random, span * 64);
                case 7:
                    return random.nextInt(5_000) == 0 ? Long.MAX_VALUE - now : logUniform(random, span);
                case 8:
                case 9:
                    long next = wheel.nextEventTime();
                    return next == Long.MAX_VALUE ? 0 : Math.max(0, next - now);
                default:
                    long deadline = model.isEmpty() ? now : model.first().deadline();
                    return Math.max(0, deadline - now - random.nextInt(2)); // exactly at, or just before
            }
        }

        /** How far from now to the next multiple of {@code unit}, at least 1 (MAX_VALUE if none). */
        long untilBoundary(long unit) {
            long boundary = (now / unit + 1) * unit;
            return boundary <= 0 ? Long.MAX_VALUE : boundary - now;
        }

        static void check(boolean condition, Supplier<String> message) {
            if (!condition) {
                throw new AssertionError(message.get());
            }
        }
    }
}
