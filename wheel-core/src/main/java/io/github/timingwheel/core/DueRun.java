package io.github.timingwheel.core;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A batch of due nodes sorted once by (deadline, sequence) and then polled from the front: the
 * bulk of a tick that came due at once (see {@link DueHeap}). Removing a node leaves a hole
 * that polls step over, O(1).
 *
 * <p>The nodes stay where the batch put them ({@code slot}, which each node's
 * {@code heapIndex} names); the order is a separate array of keys, each the node's deadline
 * above its slot, so that sorting moves longs, not references, and touches no node.
 */
final class DueRun {

    /*
     * Implementation notes
     *
     * [1] Why not a comparison sort: each comparison of nodes is two loads from nodes
     *     scattered over the heap, a cache miss each once a tick holds more than the cache.
     *     Here the deadlines and sequences are copied into
     *     arrays while the batch is collected (each node is in hand then), and the order is
     *     found by a least-significant-digit radix sort of the keys: (deadline - earliest) in
     *     the high bits, the slot in the low bits. The sort passes only over the deadline's
     *     bits: LSD radix sort is stable and the keys start in slot order, so equal deadlines
     *     keep the batch's order. A tick's deadlines span at most a tick (2^20 ns for 1 ms),
     *     so two passes of 11 bits, often one.
     * [2] Equal deadlines must then go by sequence. The batch's order is scheduling order
     *     within a shard nearly always, so a group of equal deadlines is checked (a scan of
     *     the copied sequences) and sorted by (deadline, sequence) only when it is out of
     *     order: submissions of several threads on a frozen test clock, say.
     * [3] A batch whose deadlines span more than the key leaves room for (2^(63 - slot bits)
     *     ns, over an hour even for a billion nodes) is not made a run; DueHeap puts it into
     *     its heap instead.
     * [4] A batch already in deadline order is not sorted. It is the common case: timeouts of
     *     one length armed in turn reach a tick in the order they were armed (buckets are
     *     appended to and cascaded in list order). The check costs a comparison per key while
     *     the keys are made; the sort it saves makes two passes over the keys and over a
     *     2,049-entry count array each, dear until the JIT compiles it, which at one tick a
     *     millisecond takes seconds (docs/decisions.md).
     * [5] Draining by the keys. A run's keys hold its deadlines, so a stretch of nodes that
     *     come before a limit is taken out without a load from any node: each node is only
     *     stored to (its heapIndex), and a store that misses the cache does not hold up the
     *     next step as a load would, so the misses of a whole batch are in flight together
     *     where polling node by node waits for each in turn. Whoever takes the nodes next
     *     finds their lines on the way or there.
     * [6] Loads first. Stores leave the core in program order, so a store that misses holds
     *     every later one in the store buffer, which fills after a few dozen: a drain that
     *     stores into nodes the cache does not hold moves at about one miss at a time. So
     *     drainBefore first reads one field of each node it is about to take, in a loop of
     *     independent loads that the core runs many iterations ahead, and only then stores:
     *     the misses overlap in the loads, and the stores find their lines. The loaded values
     *     go to a field ('touched') that nothing reads, so that the compiler keeps the loads.
     *     It paid most where the nodes lie scattered (due in an order that is not the order
     *     they were made in), and also in order (docs/decisions.md).
     */

    private static final int DIGIT_BITS = 11;
    private static final int DIGIT_MASK = (1 << DIGIT_BITS) - 1;

    /** The batch's nodes by slot; a removed node leaves null. */
    private final TimerNode[] nodes;
    /** Keys in (deadline, sequence) order; a key's low slotBits bits name its node's slot. */
    private final long[] order;
    private final long slotMask;
    private final int slotBits;
    /** The least deadline of the batch: a key's deadline is this plus its bits above the slot. */
    private final long earliest;
    private final int end;
    /** The index in 'order' of the next node to poll, or of a hole before it. */
    private int head;
    /** Nodes not yet polled or removed. */
    private int live;
    /** Where touchAhead's loads go, so that the compiler keeps them ([6]); never read. */
    private int touched;

