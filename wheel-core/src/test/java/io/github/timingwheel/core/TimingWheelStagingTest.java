package io.github.timingwheel.core;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.WheelFixtures.TestNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The staging ring of a wheel (TimingWheel [11]) on the narrow shape (1 ms ticks, 64 slots):
 * who is staged, what a cancel leaves, what a full ring places, and that a poll places every
 * staged node before it looks for due ones. The model test drives it at random against a
 * reference; these pin each rule down by name.
 */
class TimingWheelStagingTest {

    private static final int CAPACITY = 8;
    private final TimingWheel<TestNode> wheel = new TimingWheel<>(WheelFixtures.NARROW, 0L, CAPACITY);
    private int nextId;

    /**
     * Staged from STAGE_LEAD_TICKS after the last poll (here the wheel's start): a node due just
     * before is placed at once, one due then is staged, however short its delay.
     */
    @Test
    void aNodeDueWithinTwoTicksOfThePoll_isPlacedAtOnce_oneDueFromThenIsStaged() {
        TestNode soon = schedule(MILLISECONDS.toNanos(2) - 1);
        TestNode later = schedule(MILLISECONDS.toNanos(2));

        assertThat(WheelInvariants.locate(wheel, soon)).isEqualTo(0);
        assertThat(WheelInvariants.locate(wheel, later)).isEqualTo(WheelInvariants.STAGED);
        assertThat(later.isScheduled()).isTrue();
        assertThat(wheel.size()).isEqualTo(2);
        WheelInvariants.check(wheel);
    }

    /**
     * A wheel with a due node left unpolled stops advancing at that node's tick ([9]): the
     * threshold follows the time of the last poll, not currentTick, or in a flood every
     * arrival due now would be staged and placed again (the flood ran at half its rate).
     */
    @Test
    void whileDueNodesWait_anArrivalDueNow_isNotStaged() {
        schedule(MILLISECONDS.toNanos(1));
        long now = MILLISECONDS.toNanos(10_000);
        assertThat(wheel.peekDue(now)).as("a due node left in the heap").isNotNull();

        TestNode dueNow = schedule(now);
        TestNode dueLater = schedule(now + MILLISECONDS.toNanos(66));

        assertThat(WheelInvariants.locate(wheel, dueNow)).isNotEqualTo(WheelInvariants.STAGED);
        assertThat(WheelInvariants.locate(wheel, dueLater)).isEqualTo(WheelInvariants.STAGED);
        WheelInvariants.check(wheel);
    }

    @Test
    void aStagedNode_answersItsDeadline_andBoundsTheNextEvent() {
        long deadline = MILLISECONDS.toNanos(10_000);
        long answer = wheel.schedule(new TestNode(nextId++), deadline);

        assertThat(answer).isEqualTo(deadline);
        assertThat(wheel.nextEventTime()).isEqualTo(deadline);
    }

    @Test
    void aCancelOfAStagedNode_leavesNoReferenceInTheRing() {
        TestNode kept = schedule(MILLISECONDS.toNanos(1_000));
        TestNode cancelled = schedule(MILLISECONDS.toNanos(2_000));

        assertThat(wheel.cancel(cancelled)).isTrue();

        assertThat(cancelled.isScheduled()).isFalse();
        assertThat(wheel.cancel(cancelled)).as("a second cancel").isFalse();
        List<TimerNode> staged = new ArrayList<>();
        wheel.staging().forEach(staged::add);
        assertThat(staged).containsExactly(kept);
        assertThat(wheel.size()).isEqualTo(1);
        WheelInvariants.check(wheel);
    }

    @Test
    void anArrivalAtAFullRing_placesItsOldestQuarter_skippingCancelledOnes() {
        List<TestNode> nodes = new ArrayList<>();
        for (int i = 0; i < CAPACITY; i++) {
            nodes.add(schedule(MILLISECONDS.toNanos(1_000 + i)));
        }
        wheel.cancel(nodes.get(0));

        TestNode arrival = schedule(MILLISECONDS.toNanos(5_000));

        // The oldest quarter of 8 positions: nodes 0 (cancelled) and 1.
        assertThat(WheelInvariants.locate(wheel, nodes.get(1))).isPositive();
        for (int i = 2; i < CAPACITY; i++) {
            assertThat(WheelInvariants.locate(wheel, nodes.get(i))).as("node " + i).isEqualTo(WheelInvariants.STAGED);
        }
        assertThat(WheelInvariants.locate(wheel, arrival)).isEqualTo(WheelInvariants.STAGED);
        assertThat(wheel.stagedPlaced()).isEqualTo(1);
        WheelInvariants.check(wheel);
    }

    @Test
    void aPoll_placesEveryStagedNode_andFiresTheDueOnesInOrder() {
        TestNode second = schedule(MILLISECONDS.toNanos(200));
        TestNode first = schedule(MILLISECONDS.toNanos(100));
        TestNode notDue = schedule(MILLISECONDS.toNanos(300));

        assertThat(wheel.poll(MILLISECONDS.toNanos(99))).isNull();
        assertThat(wheel.staging().isEmpty()).as("nothing staged after a poll").isTrue();
        WheelInvariants.check(wheel);

        assertThat(wheel.poll(MILLISECONDS.toNanos(250))).isSameAs(first);
        assertThat(wheel.poll(MILLISECONDS.toNanos(250))).isSameAs(second);
        assertThat(wheel.poll(MILLISECONDS.toNanos(250))).isNull();
        assertThat(notDue.isScheduled()).isTrue();
    }

    @Test
    void drain_takesStagedNodes_unscheduled() {
        TestNode staged = schedule(MILLISECONDS.toNanos(1_000));
        List<TestNode> drained = new ArrayList<>();

        assertThat(wheel.drain(drained::add)).isEqualTo(1);

        assertThat(drained).containsExactly(staged);
        assertThat(staged.isScheduled()).isFalse();
        assertThat(wheel.isEmpty()).isTrue();
        WheelInvariants.check(wheel);
    }

    @Test
    void aCapacityThatIsNotAPowerOfTwoFromFour_isRefused() {
        for (int capacity : new int[] {-1, 1, 2, 3, 6, StagingRing.MAX_CAPACITY * 2}) {
            assertThatThrownBy(() -> new TimingWheel<TestNode>(WheelFixtures.NARROW, 0L, capacity))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("stagingCapacity");
        }
        assertThat(new TimingWheel<TestNode>(WheelFixtures.NARROW, 0L, 0).staging()).isNull();
    }

    private TestNode schedule(long deadline) {
        TestNode node = new TestNode(nextId++);
        wheel.schedule(node, deadline);
        return node;
    }
}
