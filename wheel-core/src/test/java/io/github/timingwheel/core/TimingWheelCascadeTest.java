package io.github.timingwheel.core;

import static io.github.timingwheel.core.TimingWheel.PACING_CHUNK;
import static io.github.timingwheel.core.TimingWheel.WALK_STACK;
import static io.github.timingwheel.core.WheelFixtures.FIRING_ORDER;
import static io.github.timingwheel.core.WheelFixtures.slotSpanNanos;
import static io.github.timingwheel.core.WheelInvariants.locate;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.WheelFixtures.EveryOrigin;
import io.github.timingwheel.core.WheelFixtures.EveryShapeAndOrigin;
import io.github.timingwheel.core.WheelFixtures.Harness;
import io.github.timingwheel.core.WheelFixtures.TestNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The early cascade of {@link TimingWheel} ([3] to [5] of its notes): a large slot moves down in
 * bounded steps ahead of its start, buckets that start at the same tick all cascade, and pacing
 * asks for wake-ups only for slots that hold more than {@link TimingWheel#PACING_CHUNK} nodes.
 * Work is counted in node moves ({@link TimingWheel#movedNodes()}), not in time.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a looping wheel fails, not hangs
class TimingWheelCascadeTest {

    private static final long MS = 1_000_000L;

    /**
     * 100,000 nodes due within one second, 8.5 s ahead: from time 0 they all share one level-2
     * slot (4.096 s), and each level-1 slot (64 ms) of the burst holds about 6,400. A driver
     * that wakes at nextEventTime() sees every node in exact order, and no poll moves more than
     * a pacing chunk per level (levels 1 and 2 pace at once) plus the nodes due in its tick,
     * where moving whole slots at their start would move 6,400 or 100,000 in one poll.
     */
    @EveryOrigin
    void burst_parkedDriver_exactOrderAndNoPollMovesMoreThanPacedChunks(long origin) {
        Harness h = new Harness(WheelFixtures.NARROW, origin);
        List<TestNode> expected = scheduleBurst(h, 100_000, 8_500 * MS, 1_000 * MS);
        long mostInOneTick = mostInOneTick(expected, h.tickNanos());
        WheelInvariants.check(h.wheel);

        long mostMovedInOnePoll = 0;
        List<TestNode> fired = new ArrayList<>();
        for (int wake = 0; !h.wheel.isEmpty(); wake++) {
            long next = h.wheel.nextEventTime();
            assertThat(next).as("next event").isGreaterThan(h.now());
            h.advanceTo(next);
            long movedBefore = h.wheel.movedNodes();
            pollDue(h, fired);
            mostMovedInOnePoll = Math.max(mostMovedInOnePoll, h.wheel.movedNodes() - movedBefore);
            if (wake % 5_000 == 0) {
                WheelInvariants.check(h.wheel);
            }
        }
        expected.sort(FIRING_ORDER);
        assertThat(fired).containsExactlyElementsOf(expected);
        assertThat(mostMovedInOnePoll).isLessThanOrEqualTo(2L * (PACING_CHUNK + 1) + mostInOneTick);
    }

    /**
     * The same burst, but the driver parked before it was scheduled, as a driver that schedules
     * from other threads does: it keeps a bound, lowered by what each schedule returns ([10]),
     * and after each poll set to nextEventTime(). The returns are never after their deadlines,
     * the bound is never after nextEventTime(), and the driver still moves the burst down in
     * paced steps. A schedule that returned its deadline would leave the driver parked until
     * 8.5 s and then re-place whole slots in one poll (the mutant: place returning
     * node.deadline at every level).
     */
    @EveryOrigin
    void burst_driverParkedBeforeIt_wakesAtWhatScheduleReturns_andMovesInPacedSteps(long origin) {
        Harness h = new Harness(WheelFixtures.NARROW, origin);
        long bound = h.wheel.nextEventTime();
        assertThat(bound).as("nothing pending").isEqualTo(Long.MAX_VALUE);
        SplittableRandom random = h.random();
        List<TestNode> expected = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            TestNode node = h.newNode();
            long event = h.wheel.schedule(node, 8_500 * MS + random.nextLong(1_000 * MS));
            assertThat(event).as("returned event").isLessThanOrEqualTo(node.deadline());
            bound = Math.min(bound, event);
            expected.add(node);
        }
        assertThat(bound).as("the bound after the burst: when its slot starts to move down")
                .isLessThanOrEqualTo(h.wheel.nextEventTime());
        long mostInOneTick = mostInOneTick(expected, h.tickNanos());

        long mostMovedInOnePoll = 0;
        List<TestNode> fired = new ArrayList<>();
        while (!h.wheel.isEmpty()) {
            assertThat(bound).as("next event").isGreaterThan(h.now());
            h.advanceTo(bound);
            long movedBefore = h.wheel.movedNodes();
            pollDue(h, fired);
            mostMovedInOnePoll = Math.max(mostMovedInOnePoll, h.wheel.movedNodes() - movedBefore);
            bound = h.wheel.nextEventTime();
        }
        expected.sort(FIRING_ORDER);
        assertThat(fired).containsExactlyElementsOf(expected);
        assertThat(mostMovedInOnePoll).isLessThanOrEqualTo(2L * (PACING_CHUNK + 1) + mostInOneTick);
    }

    /**
     * Whatever the shape, what schedule returns is never after the node's deadline, and a bound
     * lowered by it is never after the earliest pending deadline: a driver parked on it is never
     * late. (It may be after nextEventTime() by less than a tick: for a node at level 0 it is the
     * deadline, not the start of the tick, whose cascade a poll at the deadline catches up.)
     */
    @EveryShapeAndOrigin
    void schedule_returnsABoundOfTheNextEvent(Harness h) {
        SplittableRandom random = h.random();
        long horizon = 4 * slotSpanNanos(h.shape, h.shape.levels() - 1);
        for (int round = 0; round < 200; round++) {
            long bound = h.wheel.nextEventTime();
            for (int i = 0; i < 50; i++) {
                TestNode node = h.newNode();
                long event = h.wheel.schedule(node, h.now() + random.nextLong(horizon));
                assertThat(event).as("returned event").isLessThanOrEqualTo(node.deadline());
                bound = Math.min(bound, event);
                assertThat(bound).as("bound against the earliest deadline")
                        .isLessThanOrEqualTo(h.wheel.peekEarliest().deadline());
            }
            h.advanceTo(h.now() + random.nextLong(horizon / 100 + 1));
            h.pollAll();
        }
    }

    /** Whatever the shape, a burst that crosses slot boundaries of every level polls out in order. */
    @EveryShapeAndOrigin
    void burst_polledEveryFewTicks_exactOrderNeverEarly(Harness h) {
        long window = Math.max(10_000 * h.tickNanos(), slotSpanNanos(h.shape, Math.min(2, h.shape.levels())));
        List<TestNode> expected = scheduleBurst(h, 20_000, window / 2, window);
        SplittableRandom random = h.random();
        List<TestNode> fired = new ArrayList<>();
        for (int poll = 0; !h.wheel.isEmpty(); poll++) {
            h.advanceTo(h.now() + random.nextLong(1, 4 * h.tickNanos()));
            pollDue(h, fired);
            if (poll % 2_000 == 0) {
                WheelInvariants.check(h.wheel);
            }
        }
        expected.sort(FIRING_ORDER);
        assertThat(fired).containsExactlyElementsOf(expected);
    }

    /**
     * What schedule answers, exactly, on the narrow shape (1 ms ticks, 64 slots, 5 levels) at
     * wheel time 0 ([10]): a node due now or at level 0, its deadline; at level 1, the start of
     * its slot, until the slot holds more than PACING_CHUNK nodes, then the time the slot
     * becomes next (one level-1 slot earlier), and nextEventTime() names a pacing step from then
     * on; in the overflow, its next scan. An answer earlier than these is never late, so the
     * bound-checking tests above pass with it; it costs a driver wake-ups that find nothing
     * (the mutants: a level-0 answer of 0, a pacing threshold of PACING_CHUNK itself).
     */
    @Test
    void schedule_answersTheEventItsPlaceNames() {
        TimingWheel<TestNode> wheel = new TimingWheel<>(WheelFixtures.NARROW, 0L);
        int id = 0;
        TestNode dueNow = new TestNode(id++);
        assertThat(wheel.schedule(dueNow, MS / 2)).as("due within the current tick").isEqualTo(MS / 2);
        assertThat(locate(wheel, dueNow)).isEqualTo(WheelInvariants.HEAP);

        TestNode levelZero = new TestNode(id++);
        assertThat(wheel.schedule(levelZero, 10 * MS + 300)).as("level 0").isEqualTo(10 * MS + 300);
        assertThat(locate(wheel, levelZero)).isEqualTo(0);

        long slotStart = 192 * MS; // ticks 192 to 255: slot 3 of level 1
        for (int count = 1; count <= PACING_CHUNK; count++) {
            TestNode node = new TestNode(id++);
            long answer = wheel.schedule(node, slotStart + (count % 64) * MS + 7);
            assertThat(answer).as("node %d of the level-1 slot", count).isEqualTo(slotStart);
            assertThat(locate(wheel, node)).isEqualTo(1);
        }
        assertThat(wheel.nextEventTime()).as("a full chunk is moved in one step").isEqualTo(MS / 2);
        wheel.cancel(dueNow);
        wheel.cancel(levelZero);
        assertThat(wheel.nextEventTime()).as("a slot of PACING_CHUNK nodes: no pacing").isEqualTo(slotStart);

        long becomesNext = slotStart - 64 * MS;
        assertThat(wheel.schedule(new TestNode(id++), slotStart + 5 * MS)).as("one node more than a chunk")
                .isEqualTo(becomesNext);
        long step = (slotStart - becomesNext) / MS * PACING_CHUNK / (PACING_CHUNK + 1);
        assertThat(wheel.nextEventTime()).as("the first pacing step").isEqualTo(becomesNext + step * MS);

        long thirtyDays = 30L * 24 * 3_600_000 * MS; // tick 2,592,000,000: beyond level 4's two laps (2^31)
        TestNode far = new TestNode(id);
        long overflowShift = 5 * 6;
        long nextScanTick = ((thirtyDays / MS >>> overflowShift) - 1) << overflowShift;
        assertThat(wheel.schedule(far, thirtyDays)).as("the overflow").isEqualTo(nextScanTick * MS);
        assertThat(locate(wheel, far)).isEqualTo(WheelInvariants.OVERFLOW);
    }

    /**
     * Whatever the shape, a burst dense enough that its level-1 slots are paced in steps (about
     * 2,500 nodes each), placed from far ahead and driven by a parked driver, polls out in order.
     */
    @EveryShapeAndOrigin
    void denseBurst_parkedDriver_exactOrderNeverEarly(Harness h) {
        long opens = 2 * slotSpanNanos(h.shape, h.shape.levels() - 1);
        List<TestNode> expected = scheduleBurst(h, 20_000, opens, 8 * slotSpanNanos(h.shape, 1));
        List<TestNode> fired = new ArrayList<>();
        for (int wake = 0; !h.wheel.isEmpty(); wake++) {
            long next = h.wheel.nextEventTime();
            assertThat(next).as("next event").isGreaterThan(h.now());
            h.advanceTo(next);
            pollDue(h, fired);
            if (wake % 2_000 == 0) {
                WheelInvariants.check(h.wheel);
            }
        }
        expected.sort(FIRING_ORDER);
        assertThat(fired).containsExactlyElementsOf(expected);
    }

    /**
     * A level-l bucket and a level-(l-1) bucket that start at the same tick T: the first node was
     * placed from time 0 (level l), the second when T was within the next level-l slot (level
     * l-1, where the early cascade would have put the first). One poll at T releases both.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.github.timingwheel.core.WheelFixtures#harnessesOfTwoLevelsOrMore")
    void cascade_bucketsOfTwoLevelsStartingAtOneTick_bothReleased(Harness h) {
        int level = h.shape.levels() - 1;
        long span = slotSpanNanos(h.shape, level);
        long start = 2 * span; // the start of the level's slot index 2
        TestNode placedEarly = h.scheduleAt(start);
        h.advanceTo(span); // the slot is next now, but no time has passed in which to move it
        assertThat(h.pollAll()).isEmpty();
        TestNode placedLater = h.scheduleAt(start);
        TestNode justAfter = h.scheduleAt(start + 1);
        assertThat(locate(h.wheel, placedEarly)).isEqualTo(level);
        assertThat(locate(h.wheel, placedLater)).isEqualTo(level - 1);

        h.advanceTo(start);
        assertThat(h.pollAll()).containsExactly(placedEarly, placedLater);
        assertThat(locate(h.wheel, justAfter)).isNotEqualTo(level).isNotEqualTo(level - 1);
        h.advanceTo(start + 1);
        assertThat(h.pollAll()).containsExactly(justAfter);
    }

    /**
     * Pacing asks for wake-ups only for a slot of more than PACING_CHUNK nodes, only once the
     * slot is next, and about one per chunk; a slot of PACING_CHUNK nodes, or a lone timer, is
     * moved at its start with no wake-up before it.
     */
    @EveryOrigin
    void nextEventTime_pacingStepsOnlyForSlotsAboveTheChunk(long origin) {
        long slotStart = 640 * MS; // level-1 slot 10: next from 576 ms on
        for (int count : new int[] {1, PACING_CHUNK, 4 * PACING_CHUNK}) {
            Harness h = new Harness(WheelFixtures.NARROW, origin);
            List<TestNode> nodes = scheduleBurst(h, count, slotStart, 64 * MS);
            assertThat(locate(h.wheel, nodes.get(0))).isEqualTo(1);

            List<Long> wakesBeforeStart = new ArrayList<>();
            long mostMoved = 0;
            while (true) {
                long next = h.wheel.nextEventTime();
                h.advanceTo(next);
                if (next >= slotStart) {
                    break;
                }
                wakesBeforeStart.add(next);
                long movedBefore = h.wheel.movedNodes();
                assertThat(h.pollAll()).isEmpty();
                mostMoved = Math.max(mostMoved, h.wheel.movedNodes() - movedBefore);
            }
            if (count <= PACING_CHUNK) {
                assertThat(wakesBeforeStart).as("%d nodes", count).isEmpty();
            } else {
                assertThat(wakesBeforeStart).as("%d nodes", count)
                        .hasSizeBetween(1, count / PACING_CHUNK)
                        .allSatisfy(wake -> assertThat(wake).isBetween(slotStart - 64 * MS, slotStart - 1));
                assertThat(mostMoved).isBetween(1L, (long) PACING_CHUNK);
            }
            long movedBefore = h.wheel.movedNodes();
            h.pollAll();
            assertThat(h.wheel.movedNodes() - movedBefore).as("moved at the start")
                    .isLessThanOrEqualTo(PACING_CHUNK + mostInOneTick(nodes, h.tickNanos()));
        }
    }

    /** A node in the next slot moves down during the current slot, not at its start. */
    @EveryOrigin
    void earlyCascade_nextSlotMovesDownBeforeItsStart(long origin) {
        Harness h = new Harness(WheelFixtures.NARROW, origin);
        TestNode node = h.scheduleAt(700 * MS); // level-1 slot 10, starts at 640 ms
        assertThat(locate(h.wheel, node)).isEqualTo(1);
        h.advanceTo(576 * MS); // slot 10 is next from here on
        assertThat(h.pollAll()).isEmpty();
        assertThat(locate(h.wheel, node)).as("next, but no time passed yet").isEqualTo(1);
        h.advanceTo(577 * MS);
        assertThat(h.pollAll()).isEmpty();
        assertThat(locate(h.wheel, node)).as("moved down a tick later").isEqualTo(0);
        h.advanceTo(700 * MS);
        assertThat(h.pollAll()).containsExactly(node);
    }

    // ---------------------------------------------------------------------------------------
    // Helpers.

    /**
     * A driver that wakes long after a burst ([9] of the notes): 20,000 nodes due within 100 ms
     * are polled out at a time after the window. The heap never holds more than one tick's
     * nodes, where advancing every missed tick at once would put all 20,000 in it; the order is
     * still exact and nothing is early.
     */
    @EveryOrigin
    void driverBehindABurst_takesOneTickAtATimeIntoTheHeap(long origin) {
        Harness h = new Harness(WheelFixtures.NARROW, origin);
        List<TestNode> expected = scheduleBurst(h, 20_000, 1_000 * MS, 100 * MS);
        long mostInOneTick = mostInOneTick(expected, h.tickNanos());
        h.advanceTo(2_000 * MS);

        long largestHeap = 0;
        List<TestNode> fired = new ArrayList<>();
        for (TestNode node; (node = h.wheel.poll(h.clock.nanoTime())) != null; ) {
            largestHeap = Math.max(largestHeap, h.wheel.dueCount() + 1); // counting the one polled
            fired.add(node);
            if (fired.size() % 2_000 == 0) {
                WheelInvariants.check(h.wheel);
            }
        }
        expected.sort(FIRING_ORDER);
        assertThat(fired).containsExactlyElementsOf(expected);
        assertThat(largestHeap).as("most nodes in the heap at once; most due in one tick: %d", mostInOneTick)
                .isLessThanOrEqualTo(mostInOneTick);
        WheelInvariants.check(h.wheel);
    }

    /**
     * A mass expiry ([13]): 200,000 nodes scheduled in turn for one instant, 300 ms ahead,
     * reach their level-0 bucket in order (partly by pacing, partly by the cascade at the
     * level-1 slot's start), and the poll at the instant hands out the first of them without
     * moving any: the bucket becomes the due nodes' front whole. Then a third of them are
     * cancelled from the front and the rest come out in scheduling order. The mutant: a wheel
     * that walks the bucket into the heap or a run (DueHeap.adopt returning false) moves all
     * 200,000 in that poll.
     */
    @EveryOrigin
    void massExpiry_inOrder_firstNodeComesOutWithoutWalkingTheTick(long origin) {
        Harness h = new Harness(WheelFixtures.NARROW, origin);
        long instant = 300 * MS;
        List<TestNode> scheduled = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) {
            TestNode node = h.newNode();
            h.wheel.schedule(node, instant);
            scheduled.add(node);
        }
        for (long next; (next = h.wheel.nextEventTime()) < instant; ) {
            h.advanceTo(next);
            assertThat(h.wheel.poll(h.clock.nanoTime())).as("nothing due before the instant").isNull();
        }
        WheelInvariants.check(h.wheel);
        h.advanceTo(instant);
        long movedBefore = h.wheel.movedNodes();

        TestNode first = h.wheel.poll(h.clock.nanoTime());

        assertThat(first).isSameAs(scheduled.get(0));
        assertThat(h.wheel.movedNodes() - movedBefore).as("nodes moved to hand out the first").isZero();
        List<TestNode> expected = new ArrayList<>();
        for (int i = 1; i < scheduled.size(); i++) {
            if (i % 3 == 0) {
                assertThat(h.wheel.cancel(scheduled.get(i))).isTrue();
            } else {
                expected.add(scheduled.get(i));
            }
        }
        WheelInvariants.check(h.wheel);
        List<TestNode> fired = new ArrayList<>();
        pollDue(h, fired);
        assertThat(fired).containsExactlyElementsOf(expected);
        assertThat(h.wheel.isEmpty()).isTrue();
        WheelInvariants.check(h.wheel);
    }

    /**
     * A level-0 bucket keeps its list in order and puts each node that arrives before its
     * tail among its stragglers ([13]): 10,000 nodes for one tick in deadline order, with every
     * hundredth armed a microsecond early, come out in exact order, and handing out the first
     * moves only the hundred stragglers. The mutant: a bucket that appends every node to its
     * list (no stragglers) breaks the list's order (WheelInvariants) and the firing order.
     */
    @EveryOrigin
    void stragglers_areWalkedAlone_andTheOrderedListIsHandedOutWhole(long origin) {
        Harness h = new Harness(WheelFixtures.NARROW, origin);
        long tickStart = 10 * h.tickNanos(); // level 0
        List<TestNode> expected = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            long deadline = tickStart + 2_000 + 10L * i - (i % 100 == 99 ? 1_000 : 0);
            TestNode node = h.newNode();
            h.wheel.schedule(node, deadline);
            expected.add(node);
        }
        WheelInvariants.check(h.wheel);
        assertThat(locate(h.wheel, expected.get(0))).isZero();
        h.advanceTo(tickStart + h.tickNanos());
        long movedBefore = h.wheel.movedNodes();

        TestNode first = h.wheel.poll(h.clock.nanoTime());

        assertThat(h.wheel.movedNodes() - movedBefore).as("nodes walked to hand out the first").isEqualTo(100);
        List<TestNode> fired = new ArrayList<>();
        fired.add(first);
        pollDue(h, fired);
        expected.sort(FIRING_ORDER);
        assertThat(fired).containsExactlyElementsOf(expected);
        WheelInvariants.check(h.wheel);
    }

    /**
     * A burst armed for one instant from another clock (each deadline the instant plus 0 to
     * 199 ns, as two clock reads apart give) is nearly all stragglers ([13]), and they are sorted
     * ahead of the tick ([14]) by a driver that wakes only at nextEventTime(): the poll at the
     * instant hands out the first node without walking any; a third cancelled after the sort
     * (from the bucket's run) and 1,000 more armed after it (stragglers walked at the tick)
     * leave exact order. Mutants: no sort ahead (presortAhead doing nothing) walks all 200,000
     * at the tick; a nextEventTime() that leaves the sort out wakes the driver only at the tick,
     * which then walks them all too.
     */
    @EveryOrigin
    void massExpiry_fromAnotherClock_isSortedAheadOfItsTick(long origin) {
        Harness h = new Harness(WheelFixtures.NARROW, origin);
        long instant = 300 * MS;
        SplittableRandom random = h.random();
        List<TestNode> scheduled = new ArrayList<>();
        for (int i = 0; i < 200_000; i++) {
            TestNode node = h.newNode();
            h.wheel.schedule(node, instant + random.nextLong(200));
            scheduled.add(node);
        }
        wakeAtEachEventBefore(h, instant - 2 * h.tickNanos());
        WheelInvariants.check(h.wheel);
        assertThat(locate(h.wheel, scheduled.get(1))).as("a straggler, in its bucket's run").isZero();
        assertThat(h.wheel.bucket(0, (int) (instant / h.tickNanos()) & (h.wheel.ringSize() - 1)).presorted)
                .as("the bucket's presorted run").isNotNull();
        List<TestNode> expected = new ArrayList<>();
        for (int i = 0; i < scheduled.size(); i++) {
            if (i % 3 == 1) {
                assertThat(h.wheel.cancel(scheduled.get(i))).isTrue();
            } else {
                expected.add(scheduled.get(i));
            }
        }
        for (int i = 0; i < 1_000; i++) {
            TestNode node = h.newNode();
            h.wheel.schedule(node, instant + random.nextLong(200));
            expected.add(node);
        }
        WheelInvariants.check(h.wheel);
        wakeAtEachEventBefore(h, instant);
        h.advanceTo(instant + 200);
        long movedBefore = h.wheel.movedNodes();

        TestNode first = h.wheel.poll(h.clock.nanoTime());

        assertThat(h.wheel.movedNodes() - movedBefore).as("nodes walked to hand out the first")
                .isLessThanOrEqualTo(1_000);
        List<TestNode> fired = new ArrayList<>();
        fired.add(first);
        pollDue(h, fired);
        expected.sort(FIRING_ORDER);
        assertThat(fired).containsExactlyElementsOf(expected);
        assertThat(h.wheel.isEmpty()).isTrue();
        WheelInvariants.check(h.wheel);
    }

    /**
     * A bucket's presorted run ([14]) is seen and emptied like any bucket: peekEarliest finds
     * its first node, forEach visits it, cancelling all of it frees the bucket (its occupancy
     * bit, nextEventTime()), and drain takes every node of it unscheduled.
     */
    @Test
    void presortedRun_isSeenCancelledAndDrainedLikeABucket() {
        Harness h = new Harness(WheelFixtures.NARROW, 0L);
        long tickStart = 40 * h.tickNanos();
        List<TestNode> stragglers = new ArrayList<>();
        h.scheduleAt(tickStart + 5_000); // the list's tail: every later node comes before it
        for (int i = 0; i < TimingWheel.PRESORT_MIN; i++) {
            TestNode node = h.newNode();
            h.wheel.schedule(node, tickStart + 4_000 - i % 1_000);
            stragglers.add(node);
        }
        wakeAtEachEventBefore(h, tickStart);
        Bucket bucket = h.wheel.bucket(0, 40);
        assertThat(bucket.presorted).isNotNull();
        assertThat(bucket.presorted.live()).isEqualTo(TimingWheel.PRESORT_MIN);
        TestNode earliest = stragglers.get(999); // deadline tickStart + 3_001, the first so armed
        assertThat(h.wheel.peekEarliest()).isSameAs(earliest);
        assertThat(h.pending()).hasSize(TimingWheel.PRESORT_MIN + 1).containsAll(stragglers);

        List<TestNode> drainedLater = new ArrayList<>(stragglers.subList(0, 10));
        for (TestNode node : stragglers.subList(10, stragglers.size())) {
            assertThat(h.cancel(node)).isTrue();
        }
        assertThat(bucket.presorted.live()).isEqualTo(10);
        List<TestNode> drained = new ArrayList<>();
        assertThat(h.wheel.drain(drained::add)).isEqualTo(11);
        assertThat(drained).containsAll(drainedLater).allMatch(node -> !node.isScheduled());
        assertThat(bucket.presorted).isNull();
        WheelInvariants.check(h.wheel);

        TestNode again = h.scheduleAt(tickStart + 5_000);
        for (int i = 0; i < TimingWheel.PRESORT_MIN; i++) {
            TestNode node = h.newNode();
            h.wheel.schedule(node, tickStart + 4_000 - i % 1_000);
            stragglers.set(i, node);
        }
        wakeAtEachEventBefore(h, tickStart);
        assertThat(bucket.presorted).isNotNull();
        assertThat(h.cancel(again)).isTrue();
        for (TestNode node : stragglers) {
            assertThat(h.wheel.cancel(node)).isTrue();
        }
        assertThat(bucket.presorted).isNull();
        assertThat(h.wheel.isOccupied(0, 40)).as("the emptied bucket's occupancy bit").isFalse();
        assertThat(h.wheel.nextEventTime()).isEqualTo(Long.MAX_VALUE);
        WheelInvariants.check(h.wheel);
    }

    /** Moves the clock to each nextEventTime() before {@code end} in turn and polls there, finding nothing due. */
    private static void wakeAtEachEventBefore(Harness h, long end) {
        for (long next; (next = h.wheel.nextEventTime()) < end; ) {
            h.advanceTo(Math.max(next, h.now()));
            assertThat(h.wheel.poll(h.clock.nanoTime())).as("nothing due before the instant").isNull();
        }
    }

    /**
     * A tick's ordered front and the nodes that cascade into the heap and a run at the same
     * tick come out merged in exact order ([13], [9]): nodes of tick 128 scheduled at tick 0
     * wait in a level-1 slot that starts at tick 128, in random order; nodes of the same tick
     * scheduled at tick 100, in deadline order, wait in the tick's level-0 bucket.
     */
    @ParameterizedTest(name = "{0} from level 1")
    @ValueSource(ints = {1, DueHeap.RUN_MIN - 1, DueHeap.RUN_MIN, 3 * DueHeap.RUN_MIN})
    void orderedFront_andNodesCascadedAtItsTick_comeOutMergedInOrder(int fromLevelOne) {
        Harness h = new Harness(WheelFixtures.NARROW, 0L);
        long tick = h.tickNanos();
        long tickStart = 128 * tick;
        SplittableRandom random = h.random();
        List<TestNode> expected = new ArrayList<>();
        for (int i = 0; i < fromLevelOne; i++) {
            expected.add(h.scheduleAt(tickStart + random.nextLong(tick)));
        }
        assertThat(locate(h.wheel, expected.get(0))).isEqualTo(1);
        h.advanceTo(100 * tick);
        assertThat(h.pollAll()).isEmpty();
        for (int i = 0; i < 1_000; i++) {
            expected.add(h.scheduleAt(tickStart + i * (tick / 1_000)));
        }
        assertThat(locate(h.wheel, expected.get(expected.size() - 1))).isEqualTo(0);

        h.advanceTo(tickStart + tick);
        List<TestNode> fired = h.pollAll();

        expected.sort(FIRING_ORDER);
        assertThat(fired).containsExactlyElementsOf(expected);
    }

    /**
     * A run is drained by its keys (DueRun [5]): a poll inside the run's tick takes exactly the
     * nodes due then, and one with a bound stops before it, where a bound ahead by sequence
     * keeps back a node of its own deadline; what is left comes out in order. The thousand
     * nodes of one tick, one nanosecond apart in random order, reach the due run from level 1.
     * Shown to catch a drain that takes the node whose deadline equals its limit.
     */
    @Test
    void run_drainedByItsKeys_stopsAtTheClockAndAtTheBound() {
        Harness h = new Harness(WheelFixtures.NARROW, 0L);
        long tickStart = 128 * h.tickNanos(); // a level-1 slot's start
        int count = 1_000;
        List<Long> offsets = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            offsets.add(i);
        }
        Collections.shuffle(offsets, new Random(5));
        List<TestNode> expected = new ArrayList<>();
        for (long offset : offsets) {
            expected.add(h.scheduleAt(tickStart + offset));
        }
        expected.sort(FIRING_ORDER);
        TestNode[] into = new TestNode[count];

        h.advanceTo(tickStart + 499);
        assertThat(h.wheel.pollDue(h.clock.nanoTime(), into, 0, count)).isEqualTo(500);
        assertThat(Arrays.copyOf(into, 500)).containsExactlyElementsOf(expected.subList(0, 500));
        assertThat(expected.get(500).heapIndex).as("in the run").isLessThanOrEqualTo(-2);

        TestNode tie = expected.get(700);
        TestNode bound = new TestNode(-1);
        new TimingWheel<TestNode>(h.shape, 0L).schedule(bound, tie.deadline(), tie.sequence() - 1);
        h.advanceTo(tickStart + count);
        assertThat(h.wheel.pollDueBefore(h.clock.nanoTime(), bound, into, 0, count)).isEqualTo(200);
        assertThat(Arrays.copyOf(into, 200)).containsExactlyElementsOf(expected.subList(500, 700));
        assertThat(h.wheel.size()).isEqualTo(300);
        assertThat(h.pollAll()).containsExactlyElementsOf(expected.subList(700, count));
    }

    /**
     * A cascade walks a bucket from both ends at once and keeps its list order ([12]): the
     * nodes of one tick, scheduled in random order of their deadlines into the level-1 slot
     * that starts at that tick, reach the due run in the order they were scheduled (a run's
     * slot is its arrival index), which DueRun's check for an
     * ordered batch and its ties rely on. The counts put the back half in the stack, fill it
     * exactly, and overflow it so that the front walks on alone, with even and odd counts.
     */
    @ParameterizedTest(name = "{0} nodes")
    @ValueSource(ints = {DueHeap.RUN_MIN, DueHeap.RUN_MIN + 1, 2 * WALK_STACK, 2 * WALK_STACK + 1,
            2 * WALK_STACK + 2, 3 * WALK_STACK + 1})
    void cascade_walksFromBothEnds_keepsListOrder(int count) {
        Harness h = new Harness(WheelFixtures.NARROW, 0L);
        long tickStart = 128 * h.tickNanos(); // a level-1 slot's start: walked whole at that tick
        SplittableRandom random = h.random();
        List<TestNode> scheduled = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            TestNode node = h.newNode();
            h.wheel.schedule(node, tickStart + random.nextLong(h.tickNanos()));
            scheduled.add(node);
        }
        WheelInvariants.check(h.wheel);
        h.advanceTo(tickStart + h.tickNanos());

        assertThat(h.wheel.peekDue(h.clock.nanoTime())).as("a due node").isNotNull(); // the cascade

        assertThat(h.wheel.dueCount()).isEqualTo(count);
        for (int i = 0; i < count; i++) {
            assertThat(DueHeap.runSlotOf(scheduled.get(i).heapIndex)).as("run slot of the node scheduled %d-th", i)
                    .isEqualTo(i);
        }
        List<TestNode> fired = new ArrayList<>();
        pollDue(h, fired);
        scheduled.sort(FIRING_ORDER);
        assertThat(fired).containsExactlyElementsOf(scheduled);
    }

    /** Schedules {@code count} nodes due uniformly in [opens, opens + window), without checks. */
    private static List<TestNode> scheduleBurst(Harness h, int count, long opens, long window) {
        SplittableRandom random = h.random();
        List<TestNode> nodes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            TestNode node = h.newNode();
            h.wheel.schedule(node, opens + random.nextLong(window));
            nodes.add(node);
        }
        return nodes;
    }

    /** Polls every due node into {@code fired}, checking none is early; no invariant check. */
    private static void pollDue(Harness h, List<TestNode> fired) {
        long now = h.now();
        for (TestNode node; (node = h.wheel.poll(h.clock.nanoTime())) != null; ) {
            assertThat(node.deadline()).as("never early").isLessThanOrEqualTo(now);
            fired.add(node);
        }
    }

    private static long mostInOneTick(List<TestNode> nodes, long tickNanos) {
        Map<Long, Long> perTick = new HashMap<>();
        for (TestNode node : nodes) {
            perTick.merge(node.deadline() / tickNanos, 1L, Long::sum);
        }
        return perTick.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }
}