    private DueRun(TimerNode[] nodes, long[] order, int slotBits, long earliest, int size) {
        this.nodes = nodes;
        this.order = order;
        this.slotBits = slotBits;
        this.slotMask = (1L << slotBits) - 1;
        this.earliest = earliest;
        this.end = size;
        this.live = size;
    }

    /**
     * Sorts the first {@code size} nodes of {@code nodes}, whose deadlines and sequences the
     * other two arrays hold at the same indices, into a run; each node's {@code heapIndex}
     * must already name its slot ({@link DueHeap#runIndexOf}).
     *
     * @param deadlines used as scratch space: its contents are lost
     * @return the run, or null if the deadlines span too much for the keys ([3])
     */
    static DueRun sort(TimerNode[] nodes, long[] deadlines, long[] sequences, int size) {
        long earliest = Long.MAX_VALUE;
        long latest = Long.MIN_VALUE;
        for (int i = 0; i < size; i++) {
            earliest = Math.min(earliest, deadlines[i]);
            latest = Math.max(latest, deadlines[i]);
        }
        int slotBits = Math.max(1, Integer.SIZE - Integer.numberOfLeadingZeros(size - 1));
        int spanBits = Long.SIZE - Long.numberOfLeadingZeros(latest - earliest);
        if (slotBits + spanBits > Long.SIZE - 1) {
            return null;
        }
        long[] keys = new long[size];
        boolean inOrder = true;
        for (int i = 0; i < size; i++) {
            keys[i] = (deadlines[i] - earliest) << slotBits | i;
            inOrder &= i == 0 || keys[i - 1] < keys[i];
        }
        long[] sorted = inOrder ? keys : radixSort(keys, deadlines, size, slotBits, slotBits + spanBits); // [4]
        DueRun run = new DueRun(nodes, sorted, slotBits, earliest, size);
        run.orderTies(sequences, slotBits);
        return run;
    }

    /**
     * Sorts {@code keys} by their bits from {@code fromBit} to {@code toBit}, stably ([1]);
     * {@code scratch} holds at least {@code size} longs.
     *
     * @return whichever of the two arrays holds the result
     */
    private static long[] radixSort(long[] keys, long[] scratch, int size, int fromBit, int toBit) {
        int[] starts = new int[DIGIT_MASK + 2];
        for (int shift = fromBit; shift < toBit; shift += DIGIT_BITS) {
            Arrays.fill(starts, 0);
            for (int i = 0; i < size; i++) {
                starts[((int) (keys[i] >>> shift) & DIGIT_MASK) + 1]++;
            }
            if (starts[((int) (keys[0] >>> shift) & DIGIT_MASK) + 1] == size) {
                continue; // every key has this digit: the pass would move nothing
            }
            for (int d = 0; d <= DIGIT_MASK; d++) {
                starts[d + 1] += starts[d];
            }
            for (int i = 0; i < size; i++) {
                long key = keys[i];
                scratch[starts[(int) (key >>> shift) & DIGIT_MASK]++] = key;
            }
            long[] swap = keys;
            keys = scratch;
            scratch = swap;
        }
        return keys;
    }

    /** Puts each group of equal deadlines in sequence order where it is not already ([2]). */
    private void orderTies(long[] sequences, int slotBits) {
        int from = 0;
        while (from < end) {
            long deadlineKey = order[from] >>> slotBits;
            int to = from + 1;
            boolean inOrder = true;
            while (to < end && order[to] >>> slotBits == deadlineKey) {
                inOrder &= sequences[slotOf(to - 1)] <= sequences[slotOf(to)];
                to++;
            }
            if (!inOrder) {
                sortBySequence(sequences, slotBits, from, to, deadlineKey << slotBits);
            }
            from = to;
        }
    }

