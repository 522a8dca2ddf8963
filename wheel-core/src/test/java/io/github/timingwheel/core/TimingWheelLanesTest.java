package io.github.timingwheel.core;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.WheelFixtures.TestNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lanes of the low levels' slots (TimingWheel [12]) on the default shape (1 ms ticks, 64
 * slots): a slot makes them when it grows, the wheel's own moves go round them while arrivals
 * at level 0 keep to the first, the slot is empty only when every lane is, and a cascade or a
 * pacing step that walks the lanes together hands every node on, in order. The model test
 * drives them at random against a reference; these pin each rule down by name.
 */
class TimingWheelLanesTest {

    private static final long MS = MILLISECONDS.toNanos(1);
    /** Level 1, slot 10 (640 to 703 ms): next from 576 ms. */
    private static final long LEVEL_ONE = 700 * MS;
    /** Slots make their lanes at this many nodes here, not LANES_FROM: tests stay small. */
    private static final int LANES_FROM = 16;
    private final TimingWheel<TestNode> wheel = new TimingWheel<>(WheelShape.defaults(), 0L, 0, LANES_FROM);
    private int nextId;

    @Test
    void aSlotMakesItsLanes_whenItsFirstLaneHoldsTheThreshold_andKeepsThem() {
        List<TestNode> first = scheduleAt(LEVEL_ONE, LANES_FROM);
        assertThat(levelOneSlot().laneCount()).isEqualTo(1);

        TestNode next = scheduleAt(LEVEL_ONE, 1).get(0);

        assertThat(levelOneSlot().laneCount()).isEqualTo(TimingWheel.LANES);
        assertThat(levelOneSlot().lane(0).prev).isSameAs(next);
        first.add(next);
        for (TestNode node : first) {
            assertThat(wheel.cancel(node)).isTrue();
        }
        assertThat(wheel.isOccupied(1, 10)).isFalse();
        assertThat(levelOneSlot().laneCount()).as("kept once empty").isEqualTo(TimingWheel.LANES);
        WheelInvariants.check(wheel);
    }

    @Test
    void appendsToASlot_goRoundItsLanes() {
        makeLanes(LEVEL_ONE);
        List<TestNode> nodes = scheduleAt(LEVEL_ONE, 2 * TimingWheel.LANES + 1);

        Bucket slot = levelOneSlot();
        for (int lane = 0; lane < TimingWheel.LANES; lane++) {
            assertThat(slot.lane(lane).next).as("lane %d's first", lane).isSameAs(nodes.get(lane));
        }
        assertThat(slot.lane(0).prev).as("lane 0's last").isSameAs(nodes.get(2 * TimingWheel.LANES));
        assertThat(slot.slotCount()).isEqualTo(nodes.size());
        WheelInvariants.check(wheel);
    }

    /** Short timers scheduled straight into level 0 keep to one list, as before lanes. */
    @Test
    void arrivalsAtLevelZero_keepToTheFirstLane() {
        List<TestNode> nodes = scheduleAt(5 * MS, 4 * LANES_FROM);

        Bucket slot = wheel.bucket(0, 5);
        assertThat(slot.laneCount()).isEqualTo(1);
        assertThat(slot.count).isEqualTo(nodes.size());
        WheelInvariants.check(wheel);
    }

    @Test
    void aSlotStaysOccupied_untilItsLastLaneEmpties_thenAppendsStartAgainAtLaneZero() {
        makeLanes(LEVEL_ONE);
        List<TestNode> nodes = scheduleAt(LEVEL_ONE, TimingWheel.LANES + 1); // the next append's lane: 1

        for (int i = 0; i < nodes.size() - 1; i++) {
            assertThat(wheel.cancel(nodes.get(i))).isTrue();
            assertThat(wheel.isOccupied(1, 10)).as("after %d cancels", i + 1).isTrue();
            WheelInvariants.check(wheel);
        }
        assertThat(wheel.cancel(nodes.get(nodes.size() - 1))).isTrue();
        assertThat(wheel.isOccupied(1, 10)).isFalse();
        WheelInvariants.check(wheel);

        TestNode again = scheduleAt(LEVEL_ONE, 1).get(0);
        assertThat(levelOneSlot().lane(0).next).isSameAs(again);
    }

    /** A level 1 slot's nodes move down lane by lane, by pacing steps and the cascade, into laned level 0 slots. */
    @Test
    void aLevelOneSlotOfThousands_movesDownLaneByLane_losingNone_inOrder() {
        int count = 3 * TimingWheel.PACING_CHUNK + 7;
        List<TestNode> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            nodes.addAll(scheduleAt(640 * MS + (i % 64) * MS, 1));
        }
        assertThat(WheelInvariants.locate(wheel, nodes.get(0))).isEqualTo(1);

