package io.github.timingwheel.core;

/**
 * One lane of a slot of the wheel: a circular, intrusive, doubly-linked list whose sentinel is
 * this object. Appending and unlinking are O(1) and allocate nothing; an empty lane's sentinel
 * points to itself.
 *
 * <p>A slot is one lane, or several (TimingWheel [12]): then the slot's first lane holds the
 * others ({@link #lanes}), appends go round them in turn, and a walk of the whole slot follows
 * every lane's list at once, so that the cache misses of their nodes overlap instead of coming
 * one after another. A slot that may have lanes makes them the first time its first lane holds
 * the wheel's threshold of nodes ({@link #LANES_FROM} by default), and keeps them: a wheel whose
 * slots stay small pays nothing for them. Methods named for the slot are called on its first lane.
 *
 * <p>Order within a lane is append order, but nothing relies on it: the due heap restores exact
 * (deadline, sequence) order.
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

    static final int OVERFLOW = -1;

    /**
     * By default a slot makes its lanes when its first lane holds this many nodes: a walk of
     * fewer is short (46 µs at most, one miss after another), and a slot of short timers that
     * churn (tens per slot) keeps one list, which its schedules and cancels touch (at 16, 1 to
     * 50 ms timers churned by 2 and 4 producers ran 12 to 13% slower,
     * ab-churn-short-lanes-2026-11-27-2). The same count as DueHeap.RUN_MIN.
     */
    static final int LANES_FROM = 256;

    /** The slot's lanes, this one first, once made; else null. First lane only. */
    private Bucket[] lanes;
    /**
     * The lane the slot's next append goes to: appends go round the lanes in turn, from lane 0
     * after the slot was last emptied, so that a walk that takes one node of each lane in turn
     * meets them in the order they came. First lane only.
     */
    private byte nextLane; // bytes, this and nextTake: with lanes they add 8 bytes to every slot, not 16
    /**
     * The lane a walk of the slot takes its next node from: a paced step that stops takes up
     * there the next time, so that the nodes leave in the order they came. First lane only.
     */
    byte nextTake;

    /**
     * A slot of {@code level}; at a level below TimingWheel.LANED_LEVELS it makes
     * TimingWheel.LANES lanes, this one the first, once it holds enough nodes ({@link #add}).
     */
    Bucket(int level, int slot) {
        this.level = level;
        this.slot = slot;
        this.prev = this;
        this.next = this;
    }

    /** Whether this lane is empty; see {@link #slotIsEmpty()} for the slot. */
    boolean isEmpty() {
        return next == this;
    }

    /** The slot's number of lanes, a power of two. */
    int laneCount() {
        return lanes == null ? 1 : lanes.length;
    }

    /** The slot's lane {@code i}; lane 0 is this. */
    Bucket lane(int i) {
        return lanes == null ? this : lanes[i];
    }

    /**
     * Links {@code node} at the tail of the slot's next lane in turn, making the lanes if the
     * first lane holds {@code lanesFrom} nodes.
     */
    void add(TimerNode node, int lanesFrom) {
        if (lanes == null) {
            if (count < lanesFrom || level < 0 || level >= TimingWheel.LANED_LEVELS) {
                append(node);
                return;
            }
            makeLanes();
        }
        lanes[nextLane].append(node);
        nextLane = (byte) ((nextLane + 1) & (lanes.length - 1));
    }

    /**
     * Makes the lanes, and deals the nodes this lane already holds round them from lane 0, as
     * if the lanes had been there all along: a walk then still meets every node in the order
     * it came.
     */
    private void makeLanes() {
        Bucket[] made = new Bucket[TimingWheel.LANES];
        made[0] = this;
        for (int i = 1; i < made.length; i++) {
            made[i] = new Bucket(level, slot);
        }
        lanes = made;
        int dealt = 0;
        for (TimerNode node = detachAll(); node != null; dealt++) {
            TimerNode following = node.next;
            made[dealt & (made.length - 1)].append(node);
            node = following;
        }
        nextLane = (byte) (dealt & (made.length - 1));
        nextTake = 0;
    }

    /** Whether every lane of the slot is empty. */
    boolean slotIsEmpty() {
        if (lanes == null) {
            return isEmpty();
        }
        for (Bucket lane : lanes) {
            if (!lane.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** The sum of the lanes' counts: an upper bound of the slot's length, as {@link #count} is of a lane's. */
    long slotCount() {
        if (lanes == null) {
            return count;
        }
        long sum = 0;
        for (Bucket lane : lanes) {
            sum += lane.count;
        }
        return sum;
    }

    /** Tells the slot it is empty: appends and walks start again from lane 0. */
    void slotEmptied() {
        nextLane = 0;
        nextTake = 0;
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
     * Unlinks {@code node} from whichever lane holds it.
     *
     * @return that lane if the node was its last entry, else null
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
        emptied.count = 0;
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
        count = 0;
        return first;
    }

    @Override
    public String toString() {
        return level == OVERFLOW ? "Bucket[overflow]" : "Bucket[level=" + level + ", slot=" + slot + "]";
    }
}