    /**
     * Sorts the group of equal deadlines at {@code [from, to)} of 'order' by sequence ([2]):
     * as keys of (sequence - least) above the slot, copied from {@code sequences}, where they
     * fit a long (always, for a wheel's own sequences and the executor's), so that no
     * comparison loads a node; else by comparing the nodes.
     */
    private void sortBySequence(long[] sequences, int slotBits, int from, int to, long deadlineBits) {
        long least = Long.MAX_VALUE;
        long most = Long.MIN_VALUE;
        for (int i = from; i < to; i++) {
            long sequence = sequences[slotOf(i)];
            least = Math.min(least, sequence);
            most = Math.max(most, sequence);
        }
        long span = most - least; // negative if it overflows: a caller's sequences far apart
        if (span >= 0 && Long.SIZE - Long.numberOfLeadingZeros(span) + slotBits <= Long.SIZE - 1) {
            long[] keys = new long[to - from];
            for (int i = from; i < to; i++) {
                int slot = slotOf(i);
                keys[i - from] = (sequences[slot] - least) << slotBits | slot;
            }
            Arrays.sort(keys);
            for (int i = from; i < to; i++) {
                order[i] = deadlineBits | (keys[i - from] & slotMask);
            }
            return;
        }
        TimerNode[] group = new TimerNode[to - from];
        for (int i = from; i < to; i++) {
            group[i - from] = nodes[slotOf(i)];
        }
        Arrays.sort(group, DueHeap::compare);
        for (int i = from; i < to; i++) {
            order[i] = deadlineBits | DueHeap.runSlotOf(group[i - from].heapIndex);
        }
    }

    private int slotOf(int orderIndex) {
        return (int) (order[orderIndex] & slotMask);
    }

    /** The first node not yet polled or removed, or null if none is left. */
    TimerNode peek() {
        if (live == 0) {
            return null;
        }
        TimerNode node;
        while ((node = nodes[slotOf(head)]) == null) {
            head++; // a hole: live > 0 says a node lies ahead
        }
        return node;
    }

    /**
     * Takes out the node that {@link #peek} returned last, which must not have been removed
     * since: its slot comes from the order, not from the node, so that the next peek does not
     * wait for the node's line to learn which slot it must skip.
     */
    void removeHead() {
        int slot = slotOf(head++);
        nodes[slot].heapIndex = TimerNode.NOT_IN_HEAP;
        nodes[slot] = null;
        live--;
    }

    /**
     * Takes out, in order, the nodes whose deadlines are before {@code limit}, at most
     * {@code max} of them, into {@code into} from index {@code from} ([5], [6]).
     *
     * @return how many it took out
     */
    int drainBefore(long limit, TimerNode[] into, int from, int max) {
        long span = limit - earliest; // the keys' deadline bits must stay below it
        if (span <= 0) {
            return 0;
        }
        touchAhead(span, max);
        int count = 0;
        while (count < max && live > 0) {
            long key = order[head];
            if (key >>> slotBits >= span) {
                break;
            }
            head++;
            int slot = (int) (key & slotMask);
            TimerNode node = nodes[slot];
            if (node == null) {
                continue; // a hole
            }
            node.heapIndex = TimerNode.NOT_IN_HEAP;
            nodes[slot] = null;
            live--;
            into[from + count++] = node;
        }
        return count;
    }

    /**
     * Reads a field of each node that {@code drainBefore(span, max)} is about to take, so that
     * their cache misses overlap before it stores into them ([6]).
     */
    private void touchAhead(long span, int max) {
        int sum = 0;
        int stop = Math.min(end, head + max);
        for (int i = head; i < stop; i++) {
            long key = order[i];
            if (key >>> slotBits >= span) {
                break;
            }
            TimerNode node = nodes[(int) (key & slotMask)];
            if (node != null) {
                sum += node.heapIndex;
            }
        }
        touched = sum;
    }

    /** Takes out the node in {@code slot}, leaving a hole. */
    void remove(int slot) {
        nodes[slot].heapIndex = TimerNode.NOT_IN_HEAP;
        nodes[slot] = null;
        live--;
    }

    /** Nodes not yet polled or removed. */
    int live() {
        return live;
    }

    /** Calls {@code action} on every node left, in order. */
    void forEachInOrder(Consumer<TimerNode> action) {
        for (int i = head; i < end; i++) {
            TimerNode node = nodes[slotOf(i)];
            if (node != null) {
                action.accept(node);
            }
        }
    }

    /** Whether {@code node} sits in this run's {@code slot}. */
    boolean holds(TimerNode node, int slot) {
        return slot < end && nodes[slot] == node;
    }
}