        List<TestNode> polled = new ArrayList<>();
        boolean levelZeroLaned = false;
        for (long now = 0; now <= 710 * MS; now += MS) {
            polled.addAll(pollAllAt(now));
            for (int slot = 0; slot < wheel.ringSize(); slot++) {
                levelZeroLaned |= wheel.bucket(0, slot).laneCount() > 1;
            }
            WheelInvariants.check(wheel);
        }

        assertThat(levelZeroLaned).as("level 0 slots filled by the wheel's moves made lanes").isTrue();
        assertThat(polled).containsExactlyInAnyOrderElementsOf(nodes);
        for (int i = 1; i < polled.size(); i++) {
            assertThat(DueHeap.precedes(polled.get(i), polled.get(i - 1))).as("order at %d", i).isFalse();
        }
    }

    /**
     * Nodes of one instant reach their level 0 slot in the order they came, through lanes made
     * after the first LANES_FROM and paced steps of uneven sizes, so that the due heap finds
     * them in order and need not sort them (DueRun [4]); 200,000 timers of one instant then
     * cost no comparison sort of nodes.
     */
    @Test
    void oneInstantsNodes_reachLevelZero_inTheOrderTheyCame() {
        List<TestNode> nodes = scheduleAt(LEVEL_ONE, 4 * TimingWheel.PACING_CHUNK + 3);
        assertThat(levelOneSlot().laneCount()).isEqualTo(TimingWheel.LANES);
        for (long now = 576 * MS; now < LEVEL_ONE; now += 7 * MS) {
            assertThat(pollAllAt(now)).isEmpty(); // pacing steps of uneven sizes
        }
        assertThat(pollAllAt(LEVEL_ONE - MS)).isEmpty();
        assertThat(WheelInvariants.locate(wheel, nodes.get(nodes.size() - 1))).isEqualTo(0);

        Bucket slot = wheel.bucket(0, (int) (LEVEL_ONE / MS) & (wheel.ringSize() - 1));
        List<TimerNode> walked = new ArrayList<>();
        List<TimerNode> cursors = new ArrayList<>();
        for (int i = 0; i < slot.laneCount(); i++) {
            cursors.add(slot.lane((slot.nextTake + i) & (slot.laneCount() - 1)).next);
        }
        for (boolean any = true; any; ) {
            any = false;
            for (int i = 0; i < cursors.size(); i++) {
                TimerNode node = cursors.get(i);
                if (!(node instanceof Bucket)) {
                    walked.add(node);
                    cursors.set(i, node.next);
                    any = true;
                }
            }
        }
        assertThat(walked).containsExactlyElementsOf(nodes);
    }

    /**
     * A pacing step moves its share of a large next slot from the lanes that hold nodes, even
     * when the lane it starts with is empty (its nodes all cancelled).
     */
    @Test
    void aPacingStep_takesItsShareFromTheOtherLanes_whenOneLaneIsEmpty() {
        makeLanes(LEVEL_ONE);
        List<TestNode> nodes = scheduleAt(LEVEL_ONE, 4 * TimingWheel.PACING_CHUNK);
        for (int i = 0; i < nodes.size(); i += TimingWheel.LANES) {
            assertThat(wheel.cancel(nodes.get(i))).isTrue(); // all of lane 0
        }
        assertThat(levelOneSlot().lane(0).isEmpty()).isTrue();
        assertThat(pollAllAt(576 * MS)).isEmpty();

        long movedBefore = wheel.movedNodes();
        assertThat(pollAllAt(600 * MS)).isEmpty();

        assertThat(wheel.movedNodes() - movedBefore).as("moved down by the pacing steps to 600 ms")
                .isGreaterThan(TimingWheel.PACING_CHUNK / 2);
        assertThat(WheelInvariants.locate(wheel, nodes.get(1))).isEqualTo(0);
        WheelInvariants.check(wheel);
    }

    private Bucket levelOneSlot() {
        return wheel.bucket(1, 10);
    }

    /** Makes the lanes of the slot of {@code deadline}, and leaves it empty, appends starting at lane 0. */
    private void makeLanes(long deadline) {
        for (TestNode node : scheduleAt(deadline, LANES_FROM + 1)) {
            assertThat(wheel.cancel(node)).isTrue();
        }
    }

    private List<TestNode> scheduleAt(long deadline, int count) {
        List<TestNode> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            TestNode node = new TestNode(nextId++);
            wheel.schedule(node, deadline);
            nodes.add(node);
        }
        return nodes;
    }

    private List<TestNode> pollAllAt(long now) {
        List<TestNode> polled = new ArrayList<>();
        for (TestNode node; (node = wheel.poll(now)) != null; ) {
            polled.add(node);
        }
        return polled;
    }
}
