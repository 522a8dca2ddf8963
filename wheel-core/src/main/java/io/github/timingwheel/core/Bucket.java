package io.github.timingwheel.core;

/**
 * One slot of the wheel: a circular, intrusive, doubly-linked list whose sentinel is this
 * object. Appending and unlinking are O(1) and allocate nothing; an empty bucket's sentinel
 * points to itself.
 *
 * <p>Order within a bucket is append order, but nothing relies on it: the due heap restores
 * exact (deadline, sequence) order.
 */
final class Bucket extends TimerNode {

    /** The level of the slot, or {@link #OVERFLOW} for the list beyond the top level. */
    final int level;
    /** The index of the slot within its level. */
    final int slot;

    static final int OVERFLOW = -1;

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
        node.prev = tail;
        node.next = this;
        tail.next = node;
        prev = node;
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
        return before == after ? (Bucket) before : null;
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
        return first;
    }

    @Override
    public String toString() {
        return level == OVERFLOW ? "Bucket[overflow]" : "Bucket[level=" + level + ", slot=" + slot + "]";
    }
}
