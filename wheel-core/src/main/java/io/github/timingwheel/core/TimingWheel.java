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
 *       happens (a deadline, a slot whose nodes must move down a level, a step of moving a
 *       large slot down ahead of time, or a sort of a tick's stragglers ahead of it), never an
 *       empty tick, so a driver can park exactly that long.
 *   <li><b>Bounded steps:</b> a slot's nodes move down a level a share at a time while the
 *       slot before it passes, so a driver that wakes at {@link #nextEventTime()} moves about a
 *       thousand nodes per level per wake-up (or one tick's share of a slot, if that is more),
 *       not a whole slot (tens of thousands in a burst) in one poll; a wheel made with a
 *       staging ring first places at most the ring's capacity of recent arrivals.
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
 *       higher-level slot must cascade; a driver wakes at most once per level for that, plus
 *       about one wake-up per thousand nodes of a slot that holds more than a thousand.
 *   <li>A poll that jumps far ahead (a driver that did not wake when asked) does the work of
 *       the wake-ups it skipped at once. A cancel leaves its slot's count of nodes unchanged
 *       unless it empties the slot, so a slot thinned out by cancels may still be moved down
 *       in steps (one wasted wake-up at most, the step that finds it short).
 *   <li>Nodes due in the same tick enter the due heap together at the tick's start. A
 *       tick's bucket whose nodes arrived in deadline order (a burst for one instant, one
 *       length of timeout armed in turn) is handed out from its front at once, O(1) there;
 *       nodes out of order are walked and sorted first, O(k) for k nodes, before the first of
 *       them comes out: at the tick if they are few, else ahead of it, when the driver wakes at
 *       {@link #nextEventTime()} (a driver that comes only at the tick sorts them there).
 *   <li>Deadlines beyond the top level's span wait in an overflow list that is scanned once
 *       per turn of the top level (about 49.7 days with the default shape).
 *   <li>Times passed in must not go backwards; an older time is tolerated and returns nothing
 *       that was not already due at it.
 * </ul>
 *
 * @param <T> the node type the wheel hands back
 */
public final class TimingWheel<T extends TimerNode> extends TimingWheelPad {

    /*
     * Implementation notes
     *
     * [1] Varghese and Lauck, "Hashed and Hierarchical Timing Wheels" (SOSP 1987), scheme 7:
     *     levels of S = 2^b slots; a level-l slot spans S^l ticks. Write idx_l(t) = t >>> (l*b)
     *     for the index of the level-l slot that holds tick t.
     * [2] Two laps per level. Each level is a ring of 2S buckets, bucket idx_l(t) mod 2S. A node
     *     due at tick t > currentTick (c) goes to the lowest level l at which t lies in c's
     *     level-(l+1) range or the next one: idx_{l+1}(t) <= idx_{l+1}(c) + 1. Then
     *     idx_l(c) < idx_l(t) < idx_l(c) + 2S, so its bucket is unambiguous and is not c's own.
     *     Nodes with t <= c go straight to the due heap.
     *     Invariant: a node in bucket (l, r) has idx_l(t) mod 2S = r, idx_l(c) < idx_l(t) and
     *     idx_{l+1}(t) <= idx_{l+1}(c) + 1. The second only gets easier as c grows; the first
     *     fails when c reaches the bucket's first tick (its "start"): then the bucket must be
     *     re-placed, which moves each node at least one level down or into the heap.
     *     Re-placing never targets a bucket that starts at or before c.
     * [3] Early cascade. Re-placing a whole slot when c reaches its start would make one poll
     *     re-place a whole burst (a level-1 slot holds 256 ms of it with the default shape)
     *     while due tasks wait. With two laps, the
     *     bucket at idx_l(c) + 1 (the "next" bucket, l >= 1) holds only nodes placed when they
     *     were further away: by [2] a node placed now goes to level l only if level l-1 cannot
     *     take it, and level l-1 takes every tick of the next level-l slot. Its nodes already
     *     fit a lower level, so they
     *     are moved down during the current level-l slot, a share at each advance: with n nodes
     *     left and u ticks until the next bucket's start, an advance of e ticks moves
     *     ceil(n * e / u), which spreads the work evenly over the slot. Whatever is left at the
     *     start is re-placed then, as in [2]. A next bucket only shrinks (new nodes go lower),
     *     so pacing by its count, which Bucket keeps as an upper bound, is safe.
     * [4] Advancing never walks empty ticks: per level an OccupancyBitmap finds the first
     *     occupied bucket after c's, searching round the ring; the earliest start over all
     *     levels (and the overflow's, [6]) is the next cascade, and time jumps from cascade to
     *     cascade, pacing [3] along the way. Buckets of different levels may start at the same
     *     tick (a level-l bucket and a lower one that an early cascade filled), so a cascade
     *     re-places every bucket that starts at that tick, from the top level down, before the
     *     heap is looked at.
     * [5] Wake-ups. A driver parks until nextEventTime(): the heap's head, the next cascade, or
     *     the next pacing step of [3]. A pacing step is named only while the first occupied
     *     bucket of a level l >= 1 holds more than PACING_CHUNK nodes, and is placed so that it
     *     moves about PACING_CHUNK of them: a bucket that small is re-placed at its start at
     *     the cost of a single step, and a lone timer adds no wake-up (quiet when idle). The
     *     steps begin when the bucket becomes next, one level-l slot before its start.
     * [6] Overflow: ticks with idx_L(t) > idx_L(c) + 1 for L = levels (beyond the top level's
     *     two laps) are kept unordered in one list, with a lower bound of their ticks. The list
     *     is re-placed when c enters the top-level range just before the one holding that bound,
     *     when the nodes there start to fit the top level's second lap; a stale bound (its node
     *     cancelled) only costs one early re-scan, which makes it exact again. Overflow ticks lie
     *     beyond every level's, so the first occupied buckets hold the earliest node.
     * [7] Arithmetic near Long.MAX_VALUE (a 1 ns tick and a deadline of Long.MAX_VALUE): levels
     *     compare slot indices, never idx + 2S; a bucket index computed from c is only turned
     *     into a start tick when the bucket is occupied, so it is at most a pending node's tick;
     *     levels * b <= 62 (WheelShape) keeps idx_levels(t) + 1 and the ring's extra lap bit
     *     within a long.
     * [8] The due heap orders by (deadline, sequence), as ScheduledThreadPoolExecutor's
     *     DelayedWorkQueue orders by (time, sequenceNumber); the tick only buckets, so a node
     *     placed at tick granularity still comes out at its exact nanosecond deadline.
     * [9] A driver that is behind advances one cascade at a time. poll stops advancing as soon
     *     as the heap holds a node: with c below the target tick, every heap node's tick is at
     *     most c, so its deadline is before (c + 1) ticks and therefore due, and every node
     *     still in a bucket has a later tick, so the heap's head is the earliest due node. So a
     *     driver that fell behind (a pause, a burst) takes one tick's nodes into the heap at a
     *     time instead of every tick it missed at once: the heap stays the size of one tick and
     *     its operations stay cheap, where one large heap would make every poll dearer exactly
     *     when the driver needs to catch up. c lags the clock meanwhile; placement is relative
     *     to c, so every invariant holds as stated.
     * [10] What a schedule returns. A driver that keeps a lower bound of nextEventTime() (one
     *     that schedules from other threads and parks until the bound: the executor's shards)
     *     must lower it by more than the new node's deadline. Parked until the first deadline
     *     of a burst placed at level l >= 1, it would skip the pacing of [3] and wake to
     *     re-place the whole slot in one poll, tens of thousands of nodes while due ones wait
     *     (a million timers due within a second, armed two seconds ahead). So schedule returns
     *     the node's share of nextEventTime(): its deadline in the heap or at level 0; at level
     *     l >= 1 the start of its slot, or, once the slot holds more than PACING_CHUNK nodes,
     *     the time the slot becomes next (one level-l slot earlier; the pacing steps start
     *     there, [5]); in the overflow, its next scan. None is after the deadline. Waking
     *     there costs one poll that finds nothing due, after which nextEventTime() is exact
     *     again; a lone timer wakes a driver no more often than nextEventTime() would.
     * [11] Staging (optional, StagingRing). A node due STAGE_LEAD_TICKS or more after the time of
     *     the last poll ('stageFrom'; not after currentTick, which lags the clock while due nodes
     *     wait, [9], so that in a flood every arrival due now would be staged) waits in a ring of
     *     recent arrivals instead of being placed, and a cancel takes it out with a store of null.
     *     The ring's nodes are placed, in arrival order, relative to currentTick at that moment:
     *     the oldest quarter whenever an arrival finds the ring full, and all of them at the start
     *     of every poll, peek and peekEarliest (before advancing: so placement, the heap and [9]
     *     see them as if they had been placed on arrival); forEach visits them where they are and
     *     drain takes them. So a node is placed only if it outlives three quarters of the ring's
     *     arrivals or lasts until the wheel's next poll, whichever comes first; most network
     *     timeouts do not. nextEventTime() and schedule's answer cover a staged node by its
     *     deadline, by which a poll has placed it. Placed later, a node may need an earlier
     *     wake-up (its slot's start, [10]): the schedule whose arrival placed it returns that, so
     *     a driver parked past it wakes once more to plan again, as for any schedule that brings
     *     the next event forward. A full ring's oldest quarter is work an arrival does for a
     *     quarter of the ring's arrivals: amortised, one placement per arrival at most. A poll
     *     places at most the ring's capacity of staged nodes before it advances, on top of the
     *     bounded steps of [5].
     * [12] Walking a bucket. Its nodes lie wherever their tasks were allocated, in no order of
     *     their deadlines, so in a large wheel each step along its list is a cache miss, and a
     *     step cannot begin before the one before it has loaded the link, and no task of the
     *     tick starts while its bucket is walked. A cascade
     *     therefore walks a bucket from both ends at once, two independent chains of loads and
     *     so two misses in flight instead of one, at no cost to a schedule or a cancel (the
     *     bucket is still one doubly-linked list). Nodes keep list order, which DueRun's
     *     ordered-batch check and its ties rely on (DueRun [2], [4]): the front half is placed
     *     as it is walked and the back half waits on a stack (WALK_STACK nodes; beyond that the
     *     front walks on alone), placed from the stack's top once the two ends meet. A pacing
     *     step moves nodes from the front only, since the nodes it leaves must follow the ones
     *     it moves.
     * [13] The ordered front. A level-0 bucket whose tick has come holds nodes of that tick
     *     only ([2]), so if its list is in (deadline, sequence) order it is already what the
     *     heap would make of it. So a level-0 bucket keeps its list in order: a node that comes
     *     before the list's tail goes to the bucket's stragglers instead (Bucket.add; one
     *     comparison with the tail, whose line the append writes anyway). At the tick the due
     *     heap takes the ordered list over whole (DueHeap's ordered front) and hands out its
     *     first node at once, where walking it would delay the first by a cache miss per node
     *     of the tick; only the stragglers are walked and sorted. One producer's timeouts of one
     *     length arrive in order, as does an early cascade ([3]), which moves nodes from a
     *     bucket's front in list order; a burst armed for one instant from another clock
     *     (deadlines now + (instant - caller's now)) does not: its deadlines jitter by the gap
     *     between the two reads, and nearly every node is a straggler ([14]).
     *     Nodes cascaded at the tick itself (from a higher level or the overflow) go to the heap
     *     or a run beside the front, and the head is the first of the three ([9] holds: all are
     *     due). A level-0 bucket is occupied while either list holds a node.
     * [14] Sorting ahead of the tick. Stragglers walked and sorted at the tick delay the
     *     tick's first node by about 45 ns each (a miss per node walked, then the sort): 9 ms
     *     for 200,000 timers armed for one instant from another clock, nearly all stragglers
     *     ([13]). So a level-0 bucket whose stragglers reach PRESORT_MIN has them sorted ahead
     *     of its tick, into a run kept in the bucket (Bucket.presorted), early enough for the
     *     sort to be done by then: PRESORT_NANOS_PER_NODE per straggler, at most a lap of
     *     level 0 ahead ('presortTick', a lower bound of when the next such sort is due, is one
     *     of nextEventTime's events). At the tick the run is taken over as the due nodes' run
     *     in O(1), beside the ordered front; only stragglers that came after the sort are
     *     walked then, and a second sort before the tick merges them in. A node in a
     *     bucket's run is in no list; its heapIndex names its slot, as in the due heap's run,
     *     and the two are told apart by its tick: a bucket's nodes are due after currentTick
     *     ([2]), the due heap's at or before it. A cancel leaves a hole there too, O(1). The
     *     sort runs on the driver's time while it waits for the tick; a driver that wakes only
     *     at the tick (one that was late) sorts there as before.
     * [15] Buckets are made when a node first goes to their ring slot, so a wheel costs
     *     memory for the slots its deadlines use: a wide shape (the default's 256 slots a
     *     level, two laps) costs a new scheduler, or one of many shards, almost nothing until it
     *     is used, and its top levels little ever. Every other access to a bucket follows its
     *     occupancy bit, which is set only after it was made; a made bucket stays.
     */

    /**
     * The nodes a pacing step of the early cascade aims to move ([5]); at about 125 ns per node
     * (a cache miss each) that is on the order of 100 µs of work.
     */
    static final int PACING_CHUNK = 1024;
    /**
     * How far after the last poll an arrival must be due to be staged ([11]), in ticks. A node
     * due sooner is about to be harvested, and is placed at once; one due later is staged, so
     * that a timeout cancelled before the wheel's next poll is never linked or unlinked, however
     * short; a lead of a whole lap of level 0 would place every short timer (docs/decisions.md).
     */
    static final long STAGE_LEAD_TICKS = 2;
    /** The most nodes of a bucket's back half that wait while its front half is placed ([12]). */
    static final int WALK_STACK = 512;
    /**
     * The stragglers that make a level-0 bucket worth sorting ahead of its tick, and the step
     * at which more of them bring that sort forward ([14]); a power of two. Fewer are sorted at
     * the tick, in about 0.2 ms at most.
     */
    static final int PRESORT_MIN = 4096;
    /**
     * The time a sort ahead of the tick allows per straggler ([14]): a walk's miss and a
     * share of the sort, from 45 ns for a wheel alone to 150 ns for the executor's tasks on a
     * quiet 2-core machine, with room for a busy one.
     */
    static final long PRESORT_NANOS_PER_NODE = 200L;

    private final long originNanos;
    private final long tickNanos;
    /** Divides by tickNanos with a multiply: a cascade divides once per node it moves. */
    private final TickDivisor ticks;
    private final int slotBits;
    /** {@code 2 * slotsPerLevel - 1}: a level's ring holds two laps ([2]). */
    private final int ringMask;
    private final int levels;
    /** {@code levels * slotBits}: idx_levels of [6]. */
    private final int overflowShift;
    /** levelOfBit[p] = min(levels, p / slotBits): a table, not a division, on the schedule path. */
    private final byte[] levelOfBit = new byte[Long.SIZE];

    /** buckets[level][ring slot]; null until a node first goes there ([15]). */
    private final Bucket[][] buckets;
    /** occupied[level] has bit r set exactly when buckets[level][r] is not empty. */
    private final OccupancyBitmap[] occupied;
    private final Bucket overflow;
    /** A lower bound of the ticks in overflow; Long.MAX_VALUE when overflow is empty. */
    private long overflowMinTick = Long.MAX_VALUE;
    private final DueHeap due = new DueHeap();

    /** The tick the wheel has advanced to; nodes due at or before it are in the heap. */
    private long currentTick;
    private long nextSequence;
    private long size;
    /** How many times a node was moved down by a cascade: work a test can bound per poll. */
    private long movedNodes;
    /**
     * The back half of a bucket being walked ([12]): no entries until the first cascade of two
     * or more nodes, then WALK_STACK, each null outside replaceAll.
     */
    private TimerNode[] walkStack = new TimerNode[0];
    /**
     * A lower bound of the tick at which a level-0 bucket's stragglers are next due to be
     * sorted ahead of its tick ([14]); Long.MAX_VALUE if none is.
     */
    private long presortTick = Long.MAX_VALUE;
    /** Recent arrivals not yet placed ([11]), or null if this wheel stages nothing. */
    private final StagingRing staging;
    /** The wheel time from which an arrival is staged ([11]): STAGE_LEAD_TICKS after the last poll. */
    private long stageFrom;
    /** STAGE_LEAD_TICKS in nanoseconds: how far after a poll stageFrom lies ([11]). */
    private final long stageLeadNanos;
    /** How many staged nodes were placed: for tests' coverage. */
    private long stagedPlaced;
    /**
     * Padding after the fields written on every schedule and cancel (with TimingWheelPad's
     * before them): several wheels used by threads on different cores (a sharded driver)
     * must not share a cache line, and a garbage collector that copies wheels one after
     * another would otherwise put one wheel's counts next to another's.
     */
    long p11, p12, p13, p14, p15, p16, p17, p18;

    /**
     * Creates a wheel whose time starts at {@code originNanos}.
     *
     * @param shape the geometry of the wheel
     * @param originNanos a reading of the time source the wheel will be driven with
     * @throws NullPointerException if {@code shape} is null
     */
    public TimingWheel(WheelShape shape, long originNanos) {
        this(shape, originNanos, 0);
    }

    /**
     * Creates a wheel whose time starts at {@code originNanos} and that keeps up to
     * {@code stagingCapacity} recent arrivals due more than a tick or two ahead unplaced until
     * they have lived a while ([11]): for churn, where most nodes are cancelled soon after they
     * are scheduled. Behaviour is the same as without it; only the cost of a short-lived node
     * changes.
     *
     * @param shape the geometry of the wheel
     * @param originNanos a reading of the time source the wheel will be driven with
     * @param stagingCapacity 0 for none, else a power of two from 4 to 65,536
     * @throws NullPointerException if {@code shape} is null
     * @throws IllegalArgumentException if {@code stagingCapacity} is neither 0 nor such a power of two
     */
    public TimingWheel(WheelShape shape, long originNanos, int stagingCapacity) {
        Objects.requireNonNull(shape, "shape");
        this.staging = stagingCapacity == 0 ? null : new StagingRing(stagingCapacity);
        this.originNanos = originNanos;
        this.tickNanos = shape.tickNanos();
        this.ticks = new TickDivisor(tickNanos);
        this.slotBits = shape.slotBits();
        int ringSize = 2 * shape.slotsPerLevel();
        this.ringMask = ringSize - 1;
        this.levels = shape.levels();
        this.overflowShift = levels * slotBits;
        for (int bit = 0; bit < Long.SIZE; bit++) {
            levelOfBit[bit] = (byte) Math.min(levels, bit / slotBits);
        }
        this.buckets = new Bucket[levels][ringSize];
        this.occupied = new OccupancyBitmap[levels];
        for (int level = 0; level < levels; level++) {
            occupied[level] = new OccupancyBitmap(ringSize);
        }
        this.overflow = new Bucket(Bucket.OVERFLOW, 0);
        this.stageLeadNanos = STAGE_LEAD_TICKS > Long.MAX_VALUE / tickNanos
                ? Long.MAX_VALUE
                : STAGE_LEAD_TICKS * tickNanos;
        this.stageFrom = stageLeadNanos;
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
        return deadlineAfterWheelTime(wheelTime(nanoTime), delayNanos);
    }

    /**
     * {@link #deadlineAfter}'s rule for a wheel time already read: for a driver that keeps wheel
     * time itself (from the same origin) and reads the clock once for several uses.
     */
    public static long deadlineAfterWheelTime(long now, long delayNanos) {
        return addSaturated(now, Math.max(0L, delayNanos));
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
     * @return the wheel time by which a driver must poll on this node's account, as
     *     {@link #schedule(TimerNode, long, long)} returns it
     * @throws NullPointerException if {@code node} is null
     * @throws IllegalStateException if {@code node} is already scheduled
     */
    public long schedule(T node, long deadline) {
        return schedule(node, deadline, nextSequence++);
    }

    /**
     * Schedules {@code node} to become due at {@code deadline}, with a sequence the caller
     * assigned: for a driver that spreads nodes over several wheels and merges what they hand
     * out, so that one order of sequences holds across all of them. Sequences need not be
     * dense, unique or arrive in order; among equal deadlines the smaller comes out first, and
     * nodes equal in both come out in no particular order. Do not mix
     * with {@link #schedule(TimerNode, long)} in one wheel unless the caller's sequences never
     * meet the wheel's own (they count from 0).
     *
     * @param node a node that is not scheduled
     * @param deadline wheel time; negative values mean 0
     * @param sequence the tie-break among equal deadlines
     * @return the wheel time by which a driver must poll on this node's account ([10]): its
     *     deadline, or earlier when its slot must first move down a level; a driver that parks
     *     until the earliest of these and of {@link #nextEventTime()} after its last poll wakes
     *     for every step of moving a large slot down ahead of time, not only at the first
     *     deadline
     * @throws NullPointerException if {@code node} is null
     * @throws IllegalStateException if {@code node} is already scheduled
     */
    public long schedule(T node, long deadline, long sequence) {
        Objects.requireNonNull(node, "node");
        if (node.isScheduled()) {
            throw new IllegalStateException("node is already scheduled: " + node);
        }
        node.deadline = Math.max(0L, deadline);
        node.sequence = sequence;
        long event = staging != null && node.deadline >= stageFrom
                ? stage(node)
                : place(node, ticks.divide(node.deadline));
        size++;
        return event;
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
        } else if (StagingRing.isStaged(node)) {
            staging.remove(node);
        } else if (DueHeap.isRunIndex(node.heapIndex) && ticks.divide(node.deadline) > currentTick) {
            removePresorted(node); // in a bucket's run, not yet due ([14])
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
    public T poll(long nanoTime) {
        T head = peekDue(nanoTime);
        if (head != null) {
            due.removeHead(head);
            size--;
        }
        return head;
    }

    /**
     * Advances the wheel to {@code nanoTime} and returns the earliest due node without removing
     * it: what {@link #poll(long)} would return. A driver that merges several wheels peeks each
     * and polls the one whose head comes first.
     *
     * @return the node with the smallest (deadline, sequence) among those due at
     *     {@code nanoTime}, or null if none is due
     */
    @SuppressWarnings("unchecked") // only T instances are ever scheduled
    public T peekDue(long nanoTime) {
        long now = wheelTime(nanoTime);
        beginPoll(now);
        TimerNode head = dueHead(now);
        return head == null || head.deadline > now ? null : (T) head;
    }

    /**
     * Removes the due nodes, in order, into {@code into} from index {@code from}, at most
     * {@code max} of them: what that many {@link #poll(long)} calls would return, in one call.
     *
     * @return how many nodes it removed, fewer than {@code max} only if no more are due
     * @throws NullPointerException if {@code into} is null
     * @throws IndexOutOfBoundsException if {@code from} and {@code max} do not fit {@code into}
     */
    public int pollDue(long nanoTime, T[] into, int from, int max) {
        Objects.checkFromIndexSize(from, max, into.length);
        return drainDue(wheelTime(nanoTime), null, into, from, max);
    }

    /**
     * As {@link #pollDue(long, TimerNode[], int, int)}, but only while each node comes before
     * {@code bound} by (deadline, sequence): a driver that merges several wheels drains the
     * wheel whose head comes first up to the head of the runner-up, so that the merge costs a
     * comparison per node, and a wheel that alone has due nodes is drained in one call.
     *
     * @param bound a node of another wheel (its deadline and sequence are read, nothing else)
     * @return how many nodes it removed
     * @throws NullPointerException if {@code bound} or {@code into} is null
     * @throws IndexOutOfBoundsException if {@code from} and {@code max} do not fit {@code into}
     */
    public int pollDueBefore(long nanoTime, TimerNode bound, T[] into, int from, int max) {
        Objects.requireNonNull(bound, "bound");
        Objects.checkFromIndexSize(from, max, into.length);
        return drainDue(wheelTime(nanoTime), bound, into, from, max);
    }

    private int drainDue(long now, TimerNode bound, T[] into, int from, int max) {
        beginPoll(now);
        int count = 0;
        while (count < max) {
            TimerNode head = dueHead(now);
            if (head == null || head.deadline > now || (bound != null && !TimerNode.precedes(head, bound))) {
                break;
            }
            if (DueHeap.isRunIndex(head.heapIndex)) { // the run's: take what comes before all else by its keys
                int drained = due.drainRunBefore(now, bound, into, from + count, max - count);
                if (drained > 0) {
                    size -= drained;
                    count += drained;
                    continue;
                }
            }
            due.removeHead(head);
            size--;
            @SuppressWarnings("unchecked")
            T typed = (T) head;
            into[from + count++] = typed;
        }
        return count;
    }

    /**
     * The due heap's head, after advancing towards wheel time {@code now} if the heap is
     * empty: advancing stops as soon as the heap holds a node ([9]), so with a node there it
     * would do nothing, and the tick's division is skipped.
     */
    private TimerNode dueHead(long now) {
        TimerNode head = due.peek();
        if (head == null) {
            advanceTo(ticks.divide(now));
            head = due.peek();
        }
        return head;
    }

    /**
     * The wheel time of the next thing a driver must wake for: the earliest deadline among the
     * nodes already in the due heap, or else the start of the next slot that must move down, or
     * a step of moving a large slot down ahead of its start. Never later than the earliest
     * pending deadline; may be in the past (then {@link #poll}).
     *
     * @return that wheel time, or {@link Long#MAX_VALUE} if nothing is pending
     */
    public long nextEventTime() {
        long staged = staging == null ? Long.MAX_VALUE : staging.earliest(); // [11]
        TimerNode head = due.peek();
        if (head != null) {
            return Math.min(staged, head.deadline);
        }
        long eventTick = Math.min(Math.min(nextCascadeTick(), nextPacingTick()), presortTick);
        return Math.min(staged, eventTick == Long.MAX_VALUE ? Long.MAX_VALUE : eventTick * tickNanos);
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
     * O(1) when a node is due, else a scan of the first occupied bucket of each level.
     *
     * @return that node, or null if nothing is pending
     */
    @SuppressWarnings("unchecked")
    public T peekEarliest() {
        placeStaged();
        TimerNode head = due.peek();
        if (head != null) {
            return (T) head;
        }
        // Within a level the first occupied bucket holds the level's earliest ticks, but levels
        // overlap ([3]); overflow ticks lie beyond every level's ([6]).
        TimerNode earliest = null;
        for (int level = 0; level < levels; level++) {
            long index = firstOccupiedIndex(level);
            if (index >= 0) {
                Bucket bucket = buckets[level][(int) index & ringMask];
                earliest = earliestIn(bucket, earliest);
                if (bucket.stragglers != null) {
                    earliest = earliestIn(bucket.stragglers, earliest);
                }
                TimerNode presorted = bucket.presorted == null ? null : bucket.presorted.peek();
                if (presorted != null && (earliest == null || TimerNode.precedes(presorted, earliest))) {
                    earliest = presorted;
                }
            }
        }
        return (T) (earliest != null ? earliest : earliestIn(overflow, null));
    }

    private static TimerNode earliestIn(Bucket bucket, TimerNode earliest) {
        for (TimerNode node = bucket.next; node != bucket; node = node.next) {
            if (earliest == null || TimerNode.precedes(node, earliest)) {
                earliest = node;
            }
        }
        return earliest;
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
        due.forEach(node -> action.accept((T) node));
        if (staging != null) {
            staging.forEach(node -> action.accept((T) node));
        }
        for (int level = 0; level < levels; level++) {
            for (int slot = occupied[level].nextSetAfter(-1); slot >= 0;
                    slot = occupied[level].nextSetAfter(slot)) {
                Bucket bucket = buckets[level][slot];
                forEachIn(bucket, action);
                if (bucket.stragglers != null) {
                    forEachIn(bucket.stragglers, action);
                }
                if (bucket.presorted != null) {
                    bucket.presorted.forEachInOrder(node -> action.accept((T) node));
                }
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
        if (staging != null) {
            for (TimerNode node; (node = staging.takeBefore(staging.end())) != null; ) {
                drained.add(node);
            }
        }
        due.clear(drained::add);
        for (int level = 0; level < levels; level++) {
            for (int slot = occupied[level].nextSetAfter(-1); slot >= 0;
                    slot = occupied[level].nextSetAfter(slot)) {
                Bucket bucket = buckets[level][slot];
                TimingWheel.<TimerNode>drainBucket(bucket, drained::add);
                if (bucket.stragglers != null) {
                    TimingWheel.<TimerNode>drainBucket(bucket.stragglers, drained::add);
                }
                if (bucket.presorted != null) {
                    bucket.presorted.forEachInOrder(node -> {
                        node.heapIndex = TimerNode.NOT_IN_HEAP;
                        drained.add(node);
                    });
                    bucket.presorted = null;
                }
            }
            occupied[level].clearAll();
        }
        TimingWheel.<TimerNode>drainBucket(overflow, drained::add);
        overflowMinTick = Long.MAX_VALUE;
        presortTick = Long.MAX_VALUE;
        size = 0;
        for (TimerNode node : drained) {
            sink.accept((T) node);
        }
        return drained.size();
    }

    @Override
    public String toString() {
        return "TimingWheel[size=" + size + ", due=" + due.size() + ", currentTick=" + currentTick
                + ", tickNanos=" + tickNanos + ", slotsPerLevel=" + ((ringMask + 1) / 2)
                + ", levels=" + levels + "]";
    }

    // ---------------------------------------------------------------------------------------
    // Staging ([11]).

    /**
     * Stages an arrival; if the ring is full, first places its oldest quarter.
     *
     * @return the wheel time by which a driver must poll on account of this node and of those
     *     placed to make room ([10])
     */
    private long stage(TimerNode node) {
        long event = staging.isFull()
                ? placeStagedBefore(staging.endOfOldest(staging.capacity() / 4))
                : Long.MAX_VALUE;
        staging.add(node);
        return Math.min(event, node.deadline);
    }

    /**
     * What every poll does first, once ([11]): moves the staging threshold to STAGE_LEAD_TICKS
     * after {@code now}, and places every staged node before anything is looked at.
     */
    private void beginPoll(long now) {
        if (staging != null) {
            stageFrom = Math.max(stageFrom, addSaturated(now, stageLeadNanos));
            placeStaged();
        }
    }

    /** Places every staged node, in arrival order, relative to currentTick ([11]). */
    private void placeStaged() {
        if (staging != null && !staging.isEmpty()) {
            placeStagedBefore(staging.end());
        }
    }

    /**
     * Places the staged nodes at ring positions before {@code end}, in arrival order, relative
     * to currentTick ([11]).
     *
     * @return the earliest wheel time by which a driver must poll on their account ([10])
     */
    private long placeStagedBefore(int end) {
        long event = Long.MAX_VALUE;
        for (TimerNode node; (node = staging.takeBefore(end)) != null; ) {
            event = Math.min(event, place(node, ticks.divide(node.deadline)));
            stagedPlaced++;
        }
        return event;
    }

    // ---------------------------------------------------------------------------------------
    // Placement and cascading.

    /**
     * Puts {@code node}, due at {@code tick}, where invariant [2] says it belongs.
     *
     * @return the wheel time by which a driver must poll on the node's account ([10])
     */
    private long place(TimerNode node, long tick) {
        if (tick <= currentTick) {
            due.add(node);
            return node.deadline;
        }
        int level = levelFor(tick);
        if (level == levels) {
            overflow.append(node);
            overflowMinTick = Math.min(overflowMinTick, tick);
            return Math.max(currentTick, overflowCascadeTick()) * tickNanos;
        }
        int shift = level * slotBits;
        long index = tick >>> shift;
        int slot = (int) index & ringMask;
        Bucket bucket = buckets[level][slot];
        if (bucket == null) {
            bucket = newBucket(level, slot); // [15]
        }
        boolean straggler = bucket.add(node); // at level 0, into the ordered list or its stragglers ([13])
        occupied[level].set(slot);
        if (level == 0) {
            long stragglers = straggler ? bucket.stragglers.count : 0L;
            if (stragglers >= PRESORT_MIN && (stragglers & (PRESORT_MIN - 1)) == 0) {
                long sortAt = presortTickOf(tick, stragglers); // [14]
                presortTick = Math.min(presortTick, sortAt);
                return Math.min(node.deadline, sortAt * tickNanos);
            }
            return node.deadline;
        }
        long start = index << shift;
        // A slot large enough to be paced starts moving down when it becomes next ([10]).
        long eventTick = bucket.count > PACING_CHUNK ? becomesNext(start, shift) : start;
        return eventTick * tickNanos;
    }

    /** Makes the bucket of a ring slot when a node first goes there ([15]). */
    private Bucket newBucket(int level, int slot) {
        Bucket bucket = level == 0 ? Bucket.levelZero(slot) : new Bucket(level, slot);
        buckets[level][slot] = bucket;
        return bucket;
    }

    /** The level of [2] for {@code tick > currentTick}, or {@code levels} for the overflow. */
    private int levelFor(long tick) {
        // The level of the highest digit in which tick and currentTick differ qualifies (above
        // it they agree); a level qualifies whenever the one below does, so walk down while the
        // one below still does. Usually that is zero or one step.
        int level = levelOfBit[63 - Long.numberOfLeadingZeros(tick ^ currentTick)];
        int shift = level * slotBits;
        while (level > 0 && (tick >>> shift) - (currentTick >>> shift) <= 1) {
            level--;
            shift -= slotBits;
        }
        return level;
    }

    /** Notes that the list {@code emptied} has become empty. */
    private void markEmpty(Bucket emptied) {
        Bucket bucket = emptied.owner; // a level-0 bucket's stragglers belong to it ([13])
        if (bucket.level == Bucket.OVERFLOW) {
            overflowMinTick = Long.MAX_VALUE;
        } else if (bucket.level != Bucket.DUE_FRONT && bucket.isVacant()) { // the front has no bit
            occupied[bucket.level].clear(bucket.slot);
        }
    }

    /**
     * Moves currentTick forward to {@code targetTick}, cascade by cascade ([4]), but stops as
     * soon as the due heap holds a node ([9]).
     */
    private void advanceTo(long targetTick) {
        while (currentTick < targetTick && due.isEmpty()) {
            long from = currentTick;
            long cascadeTick = nextCascadeTick();
            if (cascadeTick > targetTick) {
                currentTick = targetTick;
            } else {
                // Long.MAX_VALUE also means "none"; cascadeAt finds nothing to do then.
                currentTick = cascadeTick;
                cascadeAt(cascadeTick);
            }
            paceEarlyCascades(from);
        }
        if (presortTick <= currentTick) {
            presortAhead();
        }
    }

    /** Re-places every bucket that starts at {@code tick}, the current tick ([4]). */
    private void cascadeAt(long tick) {
        due.beginBatch(); // what comes due here comes due together: DueHeap may sort it once
        try {
            if (!overflow.isEmpty() && overflowCascadeTick() == tick) {
                overflowMinTick = Long.MAX_VALUE;
                replaceAll(overflow);
            }
            for (int level = levels - 1; level >= 0; level--) {
                // An occupied bucket in this ring position has idx_level == idx_level(tick): by
                // [2] it lies within two laps ahead of an earlier currentTick, and it does not
                // start before tick, since time never passes a cascade.
                int slot = (int) (tick >>> (level * slotBits)) & ringMask;
                if (occupied[level].get(slot)) {
                    occupied[level].clear(slot);
                    Bucket bucket = buckets[level][slot];
                    if (level == 0) {
                        // All of it comes due now. Its ordered list becomes the due nodes'
                        // front in O(1) ([13]) unless a front is still being polled; what is
                        // walked sizes the batch once. The count is an upper bound (cancels do
                        // not lower it), so a list thinned by cancels reserves more than it
                        // fills: at most 20 bytes per node appended, against the 40 or more
                        // each node took to make. endBatch drops arrays filled less than a
                        // quarter; a run's slots go when the run is polled.
                        Bucket stragglers = bucket.stragglers;
                        boolean adopted = due.adopt(bucket);
                        due.reserve((adopted ? 0 : bucket.count) + stragglers.count);
                        if (!adopted) {
                            replaceAll(bucket);
                        }
                        if (bucket.presorted != null) { // sorted ahead of the tick ([14])
                            due.addRun(bucket.presorted);
                            bucket.presorted = null;
                        }
                        replaceAll(stragglers);
                        continue;
                    }
                    replaceAll(bucket);
                }
            }
        } finally {
            due.endBatch();
        }
    }

    /**
     * The tick at which the stragglers of the level-0 bucket of {@code tick}, {@code count} of
     * them, are to be sorted ahead of it ([14]): early enough for the sort, at most a lap of
     * level 0 before, and not before currentTick (then: now).
     */
    private long presortTickOf(long tick, long count) {
        long lead = 1L + count * PRESORT_NANOS_PER_NODE / tickNanos;
        return Math.max(currentTick, tick - Math.min(lead, (ringMask + 1) >>> 1));
    }

    /**
     * Sorts the stragglers of every level-0 bucket whose time for it has come ([14]), and
     * finds when the next one's comes.
     */
    private void presortAhead() {
        presortTick = Long.MAX_VALUE;
        int currentSlot = (int) currentTick & ringMask;
        for (int slot = occupied[0].nextSetAfter(-1); slot >= 0; slot = occupied[0].nextSetAfter(slot)) {
            Bucket bucket = buckets[0][slot];
            long count = bucket.stragglers.count;
            if (count < PRESORT_MIN) {
                continue;
            }
            long sortAt = presortTickOf(currentTick + ((slot - currentSlot) & ringMask), count);
            if (sortAt <= currentTick) {
                presort(bucket);
            } else {
                presortTick = Math.min(presortTick, sortAt);
            }
        }
    }

    /**
     * Sorts the stragglers of level-0 {@code bucket}, with its presorted run if it has one,
     * into its presorted run ([14]).
     */
    private void presort(Bucket bucket) {
        DueRun earlier = bucket.presorted;
        int size = (int) Math.min(Integer.MAX_VALUE - 8, bucket.stragglers.count + (earlier == null ? 0 : earlier.live()));
        TimerNode[] nodes = new TimerNode[size];
        long[] deadlines = new long[size];
        long[] sequences = new long[size];
        int[] filled = {0};
        // Each node's keys are copied while it is in hand, as DueHeap's batch does (DueRun [1]).
        Consumer<TimerNode> collect = node -> {
            int slot = filled[0]++;
            nodes[slot] = node;
            deadlines[slot] = node.deadline;
            sequences[slot] = node.sequence;
            node.heapIndex = DueHeap.runIndexOf(slot);
        };
        if (earlier != null) {
            earlier.forEachInOrder(collect);
        }
        for (TimerNode node = bucket.stragglers.detachAll(); node != null; ) {
            TimerNode following = node.next;
            node.prev = null;
            node.next = null;
            collect.accept(node);
            node = following;
        }
        int count = filled[0];
        DueRun sorted = count == 0 ? null : DueRun.sort(nodes, deadlines, sequences, count);
        bucket.presorted = sorted;
        if (sorted == null) { // a tick too long for the keys (DueRun [3]): they wait as stragglers
            for (int i = 0; i < count; i++) {
                nodes[i].heapIndex = TimerNode.NOT_IN_HEAP;
                bucket.stragglers.append(nodes[i]);
            }
        }
    }

    /** Takes {@code node} out of its bucket's presorted run ([14]). */
    private void removePresorted(TimerNode node) {
        Bucket bucket = buckets[0][(int) ticks.divide(node.deadline) & ringMask];
        DueRun run = bucket.presorted;
        run.remove(DueHeap.runSlotOf(node.heapIndex));
        if (run.live() == 0) {
            bucket.presorted = null;
            markEmpty(bucket);
        }
    }

    /**
     * Moves down each level's share of its next bucket for the advance from {@code from} to
     * currentTick ([3]). The nodes land below every next bucket, so the order of levels does
     * not matter.
     */
    private void paceEarlyCascades(long from) {
        for (int level = 1; level < levels; level++) {
            int shift = level * slotBits;
            long nextIndex = (currentTick >>> shift) + 1;
            int slot = (int) nextIndex & ringMask;
            if (!occupied[level].get(slot)) {
                continue;
            }
            // Occupied, so it holds a pending tick of that index ([7]): nextStart fits a long.
            long nextStart = nextIndex << shift;
            long since = Math.max(from, nextStart - (1L << shift)); // next since its predecessor began
            long elapsed = currentTick - since;
            if (elapsed > 0) {
                Bucket bucket = buckets[level][slot];
                moveDown(bucket, share(bucket.count, elapsed, nextStart - since));
            }
        }
    }

    /** {@code ceil(count * part / whole)} for {@code 0 < part < whole}, at least 1. */
    private static long share(long count, long part, long whole) {
        // In double: count * part may not fit a long, and pacing needs no exact quotient.
        return Math.max(1L, (long) Math.ceil(count * ((double) part / whole)));
    }

    /** Re-places up to {@code quota} nodes of {@code bucket}, which all fit a lower level. */
    private void moveDown(Bucket bucket, long quota) {
        for (long left = quota; left > 0; left--) {
            TimerNode node = bucket.removeFirst();
            if (node == null) {
                break;
            }
            if (bucket.isEmpty()) {
                markEmpty(bucket);
            }
            place(node, ticks.divide(node.deadline));
            movedNodes++;
        }
    }

    /**
     * Empties {@code bucket} and places each of its nodes again relative to currentTick, in list
     * order, walking the list from both ends at once ([12]).
     */
    private void replaceAll(Bucket bucket) {
        TimerNode front = bucket.detachRing();
        if (front == null) {
            return;
        }
        TimerNode back = front.prev; // the last node
        TimerNode[] later = walkStack;
        if (later.length == 0 && front != back) {
            later = walkStack = new TimerNode[WALK_STACK];
        }
        // Placed: the nodes before 'front'. On the stack: those after 'back', the last at the
        // bottom. Still to visit: 'front' to 'back'.
        int depth = 0;
        while (front != back && depth < later.length) {
            TimerNode afterFront = front.next; // both loads before either node is touched again:
            TimerNode beforeBack = back.prev;  // two misses in flight, not one
            later[depth++] = back;
            replace(front);
            if (afterFront == back) {
                front = null; // every node visited
                break;
            }
            front = afterFront;
            back = beforeBack;
        }
        while (front != null) { // the stack is full, or one node is left in the middle
            TimerNode following = front == back ? null : front.next;
            replace(front);
            front = following;
        }
        while (depth > 0) {
            TimerNode node = later[--depth];
            later[depth] = null; // the stack holds no node once it is placed
            replace(node);
        }
    }

    /** Places a node that has just left its bucket again, relative to currentTick. */
    private void replace(TimerNode node) {
        node.prev = null;
        node.next = null;
        place(node, ticks.divide(node.deadline));
        movedNodes++;
    }

    /** The tick of the next cascade ([4]), or Long.MAX_VALUE if the wheel holds nothing beyond the heap. */
    private long nextCascadeTick() {
        // Test emptiness, not the bound: with a 1 ns tick a deadline of Long.MAX_VALUE has that tick.
        long earliest = overflow.isEmpty() ? Long.MAX_VALUE : overflowCascadeTick();
        for (int level = 0; level < levels; level++) {
            long index = firstOccupiedIndex(level);
            if (index >= 0) {
                earliest = Math.min(earliest, index << (level * slotBits));
            }
        }
        return earliest;
    }

    /** The tick of the next pacing step that moves a worthwhile chunk ([5]), or Long.MAX_VALUE. */
    private long nextPacingTick() {
        long earliest = Long.MAX_VALUE;
        for (int level = 1; level < levels; level++) {
            long index = firstOccupiedIndex(level);
            if (index < 0) {
                continue;
            }
            long count = buckets[level][(int) index & ringMask].count;
            if (count > PACING_CHUNK) {
                int shift = level * slotBits;
                long start = index << shift;
                long since = becomesNext(start, shift);
                // Ticks until the share of [3] reaches PACING_CHUNK; fewer than start - since.
                long step = Math.max(1L, (long) ((double) (start - since) * PACING_CHUNK / count));
                earliest = Math.min(earliest, since + step);
            }
        }
        return earliest;
    }

    /**
     * The tick from which a level's slot starting at tick {@code start} is next ([3]): one
     * slot of the level (of 2^{@code shift} ticks) before its start, or now if that has passed.
     */
    private long becomesNext(long start, int shift) {
        return Math.max(currentTick, start - (1L << shift));
    }

    /**
     * idx_level of the first occupied bucket of {@code level} after currentTick's, or -1.
     * Searches round the ring; currentTick's own bucket is always empty ([2]).
     */
    private long firstOccupiedIndex(int level) {
        long currentIndex = currentTick >>> (level * slotBits);
        int currentSlot = (int) currentIndex & ringMask;
        int slot = occupied[level].nextSetAfter(currentSlot);
        if (slot < 0) {
            slot = occupied[level].nextSetAfter(-1);
            if (slot < 0) {
                return -1;
            }
        }
        return currentIndex + ((slot - currentSlot) & ringMask);
    }

    /** The first tick of the top-level range just before the one that holds overflowMinTick ([6]). */
    private long overflowCascadeTick() {
        return ((overflowMinTick >>> overflowShift) - 1) << overflowShift;
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

    /** The staging ring ([11]), or null. */
    StagingRing staging() {
        return staging;
    }

    /** The bucket of a ring slot, or null if no node has gone there yet ([15]); for tests. */
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

    /** The buckets per level: two laps of slotsPerLevel. */
    int ringSize() {
        return ringMask + 1;
    }

    /** How many staged nodes were placed so far ([11]). */
    long stagedPlaced() {
        return stagedPlaced;
    }

    /** How many node moves cascades have made so far. */
    long movedNodes() {
        return movedNodes;
    }
}
