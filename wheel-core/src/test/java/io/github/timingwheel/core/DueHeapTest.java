package io.github.timingwheel.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.WheelFixtures.TestNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link DueHeap}: order, indices and removal through growth and shrinking. */
class DueHeapTest {

    private static final Comparator<TimerNode> ORDER = DueHeap::compare;

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
                addNode(heap, model, all, round, random.nextLong(50));
            } else if (choice < 8 && !all.isEmpty()) {
                removeAny(heap, model, all, random);
            } else {
                assertThat(poll(heap)).isSameAs(model.pollFirst());
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
        assertThat(poll(heap)).isNull();
    }

    /**
     * Batches (a tick's bucket handed over at once) of every size around {@link DueHeap#RUN_MIN},
     * some while a run is still being polled, with removals from the run and the heap and single
     * adds in between: every poll agrees with a sorted set. Deadlines span one radix digit,
     * several, and more than a run's keys hold (such batches go to the heap); sequences come in
     * the order of adding, or at random, so that equal deadlines are out of sequence order in
     * the batch. Shown to catch an endBatch that does not sort its run (the nodes then come out
     * in bucket order), a run removal that leaves the node's index set, a radix sort that makes
     * only its first pass, and a run that leaves equal deadlines in bucket order. Runs are also
     * drained by their keys ({@link #drainRun}).
     */
    @ParameterizedTest(name = "deadlines below {0}, sequences at random: {1}")
    @CsvSource({"1000, false", "1000, true", "1099511627776, false", "1099511627776, true",
            "4611686018427387904, true"})
    void batches_runsAndHeap_agreeWithASortedSet(long deadlineBound, boolean randomSequences) {
        SplittableRandom random = new SplittableRandom(11);
        DueHeap heap = new DueHeap();
        TreeSet<TimerNode> model = new TreeSet<>(ORDER);
        List<TimerNode> all = new ArrayList<>();
        int id = 0;
        for (int round = 0; round < 400; round++) {
            int choice = random.nextInt(5);
            if (choice == 0) {
                int n = random.nextInt(2 * DueHeap.RUN_MIN);
                heap.beginBatch();
                for (int i = 0; i < n; i++) {
                    addNode(heap, model, all, id++, deadlineOf(random, deadlineBound),
                            randomSequences ? random.nextLong() : id);
                }
                heap.endBatch();
            } else if (choice == 1) {
                addNode(heap, model, all, id++, deadlineOf(random, deadlineBound), randomSequences ? random.nextLong() : id);
            } else if (choice == 2) {
                for (int i = 0; i < 50 && !all.isEmpty(); i++) {
                    removeAny(heap, model, all, random);
                }
            } else if (choice == 3) {
                for (int i = 0; i < 100; i++) {
                    assertThat(poll(heap)).isSameAs(model.pollFirst());
                }
            } else {
                drainRun(heap, model, random, deadlineBound);
            }
            assertThat(heap.size()).isEqualTo(model.size());
            assertThat(heap.peek()).isSameAs(model.isEmpty() ? null : model.first());
            checkIndices(heap);
        }
        while (!model.isEmpty()) {
            assertThat(poll(heap)).isSameAs(model.pollFirst());
        }
        assertThat(heap.isEmpty()).isTrue();
        assertThat(poll(heap)).isNull();
    }

    /**
     * Drains the run before a random time and bound ({@link DueHeap#drainRunBefore}): what it
     * takes is the model's first nodes, in order, each due and before the bound; and it stops
     * early only at its maximum, or at a node that is not the run's, not due, or not before the
     * heap's head and the bound by deadline. Shown to catch a drain that takes the node whose
     * deadline equals its limit (one not due, or one a tie must keep back).
     */
    private static void drainRun(DueHeap heap, TreeSet<TimerNode> model, SplittableRandom random, long deadlineBound) {
        long now = deadlineOf(random, deadlineBound);
        TimerNode bound = null;
        if (random.nextBoolean()) {
            bound = new TestNode(-1);
            bound.deadline = deadlineOf(random, deadlineBound);
            bound.sequence = random.nextLong();
        }
        int max = 1 + random.nextInt(200);
        TimerNode heapHead = heap.heapSize() == 0 ? null : heap.heapNode(0);
        TimerNode[] into = new TimerNode[max + 1];
        int drained = heap.drainRunBefore(now, bound, into, 1, max);
        for (int i = 1; i <= drained; i++) {
            TimerNode node = into[i];
            assertThat(node).isSameAs(model.pollFirst());
            assertThat(node.deadline).as("due").isLessThanOrEqualTo(now);
            assertThat(bound == null || TimerNode.precedes(node, bound)).as("before the bound").isTrue();
            assertThat(node.heapIndex).isEqualTo(TimerNode.NOT_IN_HEAP);
        }
        assertThat(into[0]).isNull();
        TimerNode next = model.isEmpty() ? null : model.first();
        if (drained < max && next != null && next.heapIndex <= -2) {
            long limit = Math.min(now + 1, heapHead == null ? Long.MAX_VALUE : heapHead.deadline);
            limit = Math.min(limit, bound == null ? Long.MAX_VALUE : bound.deadline);
            assertThat(next.deadline).as("where the drain stopped").isGreaterThanOrEqualTo(limit);
        }
    }

    /**
     * A deadline below {@code bound}; one in four is one of a few values, so that equal
     * deadlines meet in every batch whatever the bound.
     */
    private static long deadlineOf(SplittableRandom random, long bound) {
        return random.nextInt(4) == 0 ? bound / 2 + random.nextInt(3) : random.nextLong(bound);
    }

    /** Adds a node with sequence {@code id} to the heap and the model. */
    private static void addNode(DueHeap heap, TreeSet<TimerNode> model, List<TimerNode> all, int id, long deadline) {
        addNode(heap, model, all, id, deadline, id);
    }

    /** Adds a node to the heap and the model. */
    private static void addNode(DueHeap heap, TreeSet<TimerNode> model, List<TimerNode> all, int id, long deadline,
            long sequence) {
        TimerNode node = new TestNode(id);
        node.deadline = deadline;
        node.sequence = sequence;
        heap.add(node);
        model.add(node);
        all.add(node);
    }

    /** Removes a node picked at random, if it is still in the heap, from the heap and the model. */
    private static void removeAny(DueHeap heap, TreeSet<TimerNode> model, List<TimerNode> all, SplittableRandom random) {
        TimerNode node = all.get(random.nextInt(all.size()));
        if (node.heapIndex != TimerNode.NOT_IN_HEAP) {
            heap.remove(node);
            assertThat(model.remove(node)).isTrue();
        }
        assertThat(node.heapIndex).isEqualTo(TimerNode.NOT_IN_HEAP);
    }

    private static void checkIndices(DueHeap heap) {
        TimerNode previous = null;
        for (TimerNode node : heap.runNodes()) {
            assertThat(heap.inRunAtItsIndex(node)).isTrue();
            assertThat(previous == null || !TimerNode.precedes(node, previous)).as("run order").isTrue();
            previous = node;
        }
        for (int i = 0; i < heap.heapSize(); i++) {
            assertThat(heap.heapNode(i).heapIndex).isEqualTo(i);
            if (i > 0) {
                assertThat(TimerNode.precedes(heap.heapNode((i - 1) / 2), heap.heapNode(i))).isTrue();
            }
        }
    }

    /** What a driver does to take the first node: TimingWheel peeks it and then removes it. */
    private static TimerNode poll(DueHeap heap) {
        TimerNode head = heap.peek();
        if (head != null) {
            heap.remove(head);
        }
        return head;
    }
}
