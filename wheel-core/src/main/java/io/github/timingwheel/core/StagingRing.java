package io.github.timingwheel.core;

import java.util.function.Consumer;

/**
 * Padding before a {@link StagingRing}'s fields, so that the rings of wheels that threads on
 * different cores use never share a cache line ('p00' as in TimingWheelPad).
 */
abstract class StagingRingPad {
    int p00;
    long p01, p02, p03, p04, p05, p06, p07, p08;
}

/**
 * A {@link TimingWheel}'s most recent arrivals that are not due soon, kept in arrival order
 * until they have lived long enough to be worth placing: a node cancelled while it is here
 * costs a store of null, not a slot's computation, a link and an unlink. Most network timeouts
 * are cancelled soon after they are armed (the reply came), so most never reach a slot.
 *
 * <p>A node here counts as scheduled: {@code heapIndex} holds {@link #BASE} plus its index in
 * the ring, which neither the due heap (0 and up) nor the due run (-2 down to about
 * -2^31 + 2^16) uses. The wheel places the nodes here (TimingWheel [11]): the oldest quarter
 * when an arrival finds the ring full, and all of them at the start of every poll. Not
 * thread-safe: the wheel's own rule.
 */
final class StagingRing extends StagingRingPad {

    /*
     * Implementation notes
     *
     * [1] Positions 'head' to 'tail' (ints that only grow, masked into the array) hold the
     *     nodes in arrival order, with null where a node was cancelled; 'live' counts the
     *     others. A cancel nulls its node's entry at once, so the ring keeps no reference to a
     *     node that left it. When 'live' drops to 0 both positions go back to 0, so a ring
     *     whose nodes are all cancelled starts over instead of filling up with nulls.
     * [2] 'earliest' is a lower bound of the deadlines of the nodes here, lowered by each
     *     arrival and reset when the ring empties; a cancel leaves it (a stale bound costs a
     *     driver one early poll, which empties the ring).
     */

    private static final int MAX_CAPACITY_BITS = 16;
    /** The largest capacity: heapIndex values from BASE to BASE + MAX_CAPACITY - 1 mean staged. */
    static final int MAX_CAPACITY = 1 << MAX_CAPACITY_BITS;
    static final int BASE = Integer.MIN_VALUE;

    private final TimerNode[] nodes;
    private final int mask;
    private int head;
    private int tail;
    private int live;
    private long earliest = Long.MAX_VALUE;
    long p11, p12, p13, p14, p15, p16, p17, p18;

    /**
     * @param capacity a power of two from 4 to {@link #MAX_CAPACITY}
     * @throws IllegalArgumentException otherwise
     */
    StagingRing(int capacity) {
        if (capacity < 4 || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("stagingCapacity must be 0 or a power of two from 4 to "
                    + MAX_CAPACITY + ": " + capacity);
        }
        this.nodes = new TimerNode[capacity];
        this.mask = capacity - 1;
    }

    /** Whether {@code node} is in a staging ring (of the wheel it is scheduled in). */
    static boolean isStaged(TimerNode node) {
        return (node.heapIndex - BASE) >>> MAX_CAPACITY_BITS == 0; // from BASE to BASE + MAX_CAPACITY - 1
    }

    /** Whether {@code node}, marked staged, is the entry at the index its heapIndex names. */
    boolean holdsAtItsIndex(TimerNode node) {
        return isStaged(node) && (node.heapIndex - BASE) < nodes.length && nodes[node.heapIndex - BASE] == node;
    }

    boolean isFull() {
        return tail - head == nodes.length;
    }

    boolean isEmpty() {
        return live == 0;
    }

    /** Staged nodes, not counting cancelled ones. */
    int size() {
        return live;
    }

    /** A lower bound of the staged deadlines ([2]); Long.MAX_VALUE if none is staged. */
    long earliest() {
        return earliest;
    }

    /** Adds a node that is not scheduled; the ring must not be full. */
    void add(TimerNode node) {
        int index = tail++ & mask;
        nodes[index] = node;
        node.heapIndex = BASE + index;
        live++;
        if (node.deadline < earliest) {
            earliest = node.deadline;
        }
    }

    /** Removes a staged node of this ring ([1]). */
    void remove(TimerNode node) {
        nodes[node.heapIndex - BASE] = null;
        node.heapIndex = TimerNode.NOT_IN_HEAP;
        if (--live == 0) {
            reset();
        }
    }

    /** The position after the oldest {@code positions} positions (or after the last). */
    int endOfOldest(int positions) {
        return head + Math.min(positions, tail - head);
    }

    /** The position after the last: with {@link #takeBefore}, takes every node. */
    int end() {
        return tail;
    }

    /**
     * Takes the oldest node at a position before {@code end} out of the ring, unscheduled, or
     * gives null if there is none ([1]); each call moves past the cancelled entries before it.
     */
    TimerNode takeBefore(int end) {
        while (live > 0 && end - head > 0) {
            int index = head++ & mask;
            TimerNode node = nodes[index];
            if (node != null) {
                nodes[index] = null;
                node.heapIndex = TimerNode.NOT_IN_HEAP;
                if (--live == 0) {
                    reset();
                }
                return node;
            }
        }
        return null;
    }

    /** The ring's capacity. */
    int capacity() {
        return nodes.length;
    }

    /** Hands every staged node to {@code action} without removing it. */
    void forEach(Consumer<TimerNode> action) {
        for (int position = head; position != tail; position++) {
            TimerNode node = nodes[position & mask];
            if (node != null) {
                action.accept(node);
            }
        }
    }

    private void reset() {
        head = 0;
        tail = 0;
        earliest = Long.MAX_VALUE;
    }
}
