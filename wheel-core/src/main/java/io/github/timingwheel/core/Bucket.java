package io.github.timingwheel.core;

/**
 * One slot of the wheel: a circular, intrusive, doubly-linked list whose sentinel is this
 * object. Appending and unlinking are O(1) and allocate nothing; an empty bucket's sentinel
 * points to itself.
 *
 * <p>Order within a bucket is append order. The bucket notes whether that is also (deadline,
 * sequence) order ({@link #inOrder}): a level-0 bucket in order is handed to the due nodes as
 * it is, a list to poll from the front (DueHeap's ordered front); any other is walked into the
 * due heap, which restores exact order.
 */
final class Bucket extends TimerNode {

    /** The level of the slot, or {@link #OVERFLOW} for the list beyond the top level. */
    final int level;
    /** The index of the slot within its level's ring. */
    final int slot;
    /**
     * How many nodes were appended since the bucket was last empty, less those the wheel moved
     * out: an upper bound of its length, exact while nothing in it was cancelled. A cancel
     * cannot decrement it (a node does not know its bucket), but the bucket that a cancel
     * empties is reset to 0. The wheel only paces its early cascade by it.
     */
    long count;
    /**
     * Whether every node was appended after one it does not precede by (deadline, sequence),
     * since the bucket was last empty. Unlinking keeps a list in order, so only an append can
     * clear it, and a bucket that becomes empty sets it again.
     */
    boolean inOrder = true;

    static final int OVERFLOW = -1;
    /** The level of DueHeap's ordered front, which is a bucket of no level. */
    static final int DUE_FRONT = -2;

    Bucket(int level, int slot) {
        this.level = level;
        this.slot = slot;
        this.prev = this;
        this.next = this;
    }

    boolean isEmpty() {
        return next == this;
    }

    /** Links {@code node} at the tail. */
    void append(TimerNode node) {
        TimerNode tail = prev;
        // The tail's line is written below anyway, so this reads nothing extra.
        inOrder &= tail == this || !DueHeap.precedes(node, tail);
        node.prev = tail;
        node.next = this;
        tail.next = node;
        prev = node;
        count++;
    }

    /**
     * Unlinks {@code node} from whichever bucket holds it.
     *
     * @return that bucket if the node was its last entry, else null
     */
    static Bucket unlink(TimerNode node) {
        TimerNode before = node.prev;
        TimerNode after = node.next;
        before.next = after;
        after.prev = before;
        node.prev = null;
        node.next = null;
        // A ring always holds its sentinel, so if only one node is left it is the sentinel.
        if (before != after) {
            return null;
        }
        Bucket emptied = (Bucket) before;
        emptied.clearCounts();
        return emptied;
    }

    /**
     * Unlinks the first node, for a cascade that moves the bucket out a few nodes at a time.
     *
     * @return that node, or null if the bucket is empty
     */
    TimerNode removeFirst() {
        TimerNode first = next;
        if (first == this) {
            return null;
        }
        if (unlink(first) == null) {
            count--; // unlink reset it if the bucket is now empty
        }
        return first;
    }

    /**
     * Empties the bucket in O(1), leaving its nodes linked in a ring of their own, for a walk
     * from both ends at once.
     *
     * @return the first of the removed nodes (its {@code prev} is the last, whose {@code next}
     *     is the first), or null if the bucket was empty; the caller must relink or clear each
     *     node
     */
    TimerNode detachRing() {
        if (isEmpty()) {
            return null;
        }
        TimerNode first = next;
        TimerNode last = prev;
        first.prev = last;
        last.next = first;
        prev = this;
        next = this;
        clearCounts();
        return first;
    }

    /**
     * Moves every node of {@code from}, which must not be this bucket, to this empty bucket in
     * O(1), keeping their order, links and count; {@code from} is left empty.
     */
    void takeAll(Bucket from) {
        TimerNode first = from.next;
        TimerNode last = from.prev;
        first.prev = this;
        last.next = this;
        next = first;
        prev = last;
        count = from.count;
        inOrder = from.inOrder;
        from.prev = from;
        from.next = from;
        from.clearCounts();
    }

    /**
     * Empties the bucket in O(1).
     *
     * @return the first of the removed nodes, whose {@code next} links end in null; the nodes
     *     keep stale links, so the caller must relink or clear each one
     */
    TimerNode detachAll() {
        if (isEmpty()) {
            return null;
        }
        TimerNode first = next;
        prev.next = null;
        prev = this;
        next = this;
        clearCounts();
        return first;
    }

    /** What an empty bucket records: no nodes, so none out of order. */
    private void clearCounts() {
        count = 0;
        inOrder = true;
    }

    @Override
    public String toString() {
        return level == OVERFLOW ? "Bucket[overflow]"
                : level == DUE_FRONT ? "Bucket[due front]"
                : "Bucket[level=" + level + ", slot=" + slot + "]";
    }
}
