package io.github.timingwheel.core;

import static io.github.timingwheel.core.WheelInvariants.HEAP;
import static io.github.timingwheel.core.WheelInvariants.OVERFLOW;
import static io.github.timingwheel.core.WheelInvariants.locate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.WheelFixtures.TestNode;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The invariant checker itself: it passes a healthy wheel and fails each kind of corruption. */
class WheelInvariantsTest {

    private static final long MS = 1_000_000L;

    /** A wheel of the narrow shape holding nodes in the heap (0), level 0 (5 ms), level 2, overflow. */
    private final TimingWheel<TestNode> wheel = new TimingWheel<>(WheelFixtures.NARROW, 0L);
    private final TestNode inHeap = scheduled(0, 0);
    private final TestNode inLevel0 = scheduled(1, 5 * MS);
    private final TestNode alsoInLevel0 = scheduled(2, 5 * MS);
    private final TestNode inLevel2 = scheduled(3, 3 * 4096 * MS);
    private final TestNode inOverflow = scheduled(4, 3L * (1L << 30) * MS);

    private TestNode scheduled(int id, long deadline) {
        TestNode node = new TestNode(id);
        wheel.schedule(node, deadline);
        return node;
    }

    @Test
    void healthyWheel_passes() {
        assertThatCode(() -> WheelInvariants.check(wheel)).doesNotThrowAnyException();
        assertThat(List.of(locate(wheel, inHeap), locate(wheel, inLevel0), locate(wheel, inLevel2),
                locate(wheel, inOverflow))).containsExactly(HEAP, 0, 2, OVERFLOW);
    }

    @Test
    void nodeInTheWrongSlot_fails() {
        assertCorruptionCaught(w -> inLevel0.deadline += MS);
    }

    @Test
    void nodeAtTooLowALevel_fails() {
        assertCorruptionCaught(w -> inLevel0.deadline += 64 * MS);
    }

    @Test
    void nodeInItsRingSlotButBeyondTwoLaps_fails() {
        assertCorruptionCaught(w -> inLevel0.deadline += 128 * MS); // same ring slot, a full ring later
    }

    @Test
    void bucketCountBelowItsLength_fails() {
        assertCorruptionCaught(w -> w.bucket(0, 5).count = 1);
    }

    @Test
    void bucketWithoutItsOccupancyBit_fails() {
        assertCorruptionCaught(w -> {
            TestNode maker = new TestNode(5); // a slot's bucket is made by its first node (TimingWheel [15])
            w.schedule(maker, 9 * MS);
            w.cancel(maker);
            Bucket.unlink(alsoInLevel0);
            w.bucket(0, 9).append(alsoInLevel0);
            alsoInLevel0.deadline = 9 * MS;
        });
    }

    @Test
    void occupancyBitOfAnEmptyBucket_fails() {
        assertCorruptionCaught(w -> {
            Bucket.unlink(inLevel2);
            w.bucket(0, 5).append(inLevel2);
            inLevel2.deadline = 5 * MS;
        });
    }

    @Test
    void heapNodeNotYetDueByTick_fails() {
        assertCorruptionCaught(w -> inHeap.deadline = 7 * MS);
    }

    @Test
    void wrongHeapIndex_fails() {
        assertCorruptionCaught(w -> inHeap.heapIndex = 1);
    }

    @Test
    void overflowNodeBelowTheBound_fails() {
        assertCorruptionCaught(w -> inOverflow.deadline = (1L << 30) * MS);
    }

    @Test
    void brokenBackLink_fails() {
        assertCorruptionCaught(w -> alsoInLevel0.prev = alsoInLevel0);
    }

    @Test
    void nodeLostWithoutSizeChange_fails() {
        assertCorruptionCaught(w -> Bucket.unlink(alsoInLevel0));
    }

    private void assertCorruptionCaught(Consumer<TimingWheel<TestNode>> corruption) {
        WheelInvariants.check(wheel);
        corruption.accept(wheel);
        assertThatThrownBy(() -> WheelInvariants.check(wheel)).isInstanceOf(AssertionError.class);
    }
}
