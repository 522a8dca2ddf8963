package io.github.timingwheel.core;

import static io.github.timingwheel.core.WheelFixtures.FIRING_ORDER;
import static io.github.timingwheel.core.WheelFixtures.delaysAtEveryLevel;
import static io.github.timingwheel.core.WheelFixtures.logUniform;
import static io.github.timingwheel.core.WheelFixtures.slotSpanNanos;
import static io.github.timingwheel.core.WheelFixtures.wheelSpanNanos;
import static io.github.timingwheel.core.WheelInvariants.HEAP;
import static io.github.timingwheel.core.WheelInvariants.NOWHERE;
import static io.github.timingwheel.core.WheelInvariants.OVERFLOW;
import static io.github.timingwheel.core.WheelInvariants.locate;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.WheelFixtures.EveryShapeAndOrigin;
import io.github.timingwheel.core.WheelFixtures.Harness;
import io.github.timingwheel.core.WheelFixtures.TestNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The rules of {@link TimingWheel}'s contract, each over every shape and clock origin. */
@Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a looping wheel fails, not hangs
class TimingWheelTest {

    // ---------------------------------------------------------------------------------------
    // Never early, exact order.

    @EveryShapeAndOrigin
    void poll_neverEarly_acrossLevels(Harness h) {
        List<TestNode> nodes = scheduleAll(h, delaysAtEveryLevel(h.shape, h.random()));
        nodes.sort(FIRING_ORDER);

        for (int i = 0; i < nodes.size(); ) {
            long deadline = nodes.get(i).deadline();
            if (deadline - 1 >= h.now()) {
                h.advanceTo(deadline - 1);
                assertThat(h.pollAll()).as("polled at %d", deadline - 1).isEmpty();
            }
            h.advanceTo(deadline);
            int end = i;
            while (end < nodes.size() && nodes.get(end).deadline() == deadline) {
                end++;
            }
            assertThat(h.pollAll()).as("polled at %d", deadline).containsExactlyElementsOf(nodes.subList(i, end));
            i = end;
        }
        assertThat(h.wheel.isEmpty()).isTrue();
    }

    @EveryShapeAndOrigin
    void poll_exactOrder_acrossLevelsAndOverflow(Harness h) {
        SplittableRandom random = h.random();
        List<Long> delays = new ArrayList<>(delaysAtEveryLevel(h.shape, random));
        for (int i = 0; i < 300; i++) {
            delays.add(logUniform(random, wheelSpanNanos(h.shape) * 3));
        }
        delays.addAll(delays.subList(0, 40)); // equal deadlines, scheduled later
        Collections.shuffle(delays, new Random(random.nextLong()));
        List<TestNode> expected = scheduleAll(h, delays);
        expected.sort(FIRING_ORDER);

        List<TestNode> fired = new ArrayList<>();
        while (!h.wheel.isEmpty()) {
            fired.addAll(h.advanceAndPoll(logUniform(random, wheelSpanNanos(h.shape) / 4)));
        }
        assertThat(fired).containsExactlyElementsOf(expected);
    }

    @EveryShapeAndOrigin
    void poll_cascadedAndScheduledIntoCurrentTick_exactOrder(Harness h) {
        long span = wheelSpanNanos(h.shape);
        long deadline = span + span / 2 + h.tickNanos() / 2; // the top level's second lap, mid-tick
        long tickStart = deadline - deadline % h.tickNanos();
        TestNode cascaded = h.scheduleAt(deadline);
        TestNode later = h.scheduleAt(deadline + 1);
        assertThat(locate(h.wheel, cascaded)).isEqualTo(h.shape.levels() - 1);

        h.advanceTo(tickStart);
        List<TestNode> fired = new ArrayList<>(h.pollAll()); // with a 1 ns tick, 'cascaded' is due
        if (tickStart < deadline) {
            assertThat(locate(h.wheel, cascaded)).as("moved down into the heap").isEqualTo(HEAP);
        }
        TestNode direct = h.scheduleAt(deadline);
        TestNode earlier = h.scheduleAt(tickStart);
        assertThat(locate(h.wheel, direct)).isEqualTo(HEAP);

        h.advanceTo(deadline + 1);
        fired.addAll(h.pollAll());
        List<TestNode> expected = new ArrayList<>(List.of(cascaded, later, direct, earlier));
        expected.sort(FIRING_ORDER);
        assertThat(fired).containsExactlyElementsOf(expected);
    }

