package io.github.timingwheel.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.WheelFixtures.TestNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** {@link DueHeap}: order, indices and removal through growth and shrinking. */
class DueHeapTest {

    private static final Comparator<TimerNode> ORDER =
            (a, b) -> DueHeap.precedes(a, b) ? -1 : DueHeap.precedes(b, a) ? 1 : 0;

    @Test
    void addRemovePoll_agreeWithASortedSet() {
        SplittableRandom random = new SplittableRandom(7);
        DueHeap heap = new DueHeap();
        TreeSet<TimerNode> model = new TreeSet<>(ORDER);
        List<TimerNode> all = new ArrayList<>();
        for (int round = 0; round < 40_000; round++) {
            int choice = random.nextInt(10);
            int burst = round % 5_000 < 2_500 ? 6 : 2; // grow past the initial array, then shrink
            if (choice < burst) {
                TimerNode node = new TestNode(round);
                node.deadline = random.nextLong(50);
                node.sequence = round;
                heap.add(node);
                model.add(node);
                all.add(node);
            } else if (choice < 8 && !all.isEmpty()) {
                TimerNode node = all.get(random.nextInt(all.size()));
                if (node.heapIndex != TimerNode.NOT_IN_HEAP) {
                    heap.remove(node);
                    assertThat(model.remove(node)).isTrue();
                }
                assertThat(node.heapIndex).isEqualTo(TimerNode.NOT_IN_HEAP);
            } else {
                assertThat(heap.poll()).isSameAs(model.pollFirst());
            }
            assertThat(heap.size()).isEqualTo(model.size());
            assertThat(heap.peek()).isSameAs(model.isEmpty() ? null : model.first());
            if (round % 1_000 == 0) {
                checkIndices(heap);
            }
        }
        List<TimerNode> cleared = new ArrayList<>();
        heap.clear(cleared::add);
        assertThat(cleared).containsExactlyInAnyOrderElementsOf(model);
        assertThat(cleared).allMatch(node -> node.heapIndex == TimerNode.NOT_IN_HEAP);
        assertThat(heap.isEmpty()).isTrue();
        assertThat(heap.poll()).isNull();
    }

    private static void checkIndices(DueHeap heap) {
        for (int i = 0; i < heap.size(); i++) {
            assertThat(heap.get(i).heapIndex).isEqualTo(i);
            if (i > 0) {
                assertThat(DueHeap.precedes(heap.get((i - 1) / 2), heap.get(i))).isTrue();
            }
        }
    }
}
