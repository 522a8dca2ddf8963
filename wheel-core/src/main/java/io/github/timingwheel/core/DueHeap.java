package io.github.timingwheel.core;

import java.util.Arrays;

/**
 * A binary min-heap of the nodes whose tick has come, ordered by (deadline, sequence).
 *
 * <p>Each node records its index ({@link TimerNode#heapIndex}), as the JDK's
 * {@code DelayedWorkQueue} does, so removal of an arbitrary node is O(log k) for a heap of k
 * nodes; k is the size of the bucket that is due, not the number pending.
 *
 * <p>The array shrinks by half when it falls below a quarter full (amortised O(1)), so a burst
 * that passes through does not keep its peak array alive.
 */
final class DueHeap {

    private static final int MIN_CAPACITY = 64;

    private TimerNode[] queue = new TimerNode[MIN_CAPACITY];
    private int size;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    TimerNode peek() {
        return queue[0];
    }

    TimerNode get(int index) {
        return queue[index];
    }

    void add(TimerNode node) {
        if (size == queue.length) {
            queue = Arrays.copyOf(queue, size + (size >>> 1));
        }
        siftUp(size++, node);
    }

    TimerNode poll() {
        TimerNode head = queue[0];
        if (head != null) {
            removeAt(0);
        }
        return head;
    }

    void remove(TimerNode node) {
        removeAt(node.heapIndex);
    }

    /** Removes every node; each one's {@code heapIndex} is reset before it is handed on. */
    void clear(java.util.function.Consumer<TimerNode> sink) {
        TimerNode[] old = queue;
        int oldSize = size;
        queue = new TimerNode[MIN_CAPACITY];
        size = 0;
        for (int i = 0; i < oldSize; i++) {
            old[i].heapIndex = TimerNode.NOT_IN_HEAP;
            sink.accept(old[i]);
        }
    }

    private void removeAt(int index) {
        TimerNode removed = queue[index];
        removed.heapIndex = TimerNode.NOT_IN_HEAP;
        int last = --size;
        TimerNode moved = queue[last];
        queue[last] = null;
        if (index != last) {
            siftDown(index, moved);
            if (queue[index] == moved) {
                siftUp(index, moved);
            }
        }
        maybeShrink();
    }

    private void maybeShrink() {
        int capacity = queue.length;
        if (capacity > MIN_CAPACITY && size < (capacity >>> 2)) {
            queue = Arrays.copyOf(queue, Math.max(MIN_CAPACITY, capacity >>> 1));
        }
    }

    private void siftUp(int index, TimerNode node) {
        while (index > 0) {
            int parentIndex = (index - 1) >>> 1;
            TimerNode parent = queue[parentIndex];
            if (!precedes(node, parent)) {
                break;
            }
            place(index, parent);
            index = parentIndex;
        }
        place(index, node);
    }

    private void siftDown(int index, TimerNode node) {
        int half = size >>> 1;
        while (index < half) {
            int childIndex = 2 * index + 1;
            TimerNode child = queue[childIndex];
            int rightIndex = childIndex + 1;
            if (rightIndex < size && precedes(queue[rightIndex], child)) {
                childIndex = rightIndex;
                child = queue[childIndex];
            }
            if (!precedes(child, node)) {
                break;
            }
            place(index, child);
            index = childIndex;
        }
        place(index, node);
    }

    private void place(int index, TimerNode node) {
        queue[index] = node;
        node.heapIndex = index;
    }

    /**
     * Whether {@code a} runs before {@code b}. Deadlines are wheel times, never negative, so a
     * plain comparison is exact; nodes with equal deadlines and equal sequences (which a
     * caller's own sequences may give) come out in no particular order.
     */
    static boolean precedes(TimerNode a, TimerNode b) {
        return a.deadline < b.deadline || (a.deadline == b.deadline && a.sequence < b.sequence);
    }
}