    @EveryShapeAndOrigin
    void poll_sameDeadline_fifoWhereverScheduledFrom(Harness h) {
        long deadline = wheelSpanNanos(h.shape) - 1;
        List<TestNode> expected = new ArrayList<>();
        for (int step = 0; step <= 4; step++) {
            h.advanceTo(deadline / 4 * step);
            h.pollAll(); // moves the wheel, so that later nodes are placed at lower levels
            for (int i = 0; i < 10; i++) {
                expected.add(h.scheduleAt(deadline));
                h.scheduleAt(deadline + 1);
            }
        }
        h.advanceTo(deadline);
        expected.add(h.schedule(0)); // due at once, after all the others
        assertThat(h.pollAll()).containsExactlyElementsOf(expected);
    }

    @EveryShapeAndOrigin
    void pollDueBefore_takesTheDueNodesBeforeTheBoundInOrder(Harness h) {
        long deadline = wheelSpanNanos(h.shape) / 2;
        List<TestNode> early = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            early.add(h.scheduleAt(deadline - 1));
        }
        List<TestNode> onTime = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            onTime.add(h.scheduleAt(deadline));
        }
        TestNode notDue = h.scheduleAt(deadline + 1);
        // A node of another wheel at (deadline, sequence of onTime[2]), as a merging driver has.
        TestNode bound = new TestNode(-1);
        new TimingWheel<TestNode>(h.shape, 0L).schedule(bound, deadline, onTime.get(2).sequence());
        h.advanceTo(deadline);
        TestNode[] into = new TestNode[16];

        assertThat(h.wheel.pollDueBefore(h.clock.nanoTime(), bound, into, 1, 3)).isEqualTo(3); // max
        assertThat(into).startsWith(null, early.get(0), early.get(1), early.get(2), null);
        assertThat(h.wheel.pollDueBefore(h.clock.nanoTime(), bound, into, 0, 16)).isEqualTo(4); // bound
        assertThat(Arrays.copyOf(into, 4)).containsExactly(early.get(3), early.get(4), onTime.get(0), onTime.get(1));
        assertThat(h.wheel.pollDue(h.clock.nanoTime(), into, 0, 16)).isEqualTo(3); // not early
        assertThat(Arrays.copyOf(into, 3)).containsExactlyElementsOf(onTime.subList(2, 5));
        assertThat(h.wheel.size()).isEqualTo(1);
        h.advanceTo(deadline + 1);
        assertThat(h.pollAll()).containsExactly(notDue);
    }

    /**
     * Buckets are made when a node first goes to their slot (TimingWheel [15]): a new wheel of
     * the default shape has none; a node two seconds out makes its level-1 slot's bucket alone,
     * which stays after the node is cancelled and takes the next node of that slot. Shown to
     * catch a wheel that makes every bucket up front.
     */
    @Test
    void buckets_areMadeWhenANodeFirstGoesToTheirSlot() {
        Harness h = new Harness(WheelShape.defaults(), 0L);
        assertThat(madeBuckets(h.wheel)).isEmpty();
        TestNode node = h.schedule(TimeUnit.SECONDS.toNanos(2));
        assertThat(locate(h.wheel, node)).isEqualTo(1);
        List<Bucket> made = madeBuckets(h.wheel);
        assertThat(made).hasSize(1);
        assertThat(h.cancel(node)).isTrue();
        h.schedule(TimeUnit.SECONDS.toNanos(2));
        assertThat(madeBuckets(h.wheel)).hasSize(1).first().isSameAs(made.get(0));
    }

    private static List<Bucket> madeBuckets(TimingWheel<?> wheel) {
        List<Bucket> made = new ArrayList<>();
        for (int level = 0; level < wheel.levels(); level++) {
            for (int slot = 0; slot < wheel.ringSize(); slot++) {
                if (wheel.bucket(level, slot) != null) {
                    made.add(wheel.bucket(level, slot));
                }
            }
        }
        return made;
    }

    @EveryShapeAndOrigin
    void poll_olderTime_returnsNothingNotDueThen(Harness h) {
        TestNode first = h.schedule(h.tickNanos() * 3);
        TestNode second = h.schedule(h.tickNanos() * 5);
        long older = h.clock.nanoTime() + first.deadline();
        h.advanceTo(second.deadline());
        assertThat(h.wheel.poll(h.clock.nanoTime())).isSameAs(first);
        assertThat(h.wheel.poll(older)).isNull();
        WheelInvariants.check(h.wheel);
        assertThat(h.pollAll()).containsExactly(second);
    }

    @EveryShapeAndOrigin
    void schedule_withinCurrentTick_goesStraightToHeap(Harness h) {
        SplittableRandom random = h.random();
        h.advanceTo(random.nextLong(1, wheelSpanNanos(h.shape) * 2));
        h.pollAll();
        long toTickEnd = h.tickNanos() - h.now() % h.tickNanos();

        List<TestNode> inTick = scheduleAll(h, List.of(0L, -1L, Long.MIN_VALUE, toTickEnd - 1,
                random.nextLong(toTickEnd)));
        TestNode nextTick = h.schedule(toTickEnd);
        for (TestNode node : inTick) {
            assertThat(locate(h.wheel, node)).as("%s", node).isEqualTo(HEAP);
        }
        assertThat(locate(h.wheel, nextTick)).isNotEqualTo(HEAP);

        List<TestNode> fired = h.advanceAndPoll(toTickEnd);
        inTick.add(nextTick);
        inTick.sort(FIRING_ORDER);
        assertThat(fired).containsExactlyElementsOf(inTick);
    }

    @EveryShapeAndOrigin
    void nextEventTime_emptyButOne_reachesDeadlineWithinLevelsPlusTwoWakeups(Harness shared) {
        SplittableRandom random = shared.random();
        int levels = shared.shape.levels();
        for (int level = 0; level <= levels; level++) {
            Harness h = new Harness(shared.shape, shared.origin);
            h.advanceTo(random.nextLong(wheelSpanNanos(h.shape) * 2));
            h.pollAll();
            long delay = Math.max(slotSpanNanos(h.shape, level), 2 * h.tickNanos());
            TestNode node = h.schedule(delay + random.nextLong(delay));
            assertThat(wakeupsUntilFired(h, node)).as("wake-ups").isLessThanOrEqualTo(levels + 2);
        }
    }

    @EveryShapeAndOrigin
    void cascade_fromTimeZero_startsAtTheLowestLevelWhoseTwoLapsHoldTheDelay(Harness h) {
        SplittableRandom random = h.random();
        int levels = h.shape.levels();
        for (int level = 0; level <= levels; level++) {
            long span = slotSpanNanos(h.shape, level);
            // [span, 2 span) is the second lap of the level below; from 2 span on it takes this level.
            Harness secondLap = new Harness(h.shape, h.origin);
            TestNode early = secondLap.schedule(span + random.nextLong(span));
            int below = Math.max(0, level - 1);
            assertThat(locate(secondLap.wheel, early)).as("level %d, second lap below", level).isEqualTo(below);
            assertThat(wakeupsUntilFired(secondLap, early)).isLessThanOrEqualTo(below + 2);

            Harness beyond = new Harness(h.shape, h.origin);
            TestNode late = beyond.schedule(2 * span + random.nextLong(span));
            assertThat(locate(beyond.wheel, late)).as("level %d", level).isEqualTo(level == levels ? OVERFLOW : level);
            assertThat(wakeupsUntilFired(beyond, late)).isLessThanOrEqualTo(level + 2);
        }
    }

    @EveryShapeAndOrigin
    void advance_hoursAndYearsAtOnce_firesEverythingInOrder(Harness h) {
        SplittableRandom random = h.random();
        long hour = TimeUnit.HOURS.toNanos(1);
        long years = TimeUnit.DAYS.toNanos(3650);
        List<Long> delays = new ArrayList<>(delaysAtEveryLevel(h.shape, random));
        for (int i = 0; i < 200; i++) {
            delays.add(logUniform(random, years));
        }
        List<TestNode> expected = scheduleAll(h, delays);
        expected.sort(FIRING_ORDER);
        int dueInAnHour = (int) expected.stream().filter(node -> node.deadline() <= hour).count();

        assertThat(h.advanceAndPoll(hour)).containsExactlyElementsOf(expected.subList(0, dueInAnHour));
        assertThat(h.advanceAndPoll(years)).containsExactlyElementsOf(expected.subList(dueInAnHour, expected.size()));
        assertThat(h.wheel.nextEventTime()).isEqualTo(Long.MAX_VALUE);
    }

    // ---------------------------------------------------------------------------------------
    // Wake-ups.

    @EveryShapeAndOrigin
    void nextEventTime_neverLaterThanEarliestDeadline(Harness h) {
        SplittableRandom random = h.random();
        TreeSet<TestNode> pending = new TreeSet<>(FIRING_ORDER);
        for (int i = 0; i < 200; i++) {
            pending.add(h.schedule(logUniform(random, wheelSpanNanos(h.shape) * 3)));
        }
        for (TestNode node : new ArrayList<>(pending).subList(0, 50)) {
            assertThat(h.cancel(node)).isTrue();
            pending.remove(node);
        }
        while (true) {
            for (TestNode node : h.pollAll()) {
                assertThat(node).isSameAs(pending.pollFirst());
            }
            if (pending.isEmpty()) {
                break;
            }
            long next = h.wheel.nextEventTime();
            assertThat(next).isLessThanOrEqualTo(pending.first().deadline());
            assertThat(next).as("no wake-up for what is done").isGreaterThan(h.now());
            assertThat(h.wheel.nanosUntilNextEvent(h.clock.nanoTime())).isEqualTo(next - h.now());
            h.advanceTo(next);
        }
        assertThat(h.wheel.nextEventTime()).isEqualTo(Long.MAX_VALUE);
        assertThat(h.wheel.nanosUntilNextEvent(h.clock.nanoTime())).isEqualTo(Long.MAX_VALUE);
    }

    @EveryShapeAndOrigin
    void nextEventTime_empty_isMaxValue(Harness h) {
        assertThat(h.wheel.nextEventTime()).isEqualTo(Long.MAX_VALUE);
        assertThat(h.wheel.nanosUntilNextEvent(h.clock.nanoTime())).isEqualTo(Long.MAX_VALUE);
        for (long delay : delaysAtEveryLevel(h.shape, h.random())) {
            assertThat(h.cancel(h.schedule(delay))).isTrue();
            assertThat(h.wheel.nextEventTime()).as("after cancel of %d", delay).isEqualTo(Long.MAX_VALUE);
        }
        h.schedule(h.tickNanos() * 3);
        h.advanceAndPoll(h.tickNanos() * 3);
        assertThat(h.wheel.nextEventTime()).as("after firing").isEqualTo(Long.MAX_VALUE);
    }

    @EveryShapeAndOrigin
    void nanosUntilNextEvent_dueNode_isZero(Harness h) {
        h.schedule(h.tickNanos() * 2 + 1);
        h.advanceTo(h.tickNanos() * 5);
        assertThat(h.wheel.nanosUntilNextEvent(h.clock.nanoTime())).isZero();
    }

    // ---------------------------------------------------------------------------------------
    // Views: peekEarliest, size, forEach, drain.

    @EveryShapeAndOrigin
    void peekEarliest_isTheModelsEarliest(Harness h) {
        SplittableRandom random = h.random();
        TreeSet<TestNode> model = new TreeSet<>(FIRING_ORDER);
        assertThat(h.wheel.peekEarliest()).isNull();
        for (int round = 0; round < 300; round++) {
            int choice = random.nextInt(4);
            if (choice == 0 && !model.isEmpty()) {
                TestNode first = model.pollFirst();
                assertThat(h.cancel(first)).isTrue();
            } else if (choice == 1 && !model.isEmpty()) {
                h.advanceTo(model.first().deadline());
                for (TestNode node : h.pollAll()) {
                    assertThat(node).isSameAs(model.pollFirst());
                }
            } else {
                long delay = choice == 2 && !model.isEmpty()
                        ? model.last().deadline() - h.now() // a tie with the latest
                        : logUniform(random, wheelSpanNanos(h.shape) * 3);
                model.add(h.schedule(delay));
            }
            assertThat(h.wheel.peekEarliest()).isSameAs(model.isEmpty() ? null : model.first());
        }
    }

    @EveryShapeAndOrigin
    void sizeAndIsEmpty_followScheduleCancelAndPoll(Harness h) {
        assertThat(h.wheel.size()).isZero();
        assertThat(h.wheel.isEmpty()).isTrue();
        List<TestNode> nodes = scheduleAll(h, delaysAtEveryLevel(h.shape, h.random()));
        assertThat(h.wheel.size()).isEqualTo(nodes.size());
        assertThat(h.wheel.isEmpty()).isFalse();
        h.cancel(nodes.get(nodes.size() - 1));
        h.cancel(nodes.get(nodes.size() - 1)); // a second cancel changes nothing
        assertThat(h.wheel.size()).isEqualTo(nodes.size() - 1);
        int fired = h.advanceAndPoll(h.tickNanos()).size();
        assertThat(h.wheel.size()).isEqualTo(nodes.size() - 1 - fired);
        h.advanceAndPoll(Long.MAX_VALUE / 4);
        assertThat(h.wheel.size()).isZero();
        assertThat(h.wheel.isEmpty()).isTrue();
    }

    @EveryShapeAndOrigin
    void forEach_visitsExactlyThePendingNodes(Harness h) {
        List<TestNode> nodes = scheduleAll(h, delaysAtEveryLevel(h.shape, h.random()));
        h.advanceTo(h.tickNanos());
        h.wheel.poll(h.clock.nanoTime()); // moves tick 1 into the heap
        List<TestNode> pending = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).isScheduled() && (i % 3 != 0 || !h.cancel(nodes.get(i)))) {
                pending.add(nodes.get(i));
            }
        }
        assertThat(h.pending()).containsExactlyInAnyOrderElementsOf(pending);
        assertThat(h.pending()).doesNotHaveDuplicates().hasSize((int) h.wheel.size());
    }

    @EveryShapeAndOrigin
    void drain_returnsAll_leavesWheelEmptyReusableAndNodesReschedulable(Harness h) {
        List<TestNode> nodes = scheduleAll(h, delaysAtEveryLevel(h.shape, h.random()));
        nodes.remove(h.wheel.poll(h.clock.nanoTime())); // the others of deadline 0 stay in the heap
        List<TestNode> drained = new ArrayList<>();
        long count = h.wheel.drain(node -> {
            assertThat(node.isScheduled()).as("%s handed over while scheduled", node).isFalse();
            drained.add(node);
        });

        assertThat(count).isEqualTo(nodes.size());
        assertThat(drained).containsExactlyInAnyOrderElementsOf(nodes);
        WheelInvariants.check(h.wheel);
        assertThat(h.wheel.isEmpty()).isTrue();
        assertThat(h.wheel.peekEarliest()).isNull();
        assertThat(h.wheel.nextEventTime()).isEqualTo(Long.MAX_VALUE);
        assertThat(h.pending()).isEmpty();
        assertThat(h.advanceAndPoll(wheelSpanNanos(h.shape) * 8)).isEmpty();
        assertThat(h.wheel.drain(node -> { })).isZero();

        List<TestNode> expected = new ArrayList<>();
        for (TestNode node : drained) {
            h.wheel.schedule(node, h.wheel.deadlineAfter(h.clock.nanoTime(), node.deadline()));
            expected.add(node);
        }
        WheelInvariants.check(h.wheel);
        List<TestNode> fired = h.advanceAndPoll(wheelSpanNanos(h.shape) * 8);
        expected.sort(Comparator.comparingLong(TestNode::deadline)); // stable: FIFO ties
        assertThat(fired).containsExactlyElementsOf(expected);
    }

    @EveryShapeAndOrigin
    void drain_sinkThatSchedulesIntoTheSameWheel_leavesItConsistent(Harness h) {
        List<TestNode> nodes = scheduleAll(h, delaysAtEveryLevel(h.shape, h.random()));
        List<TestNode> rescheduled = new ArrayList<>();
        long count = h.wheel.drain(node -> {
            h.wheel.schedule(node, node.deadline()); // "each node is unscheduled ... before the sink sees it"
            rescheduled.add(node);
        });

        assertThat(count).isEqualTo(nodes.size());
        assertThat(rescheduled).containsExactlyInAnyOrderElementsOf(nodes);
        WheelInvariants.check(h.wheel);
        assertThat(h.wheel.size()).isEqualTo(nodes.size());
        assertThat(h.wheel.nextEventTime()).isEqualTo(0);
        rescheduled.sort(Comparator.comparingLong(TestNode::deadline)); // stable: FIFO ties
        assertThat(h.advanceAndPoll(wheelSpanNanos(h.shape) * 8)).containsExactlyElementsOf(rescheduled);
    }

    // ---------------------------------------------------------------------------------------
    // Cancel.

    @EveryShapeAndOrigin
    void cancel_inBucketOverflowAndHeap_trueOnceThenFalse(Harness h) {
        List<TestNode> nodes = scheduleAll(h, delaysAtEveryLevel(h.shape, h.random()));
        Set<Integer> places = new TreeSet<>();
        for (TestNode node : nodes) {
            places.add(locate(h.wheel, node));
        }
        Set<Integer> everyPlace = new TreeSet<>(List.of(HEAP, OVERFLOW));
        for (int level = 0; level < h.shape.levels(); level++) {
            everyPlace.add(level);
        }
        assertThat(places).isEqualTo(everyPlace);

        for (TestNode node : nodes) {
            int place = locate(h.wheel, node);
            assertThat(h.cancel(node)).as("first cancel of %s in %d", node, place).isTrue();
            assertThat(node.isScheduled()).isFalse();
            assertThat(locate(h.wheel, node)).isEqualTo(NOWHERE);
            assertThat(h.cancel(node)).as("second cancel of %s", node).isFalse();
        }
        assertThat(h.pending()).isEmpty();
        assertThat(h.wheel.size()).isZero();
        assertThat(h.wheel.nextEventTime()).isEqualTo(Long.MAX_VALUE);
        assertThat(h.advanceAndPoll(wheelSpanNanos(h.shape) * 8)).isEmpty();
    }

    @EveryShapeAndOrigin
    void cancel_fromHeap_keepsOrder(Harness h) {
        SplittableRandom random = h.random();
        long tickStart = h.tickNanos() * 5;
        List<TestNode> nodes = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            long deadline = tickStart + random.nextLong(h.tickNanos());
            nodes.add(h.scheduleAt(i % 7 == 0 ? tickStart : deadline));
        }
        nodes.sort(FIRING_ORDER);
        h.advanceTo(tickStart + h.tickNanos() - 1);
        assertThat(h.wheel.poll(h.clock.nanoTime())).isSameAs(nodes.remove(0));

        List<TestNode> expected = new ArrayList<>();
        for (TestNode node : nodes) {
            assertThat(locate(h.wheel, node)).isEqualTo(HEAP);
            if (random.nextBoolean()) {
                assertThat(h.cancel(node)).isTrue();
            } else {
                expected.add(node);
            }
        }
        assertThat(h.pollAll()).containsExactlyElementsOf(expected);
    }

    @EveryShapeAndOrigin
    void cancel_ofEverything_leavesNoReference(Harness h) {
        SplittableRandom random = h.random();
        List<TestNode> nodes = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            nodes.add(h.schedule(logUniform(random, wheelSpanNanos(h.shape) * 4)));
        }
        h.advanceTo(h.tickNanos() * 3);
        List<TestNode> fired = h.pollAll();
        Set<TestNode> seenByForEach = Collections.newSetFromMap(new IdentityHashMap<>());
        for (TestNode node : nodes) {
            assertThat(h.cancel(node)).isEqualTo(!fired.contains(node));
            assertThat(node.isScheduled()).isFalse();
        }
        h.wheel.forEach(seenByForEach::add);
        assertThat(seenByForEach).isEmpty();
        for (int level = 0; level < h.shape.levels(); level++) {
            for (int slot = 0; slot < h.shape.slotsPerLevel(); slot++) {
                Bucket bucket = h.wheel.bucket(level, slot);
                assertThat(bucket == null || bucket.isEmpty()).isTrue();
            }
        }
        assertThat(h.wheel.overflowBucket().isEmpty()).isTrue();
        assertThat(h.wheel.dueCount()).isZero();
    }

    // ---------------------------------------------------------------------------------------
    // Helpers.

    /** How many wake-ups at nextEventTime() until {@code node}, alone in the wheel, fires. */
    private static int wakeupsUntilFired(Harness h, TestNode node) {
        int wakeups = 0;
        int rank = rank(h, node);
        while (true) {
            long next = h.wheel.nextEventTime();
            assertThat(next).as("next event").isLessThanOrEqualTo(node.deadline()).isGreaterThan(h.now());
            h.advanceTo(next);
            wakeups++;
            List<TestNode> fired = h.pollAll();
            if (!fired.isEmpty()) {
                assertThat(fired).containsExactly(node);
                assertThat(h.now()).isEqualTo(node.deadline());
                return wakeups;
            }
            int lower = rank(h, node);
            assertThat(lower).as("an event moves the node down").isLessThan(rank);
            rank = lower;
        }
    }

    /** Orders places from the heap (0) up to the overflow (levels + 1). */
    private static int rank(Harness h, TestNode node) {
        int place = locate(h.wheel, node);
        return place == HEAP ? 0 : place == OVERFLOW ? h.shape.levels() + 1 : place + 1;
    }

    private static List<TestNode> scheduleAll(Harness h, List<Long> delays) {
        List<TestNode> nodes = new ArrayList<>();
        for (long delay : delays) {
            nodes.add(h.schedule(delay));
        }
        return nodes;
    }
}
