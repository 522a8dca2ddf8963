package io.github.timingwheel.core;

/**
 * One slot of the wheel: a circular, intrusive, doubly-linked list whose sentinel is this
 * object. Appending and unlinking are O(1) and allocate nothing; an empty bucket's sentinel
 * points to itself.
 *
 * <p>Order within a list is append order. A level-0 bucket keeps two lists: its own, always in
 * (deadline, sequence) order, and {@link #stragglers}, for each node that arrived before its
 * list's tail by that order; and, once its stragglers were sorted ahead of its tick, a
 * {@link #presorted} run of them. At the bucket's tick its own list is handed to the due nodes
 * as it is, to be polled from the front (DueHeap's ordered front), the presorted run with it,
 * and only the stragglers that came after the presort are walked and sorted. Unlinking keeps a
 * list in order.
 */
final class Bucket extends TimerNode {

    /** The level of the slot, or {@link #OVERFLOW} for the list beyond the top level. */
    final int level;
    /** The index of the slot within its level's ring. */
    final int slot;
    /**
     * How many nodes were appended since the list was last empty, less those the wheel moved
     * out: an upper bound of its length, exact while nothing in it was cancelled. A cancel
     * cannot decrement it (a node does not know its bucket), but the list that a cancel
     * empties is reset to 0. The wheel paces its early cascade by it and sizes a batch.
     */
    long count;
    /**
     * For a level-0 bucket, the list of the nodes that arrived out of order ({@link #add});
     * null for any other list, and for a stragglers list itself.
     */
    final Bucket stragglers;
    /** The bucket this list belongs to: itself, or for a stragglers list its level-0 bucket. */
    final Bucket owner;
    /**
     * For a level-0 bucket, its stragglers as sorted ahead of its tick (TimingWheel [14]), or
     * null; its nodes are in no list (their heapIndex names their slot in the run).
     */
    DueRun presorted;

    static final int OVERFLOW = -1;
    /** The level of DueHeap's ordered front, which is a list of no level. */
    static final int DUE_FRONT = -2;

    /** A bucket of one list (levels above 0, the overflow, the due front). */
    Bucket(int level, int slot) {
        this(level, slot, null, false);
    }

    private Bucket(int level, int slot, Bucket owner, boolean withStragglers) {
        this.level = level;
        this.slot = slot;
        this.prev = this;
        this.next = this;
        this.owner = owner == null ? this : owner;
        this.stragglers = withStragglers ? new Bucket(level, slot, this, false) : null;
    }

    /**
     * DueHeap's ordered front, whose sentinel has the deadline Long.MAX_VALUE, so that the
     * deadline of its first node, or of the sentinel when it is empty, bounds a drain without a
     * test for emptiness: a branch that a compiled drain may never have seen taken, and whose
     * first taking, in the middle of a burst, threw the compiled drain away.
     */
    static Bucket dueFront() {
        Bucket front = new Bucket(DUE_FRONT, 0);
        front.deadline = Long.MAX_VALUE;
        return front;
    }

    /** A level-0 bucket: a list kept in order, and beside it its stragglers. */
    static Bucket levelZero(int slot) {
        return new Bucket(0, slot, null, true);
    }

    /** Whether this list is empty (for a level-0 bucket, not counting its stragglers). */
    boolean isEmpty() {
        return next == this;
    }

    /**
     * Whether neither this list nor its stragglers nor its presorted run hold a node: the
     * occupancy bit is clear.
     */
    boolean isVacant() {
        return isEmpty() && (stragglers == null || stragglers.isEmpty()) && presorted == null;
    }

    /**
     * Links {@code node} at the tail; in a level-0 bucket, at its stragglers' tail instead if it
     * comes before the tail by (deadline, sequence), so that this list stays in order. The
     * tail's line is written by the append anyway, so the comparison costs no extra miss.
     *
     * @return whether it went to the stragglers
     */
    boolean add(TimerNode node) {
        TimerNode tail = prev;
        if (stragglers != null && tail != this && TimerNode.precedes(node, tail)) {
            stragglers.append(node);
            return true;
        }
        append(node);
        return false;
    }

    /** Links {@code node} at the tail. */
    void append(TimerNode node) {
        TimerNode tail = prev;
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
     * Moves every node of {@code from}, which must not be this list, to this empty list in
     * O(1), keeping their order, links and count; {@code from} is left empty (its stragglers
     * are not moved).
     */
    void takeAll(Bucket from) {
        TimerNode first = from.next;
        TimerNode last = from.prev;
        first.prev = this;
        last.next = this;
        next = first;
        prev = last;
        count = from.count;
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

    /** What an empty list records. */
    private void clearCounts() {
        count = 0;
    }

    @Override
    public String toString() {
        return level == OVERFLOW ? "Bucket[overflow]"
                : level == DUE_FRONT ? "Bucket[due front]"
                : "Bucket[level=" + level + ", slot=" + slot + (owner != this ? ", stragglers" : "") + "]";
    }
}
