package io.github.timingwheel.core;

/**
 * An entry of a {@link TimingWheel}: the task itself carries its links, so a pending task costs
 * no node besides the object the caller already has. Subclass it to add the payload.
 *
 * <p>A node is in at most one place at a time: a bucket list of the wheel ({@code next != null}),
 * the due heap or run ({@code heapIndex != NOT_IN_HEAP}), or nowhere (not scheduled). Its fields
 * belong to the wheel it is scheduled in and follow that wheel's threading rule: one thread at a
 * time.
 *
 * <p>Layout on a 64-bit JVM with compressed references: a 12-byte header, two {@code long}s,
 * two references and an {@code int}, 40 bytes in all before a subclass adds fields.
 */
public class TimerNode {

    /** Bucket neighbours; both null when the node is not in a bucket. */
    TimerNode prev;
    TimerNode next;
    /**
     * Where the node is among the due ones: its index in the due heap (>= 0), {@code -2 - i}
     * for slot i of the due run (DueRun), or {@link #NOT_IN_HEAP}.
     */
    int heapIndex = NOT_IN_HEAP;
    /** Wheel time (nanoseconds since the wheel's origin) at which the node is due. */
    long deadline;
    /** Order of scheduling within the wheel: the tie-break among equal deadlines. */
    long sequence;

    static final int NOT_IN_HEAP = -1;

    /** Creates a node that is not scheduled. */
    public TimerNode() {
    }

    /**
     * The deadline the node was last scheduled with, in wheel time (see {@link TimingWheel});
     * meaningful once the node has been scheduled.
     */
    public final long deadline() {
        return deadline;
    }

    /**
     * Sets the deadline of a node that is not scheduled, so that it can be read before the node
     * reaches its wheel (a driver that hands nodes to the wheel's thread does this);
     * {@link TimingWheel#schedule} sets it again.
     *
     * @param deadline wheel time; negative values mean 0
     * @throws IllegalStateException if the node is scheduled
     */
    protected final void setDeadline(long deadline) {
        if (isScheduled()) {
            throw new IllegalStateException("node is scheduled: " + this);
        }
        this.deadline = Math.max(0L, deadline);
    }

    /**
     * The node's place in scheduling order, the tie-break among equal deadlines; assigned each
     * time the node is scheduled, by the wheel or by the caller of
     * {@link TimingWheel#schedule(TimerNode, long, long)}.
     */
    public final long sequence() {
        return sequence;
    }

    /**
     * Sets the sequence of a node that is not scheduled, so that it can be read before the node
     * reaches its wheel (a driver that orders nodes across several wheels assigns it up front);
     * {@link TimingWheel#schedule(TimerNode, long, long)} sets it again.
     *
     * @param sequence the tie-break among equal deadlines: smaller runs first
     * @throws IllegalStateException if the node is scheduled
     */
    protected final void setSequence(long sequence) {
        if (isScheduled()) {
            throw new IllegalStateException("node is scheduled: " + this);
        }
        this.sequence = sequence;
    }

    /** Whether the node is pending in a wheel: scheduled, and neither polled nor cancelled. */
    public final boolean isScheduled() {
        return next != null || heapIndex != NOT_IN_HEAP;
    }

    /**
     * Whether {@code a} runs before {@code b}: (deadline, sequence) order, the order in which a
     * wheel hands out due nodes. Deadlines are wheel times, never negative, so a plain
     * comparison is exact; nodes with equal deadlines and equal sequences (which a caller's own
     * sequences may give) come out in no particular order.
     *
     * @param a a node
     * @param b another node
     * @return true if {@code a} comes first
     */
    public static boolean precedes(TimerNode a, TimerNode b) {
        return a.deadline < b.deadline || (a.deadline == b.deadline && a.sequence < b.sequence);
    }

    /** Whether the node is in a bucket list (as opposed to the due heap or nowhere). */
    final boolean isLinked() {
        return next != null;
    }
}
