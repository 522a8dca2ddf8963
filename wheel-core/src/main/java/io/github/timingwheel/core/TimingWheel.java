package io.github.timingwheel.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A hashed hierarchical timing wheel: O(1) schedule and cancel of {@link TimerNode}s, and exact
 * (deadline, sequence) order among the nodes that are due.
 *
 * <h2>Wheel time</h2>
 * The wheel measures time as nanoseconds since its origin, the {@link TimeSource} reading given
 * to its constructor. Wheel times are never negative and deadlines saturate at
 * {@link Long#MAX_VALUE}, so no deadline arithmetic overflows and the wrap of
 * {@link System#nanoTime()} across zero does not matter. Methods that take a {@code nanoTime}
 * take a reading of the same time source; {@link #wheelTime(long)} converts one.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Never early:</b> {@link #poll(long)} returns a node only if its deadline is at or
 *       before the given time.
 *   <li><b>Exact order:</b> due nodes come out by deadline, then in the order they were
 *       scheduled (FIFO among equal deadlines), whatever level they were placed in.
 *   <li><b>O(1) schedule and cancel</b> for nodes not yet due (amortised: a node moves down at
 *       most once per level); cancelling a due node is O(log k) for k due nodes.
 *   <li><b>No wasted wake-ups:</b> {@link #nextEventTime()} names the next time anything
 *       happens (a deadline, or a slot whose nodes must move down a level), never an empty tick,
 *       so a driver can park exactly that long.
 *   <li><b>Prompt release:</b> a cancelled or polled node is unlinked at once; the wheel keeps
 *       no reference to it.
 * </ul>
 *
 * <h2>Caveats</h2>
 * <ul>
 *   <li>Not thread-safe: one thread at a time (a driver owns the wheel). Only
 *       {@link #wheelTime(long)}, {@link #deadlineAfter(long, long)} and the static helpers
 *       read nothing but final fields and may be called from any thread.
 *   <li>A node belongs to the wheel it was scheduled in until it is polled or cancelled;
 *       passing it to another wheel's {@code cancel} corrupts both.
 *   <li>{@link #nextEventTime()} may name a slot boundary before the next deadline, when a
 *       higher-level slot must cascade; a driver wakes at most once per level for that.
 *   <li>Deadlines beyond the top level's span wait in an overflow list that is scanned once
 *       per turn of the top level (about 12.4 days with the default shape).
 *   <li>Times passed in must not go backwards; an older time is tolerated and returns nothing
 *       that was not already due at it.
 * </ul>
 *
 * @param <T> the node type the wheel hands back
 */
public final class TimingWheel<T extends TimerNode> {

    /*
     * Implementation notes
     *
     * [1] Varghese and Lauck, "Hashed and Hierarchical Timing Wheels" (SOSP 1987), scheme 7:
     *     levels of 2^b slots; level l slot s holds ticks whose base-2^b digit l is s.
     * [2] Placement by the highest differing digit. A node due at tick t goes to the level of
     *     the highest base-2^b digit in which t differs from currentTick, into the slot named by
     *     t's digit there (the same rule the Linux kernel's hierarchical timer wheel uses).
     *     Invariant: a node at level l shares every digit above l with currentTick, and its
     *     digit l is greater than currentTick's. So each bucket is a disjoint range of ticks
     *     wholly in the future, and when currentTick reaches the first tick of a slot's range
     *     (its "start") the slot's nodes are re-placed, which moves each one down at least one
     *     level or into the due heap. Nodes with t <= currentTick go straight to the heap.
     * [3] Advancing never walks empty ticks: per level an OccupancyBitmap finds the next
     *     non-empty slot, the earliest slot start over all levels is the next event, and time
     *     jumps from event to event. Between events nothing moves, and the invariant of [2]
     *     still holds (a tick between currentTick and a slot's start shares their upper digits).
     * [4] Slots of different levels never start at the same tick: a level-l slot starts inside
     *     currentTick's level-(l+1) range, a higher-level slot outside it.
     * [5] Overflow: ticks that differ from currentTick above the top level are kept unordered in
     *     one list, with a lower bound of their ticks. The list is re-placed when currentTick
     *     enters the top-level range holding that bound; a stale bound (its node cancelled) only
     *     costs one early re-scan, which makes it exact again.
     * [6] The due heap orders by (deadline, sequence), as ScheduledThreadPoolExecutor's
     *     DelayedWorkQueue orders by (time, sequenceNumber); the tick only buckets, so a node
     *     placed at tick granularity still comes out at its exact nanosecond deadline.
     */

    private final long originNanos;
    private final long tickNanos;
    private final int slotBits;
    private final int slotMask;
    private final int levels;
    /** {@code levels * slotBits}: ticks that differ from currentTick at or above it overflow. */
    private final int overflowShift;

    /** buckets[level][slot]. */
    private final Bucket[][] buckets;
    /** occupied[level] has bit s set exactly when buckets[level][s] is not empty. */
    private final OccupancyBitmap[] occupied;
    private final Bucket overflow;
    /** A lower bound of the ticks in overflow; Long.MAX_VALUE when overflow is empty. */
    private long overflowMinTick = Long.MAX_VALUE;
    private final DueHeap due = new DueHeap();

    /** The tick the wheel has advanced to; nodes due at or before it are in the heap. */
    private long currentTick;
    private long nextSequence;
    private long size;

    /**
     * Creates a wheel whose time starts at {@code originNanos}.
     *
     * @param shape the geometry of the wheel
     * @param originNanos a reading of the time source the wheel will be driven with
     * @throws NullPointerException if {@code shape} is null
     */
    public TimingWheel(WheelShape shape, long originNanos) {
        Objects.requireNonNull(shape, "shape");
        this.originNanos = originNanos;
        this.tickNanos = shape.tickNanos();
        this.slotBits = shape.slotBits();
        this.slotMask = shape.slotsPerLevel() - 1;
        this.levels = shape.levels();
        this.overflowShift = levels * slotBits;
        this.buckets = new Bucket[levels][shape.slotsPerLevel()];
        this.occupied = new OccupancyBitmap[levels];
        for (int level = 0; level < levels; level++) {
            occupied[level] = new OccupancyBitmap(shape.slotsPerLevel());
            for (int slot = 0; slot <= slotMask; slot++) {
                buckets[level][slot] = new Bucket(level, slot);
            }
        }
        this.overflow = new Bucket(Bucket.OVERFLOW, 0);
    }

    /** Creates a wheel of the {@link WheelShape#defaults() default shape}. */
    public TimingWheel(long originNanos) {
        this(WheelShape.defaults(), originNanos);
    }

    // ---------------------------------------------------------------------------------------
    // Time arithmetic: reads final fields only, safe from any thread.

    /** Converts a time source reading to wheel time: nanoseconds since the origin, at least 0. */
    public long wheelTime(long nanoTime) {
        long sinceOrigin = nanoTime - originNanos; // wrap-safe: a difference of two readings
        return Math.max(0L, sinceOrigin);
    }

    /**
     * The wheel-time deadline {@code delayNanos} after {@code nanoTime}: a negative delay means
     * now, and the sum saturates at {@link Long#MAX_VALUE} (never due in practice).
     */
    public long deadlineAfter(long nanoTime, long delayNanos) {
        return addSaturated(wheelTime(nanoTime), Math.max(0L, delayNanos));
    }

    /** {@code deadline + delayNanos} for non-negative arguments, capped at Long.MAX_VALUE. */
    public static long addSaturated(long deadline, long delayNanos) {
        long sum = deadline + delayNanos;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    // ---------------------------------------------------------------------------------------
    // Operations: one thread at a time.

    /**
     * Schedules {@code node} to become due at {@code deadline}.
     *
     * @param node a node that is not scheduled
     * @param deadline wheel time, usually from {@link #deadlineAfter}; negative values mean 0
     * @throws NullPointerException if {@code node} is null
     * @throws IllegalStateException if {@code node} is already scheduled
     */
    public void schedule(T node, long deadline) {
        Objects.requireNonNull(node, "node");
        if (node.isScheduled()) {
            throw new IllegalStateException("node is already scheduled: " + node);
        }
        node.deadline = Math.max(0L, deadline);
        node.sequence = nextSequence++;
        place(node, node.deadline / tickNanos);
        size++;
    }

    /**
     * Removes {@code node} if it is pending here; the wheel keeps no reference to it afterwards.
     *
     * @return true if the node was pending and is now removed; false if it was not scheduled,
     *     already polled or already cancelled (nothing changes then)
     * @throws NullPointerException if {@code node} is null
     */
    public boolean cancel(T node) {
        Objects.requireNonNull(node, "node");
        if (node.isLinked()) {
            Bucket emptied = Bucket.unlink(node);
            if (emptied != null) {
                markEmpty(emptied);
            }
        } else if (node.heapIndex != TimerNode.NOT_IN_HEAP) {
            due.remove(node);
        } else {
            return false;
        }
        size--;
        return true;
    }

    /**
     * Advances the wheel to {@code nanoTime} and removes the earliest due node.
     *
     * @return the node with the smallest (deadline, sequence) among those whose deadline is at
     *     or before {@code nanoTime}, or null if none is due
     */
    @SuppressWarnings("unchecked") // only T instances are ever scheduled
    public T poll(long nanoTime) {
        long now = wheelTime(nanoTime);
        advanceTo(now / tickNanos);
        TimerNode head = due.peek();
        if (head == null || head.deadline > now) {
            return null;
        }
        due.poll();
        size--;
        return (T) head;
    }

    /**
     * The wheel time of the next thing a driver must wake for: the earliest deadline among the
     * nodes already in the due heap, or else the start of the next slot that must move down.
     * Never later than the earliest pending deadline; may be in the past (then {@link #poll}).
     *
     * @return that wheel time, or {@link Long#MAX_VALUE} if nothing is pending
     */
    public long nextEventTime() {
        TimerNode head = due.peek();
        if (head != null) {
            return head.deadline;
        }
        long eventTick = nextEventTick();
        return eventTick == Long.MAX_VALUE ? Long.MAX_VALUE : eventTick * tickNanos;
    }

    /**
     * How long a driver may park at {@code nanoTime} before it must call {@link #poll}: 0 if
     * something may be due, {@link Long#MAX_VALUE} if nothing is pending.
     */
    public long nanosUntilNextEvent(long nanoTime) {
        if (isEmpty()) {
            return Long.MAX_VALUE;
        }
        return Math.max(0L, nextEventTime() - wheelTime(nanoTime));
    }

    /**
     * The pending node with the smallest (deadline, sequence), due or not, without removing it:
     * O(1) when a node is due, else a scan of the one bucket that holds the earliest deadlines.
     *
     * @return that node, or null if nothing is pending
     */
    @SuppressWarnings("unchecked")
    public T peekEarliest() {
        TimerNode head = due.peek();
        if (head != null) {
            return (T) head;
        }
        // Buckets are disjoint tick ranges ordered by their start ([2], [4]), and overflow
        // ticks lie beyond every bucket: the first non-empty bucket holds the minimum.
        int level = nextEventLevel();
        if (level == NO_EVENT) {
            return null;
        }
        Bucket bucket = level == Bucket.OVERFLOW ? overflow : buckets[level][nextSlot(level)];
        TimerNode earliest = null;
        for (TimerNode node = bucket.next; node != bucket; node = node.next) {
            if (earliest == null || DueHeap.precedes(node, earliest)) {
                earliest = node;
            }
        }
        return (T) earliest;
    }

    /** The number of pending nodes: scheduled, neither polled nor cancelled. */
    public long size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /**
     * Hands every pending node to {@code action}, in no particular order, without removing it.
     * The action must not schedule or cancel in this wheel.
     */
    @SuppressWarnings("unchecked")
    public void forEach(Consumer<? super T> action) {
        Objects.requireNonNull(action, "action");
        for (int i = 0; i < due.size(); i++) {
            action.accept((T) due.get(i));
        }
        for (int level = 0; level < levels; level++) {
            for (int slot = occupied[level].nextSetAfter(-1); slot >= 0;
                    slot = occupied[level].nextSetAfter(slot)) {
                forEachIn(buckets[level][slot], action);
            }
        }
        forEachIn(overflow, action);
    }

    /**
     * Removes every pending node and hands each to {@code sink}, in no particular order; each
     * node is unscheduled (it may be scheduled again) before the sink sees it.
     *
     * @return the number of nodes removed
     */
    @SuppressWarnings("unchecked")
    public long drain(Consumer<? super T> sink) {
        Objects.requireNonNull(sink, "sink");
        // Empty the wheel before the sink runs, so that the sink may schedule into it again.
        List<TimerNode> drained = new ArrayList<>((int) Math.min(size, 1 << 16));
        due.clear(drained::add);
        for (int level = 0; level < levels; level++) {
            for (int slot = occupied[level].nextSetAfter(-1); slot >= 0;
                    slot = occupied[level].nextSetAfter(slot)) {
                TimingWheel.<TimerNode>drainBucket(buckets[level][slot], drained::add);
            }
            occupied[level].clearAll();
        }
        TimingWheel.<TimerNode>drainBucket(overflow, drained::add);
        overflowMinTick = Long.MAX_VALUE;
        size = 0;
        for (TimerNode node : drained) {
            sink.accept((T) node);
        }
        return drained.size();
    }

    @Override
    public String toString() {
        return "TimingWheel[size=" + size + ", due=" + due.size() + ", currentTick=" + currentTick
                + ", tickNanos=" + tickNanos + ", slotsPerLevel=" + (slotMask + 1)
                + ", levels=" + levels + "]";
    }

    // ---------------------------------------------------------------------------------------
    // Placement and cascading.

    /** Puts {@code node}, due at {@code tick}, where invariant [2] says it belongs. */
    private void place(TimerNode node, long tick) {
        if (tick <= currentTick) {
            due.add(node);
            return;
        }
        int level = (63 - Long.numberOfLeadingZeros(tick ^ currentTick)) / slotBits;
        if (level >= levels) {
            overflow.append(node);
            overflowMinTick = Math.min(overflowMinTick, tick);
            return;
        }
        int slot = (int) (tick >>> (level * slotBits)) & slotMask;
        buckets[level][slot].append(node);
        occupied[level].set(slot);
    }

    private void markEmpty(Bucket bucket) {
        if (bucket.level == Bucket.OVERFLOW) {
            overflowMinTick = Long.MAX_VALUE;
        } else {
            occupied[bucket.level].clear(bucket.slot);
        }
    }

    /** Moves currentTick forward to {@code targetTick}, event by event ([3]). */
    private void advanceTo(long targetTick) {
        while (currentTick < targetTick) {
            int level = nextEventLevel();
            long eventTick = level == NO_EVENT ? Long.MAX_VALUE : eventTickOf(level);
            if (level == NO_EVENT || eventTick > targetTick) { // an event may be at tick MAX too
                currentTick = targetTick;
                return;
            }
            if (level == Bucket.OVERFLOW) {
                currentTick = eventTick;
                overflowMinTick = Long.MAX_VALUE;
                replaceAll(overflow);
            } else {
                int slot = nextSlot(level); // relative to the old currentTick's digit
                currentTick = eventTick;
                occupied[level].clear(slot);
                replaceAll(buckets[level][slot]);
            }
        }
    }

    /** Empties {@code bucket} and places each of its nodes again relative to currentTick. */
    private void replaceAll(Bucket bucket) {
        TimerNode node = bucket.detachAll();
        while (node != null) {
            TimerNode following = node.next;
            node.prev = null;
            node.next = null;
            place(node, node.deadline / tickNanos);
            node = following;
        }
    }

    private static final int NO_EVENT = Integer.MIN_VALUE;

    /** The tick of the next event, or Long.MAX_VALUE if the wheel holds nothing beyond the heap. */
    private long nextEventTick() {
        int level = nextEventLevel();
        return level == NO_EVENT ? Long.MAX_VALUE : eventTickOf(level);
    }

    /** The level whose next slot starts first, {@link Bucket#OVERFLOW}, or {@link #NO_EVENT}. */
    private int nextEventLevel() {
        int bestLevel = NO_EVENT;
        long bestTick = Long.MAX_VALUE;
        for (int level = 0; level < levels; level++) {
            if (nextSlot(level) >= 0) {
                long start = eventTickOf(level);
                if (bestLevel == NO_EVENT || start < bestTick) {
                    bestTick = start;
                    bestLevel = level;
                }
            }
        }
        // Test emptiness, not the bound: with a 1 ns tick a deadline of Long.MAX_VALUE has that tick.
        if (!overflow.isEmpty() && (bestLevel == NO_EVENT || overflowBlockStart() < bestTick)) {
            bestLevel = Bucket.OVERFLOW;
        }
        return bestLevel;
    }

    /** The first occupied slot of {@code level} after currentTick's digit there, or -1. */
    private int nextSlot(int level) {
        int digit = (int) (currentTick >>> (level * slotBits)) & slotMask;
        return occupied[level].nextSetAfter(digit);
    }

    /** The start tick of the next event at {@code level} (a level with an occupied next slot). */
    private long eventTickOf(int level) {
        if (level == Bucket.OVERFLOW) {
            return overflowBlockStart();
        }
        int shift = level * slotBits;
        long upperDigits = currentTick & (-1L << (shift + slotBits));
        return upperDigits | ((long) nextSlot(level) << shift);
    }

    /** The first tick of the top-level range that holds overflowMinTick. */
    private long overflowBlockStart() {
        return overflowMinTick & (-1L << overflowShift);
    }

    private static <T> void forEachIn(Bucket bucket, Consumer<? super T> action) {
        for (TimerNode node = bucket.next; node != bucket; node = node.next) {
            @SuppressWarnings("unchecked")
            T typed = (T) node;
            action.accept(typed);
        }
    }

    private static <T> void drainBucket(Bucket bucket, Consumer<? super T> sink) {
        TimerNode node = bucket.detachAll();
        while (node != null) {
            TimerNode following = node.next;
            node.prev = null;
            node.next = null;
            @SuppressWarnings("unchecked")
            T typed = (T) node;
            sink.accept(typed);
            node = following;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Read-only views for invariant checks in tests.

    long currentTick() {
        return currentTick;
    }

    int dueCount() {
        return due.size();
    }

    DueHeap dueHeap() {
        return due;
    }

    Bucket bucket(int level, int slot) {
        return buckets[level][slot];
    }

    boolean isOccupied(int level, int slot) {
        return occupied[level].get(slot);
    }

    Bucket overflowBucket() {
        return overflow;
    }

    long overflowMinTick() {
        return overflowMinTick;
    }

    long tickNanos() {
        return tickNanos;
    }

    int slotBits() {
        return slotBits;
    }

    int levels() {
        return levels;
    }
}
