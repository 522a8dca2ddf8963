package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimerNode;
import io.github.timingwheel.core.TimingWheel;
import io.github.timingwheel.core.WheelShape;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * The shards of a {@link WheelWorkQueue} seen as one wheel: which shard a task lives in, one
 * merged view of time (the earliest of what every shard publishes), and the harvest that takes
 * due tasks out of the shards that have any, in one (deadline, sequence) order.
 */
final class WheelShards {

    /*
     * Implementation notes
     *
     * [1] Placement. A task's shard is fixed when the task is made: the making thread's home
     *     shard, from a per-thread probe (as Striped64's). Threads get their first home in turn
     *     (the JVM's n-th producer thread starts at shard n mod shards), so as many producers
     *     as shards start on as many shards. A random draw (made odd, as Striped64's probe is
     *     nonzero) put two producers of four shards on one shard in half the runs, where each
     *     CAS of its lock and each link beside the other's tasks moves a line between cores,
     *     with no busy lock to move them apart. A virtual thread, which typically schedules
     *     for one request and ends, starts at a shard its id picks, spread at random: a count
     *     that every new thread increments would be a write to one shared line per request. A
     *     producer that finds its shard's lock busy moves its probe to one of the other shards
     *     at random for its next tasks, so producers spread over the shards and rarely meet on
     *     one lock or cache line (WheelShard [2]). Each thread keeps its probe and its last
     *     stamp ([6]) in one Producer for every queue (PRODUCERS), touched only by that thread.
     *     It is one thread-local of the JVM, not one per queue, because a thread's first
     *     look-up of a thread-local inside a compiled schedule is a branch the JIT had never
     *     seen taken: with one per queue, the first schedule of an old thread on a new queue
     *     threw away the compiled schedule path and whatever had inlined it (an arming loop
     *     then ran interpreted for a few hundred milliseconds, into its own timers' window).
     *     The stamp it keeps is a System.nanoTime reading, so the queues on that clock (all
     *     but tests') share it: max(now, last + 1) in one queue's wheel time is the same rule
     *     in every other's, by the difference of origins. A queue on another clock keeps its
     *     producers' stamps in a thread-local of its own ('ownClockStamps'): stamps of
     *     different clocks must not mix.
     * [2] The merged view of time is the minimum of each shard's published lower bound
     *     (WheelShard [3], [4]): plain volatile reads, no lock. No step takes every shard's lock
     *     on every park: the leader locks only the shards whose bound says something is due.
     * [3] Harvest. The leader locks the due shards in index order, applies a share of each
     *     inbox (inboxShare: so a task pushed just before is handed out in its place), and
     *     then repeatedly drains the shard whose due head has the smallest
     *     (deadline, sequence), up to the head of the runner-up, so that what it hands out is
     *     in one order across shards ([6]) and a shard that alone has due tasks is drained in
     *     one call. Each harvested shard then publishes its exact next event and is unlocked
     *     without the help with the inbox that a producer gives as it unlocks (WheelShard [2]):
     *     producers apply what they pushed on their own time. A harvest applies up to
     *     DRAIN_BATCH of each inbox, so that tasks pushed while the shard was busy are handed
     *     out in their place; but from a flooded shard, whose due work is already late by
     *     BACKLOG_LAG_NANOS (backpressure's condition, WheelWorkQueue [4]) and whose inbox holds
     *     more than a DRAIN_BATCH, only about what it hands out, its batch split among the
     *     shards it holds. Then the worker's time
     *     goes to running tasks and the producers apply their own (a full inbox sends them to
     *     its lock, WheelShard [2]); order among due tasks holds across what the harvests
     *     applied, and tasks left in an inbox come after. A shard whose inbox holds more asks
     *     to be looked at again at once (WheelShard [4]), so the inbox still drains when the
     *     producers stop. A task whose cancel still waits in an inbox past what was applied is
     *     dropped when polled, never handed out.
     * [4] Views (size, contains, remove, snapshots) lock every shard in index order; they are
     *     not on the hot path.
     * [5] Lazy re-arm. A re-armable task whose old place comes due but whose armed deadline
     *     (ArmedDeadline) a touch has moved past now is re-linked in its shard for that
     *     deadline, under the lock the harvest holds, instead of being handed out; so a task
     *     touched many times between two harvests costs one re-link. It gets a new stamp ([6])
     *     from the harvest's clock read: among equal deadlines it goes after tasks scheduled
     *     before the touch that moved it (as near as the harvest can tell: after those
     *     scheduled before the re-link).
     * [6] Sequences without a shared counter. A task's sequence is (stamp << SHARD_BITS) |
     *     shard index. The stamp is given when the task is made, on the making thread, from
     *     the same clock read as its deadline: max(now, that thread's previous stamp + 1), a
     *     hybrid logical clock per thread. So equal deadlines run in submission order for
     *     submissions made by one thread (its stamps increase even when the clock stands
     *     still), and for submissions by different threads ordered by happens-before whose
     *     clock reads differ: the later one read a later time, so it has the larger stamp,
     *     whatever shard it lands in (System.nanoTime's reads around a hand-off between
     *     threads do differ; a manual test clock that stands still gives equal reads, and
     *     then such ties go by shard index). That is all the ScheduledThreadPoolExecutor
     *     contract asks (FIFO among tasks due at exactly the same time), and it costs no
     *     write to a shared cache line: the one queue-wide counter it replaces was the hot
     *     path's ceiling from two producers on (docs/design.md). The ties between
     *     submissions on different threads that read the same time are not ordered, as
     *     they are not ordered by any clock. A task keeps its stamp when it is queued again
     *     (a periodic run, a re-offer), as the JDK's executor keeps its sequence number. The
     *     stamp is wheel time, whose low 57 bits the sequence keeps: equal deadlines of a
     *     task queued before and one queued after a multiple of 2^57 ns (4.5 years) of the
     *     queue's age run newest first.
     * [7] A held shard is skipped (WheelShard [7]). The worker's harvest takes a due shard's
     *     lock only if it gets it within a few spins; otherwise it leaves the shard's flag up,
     *     notes the shard in 'skipped', and hands out the other shards' due tasks. Until its
     *     next harvest the leader plans as if the skipped shards had nothing due
     *     (earliestEventForLeader), and parks at most HELD_RETRY_NANOS: the holder wakes it as
     *     it lets go, and the timed park covers a wake-up that read missed; the next harvest
     *     takes a skipped shard's lock whether or not anything there is still due, which
     *     brings its flag down. So the firing side
     *     waits for no producer, and a held shard's due tasks run right after it is free, or
     *     within HELD_RETRY_NANOS of that. The price is order: those tasks may then run after
     *     later-deadline tasks of other shards that were handed out while the shard was held.
     *     Exact (deadline, sequence) order across shards holds whenever no shard is held
     *     through a harvest's spins, which on a machine with a core free is nearly always.
     */

    /**
     * How long the leader parks at most while a shard it skipped is held ([7]): the bound on a
     * missed wake-up from the holder. A few harvests' worth of time, so a held shard costs the
     * leader a few cheap wake-ups per millisecond at most.
     */
    static final long HELD_RETRY_NANOS = 50_000L;
    /**
     * The fewest inbox tasks a harvest applies in a shard it holds ([3]): a harvest that finds
     * only an inbox to apply (cancels, say) still moves it on by a few cache lines' worth.
     */
    static final int MIN_INBOX_SHARE = 8;

    private final WheelShard[] shards;
    private final int mask;
    /** The origin of every shard's wheel; read by every producer, written by no one. */
    private final long originNanos;
    /** The calling thread's probe, and its last stamp on System.nanoTime, for every queue ([1], [6]). */
    private static final ThreadLocal<Producer> PRODUCERS = ThreadLocal.withInitial(WheelShards::newProducer);
    /** Platform producer threads so far: the next one's first home ([1]). */
    private static final AtomicInteger PRODUCER_COUNT = new AtomicInteger();

    /**
     * The calling thread's last stamp in this queue, if its clock is not System.nanoTime ([1]);
     * null if it is (then PRODUCERS keeps the stamps).
     */
    private final ThreadLocal<long[]> ownClockStamps;
    /** The shards the harvest has locked, in index order; used only by the harvesting worker. */
    private final WheelShard[] harvesting;
    /**
     * Each locked shard's due head, or null; used only by the harvesting worker. Typed as the
     * wheel's bound, so that storing a head needs no cast: a cast of a head that is null (a
     * shard whose event was a cascade, with nothing due) is a case the compiled harvest may
     * never have met, and meeting it threw the compiled harvest away in the middle of a burst.
     */
    private final TimerNode[] heads;
    /**
     * Bit i set if the last harvest skipped shard i, held by another thread ([7]); written by
     * the harvesting worker and read by the workers' planning, all under the queue's worker lock.
     */
    private long skipped;
    /** The worker whose harvest skipped a shard, for the shard's holder to wake ([7]); any thread. */
    private volatile Thread skippingWorker;

    /**
     * Shards on a clock of their own (a test's): stamps kept per queue ([1]).
     *
     * @param shardCount a power of two, at most {@link WheelShard#MAX_SHARDS}
     */
    WheelShards(int shardCount, WheelShape shape, long originNanos) {
        this(shardCount, shape, originNanos, false);
    }

    /**
     * @param shardCount a power of two, at most {@link WheelShard#MAX_SHARDS}
     * @param originNanos the wheels' origin, a reading of the queue's clock
     * @param systemClock whether that clock is System.nanoTime, whose stamps every such queue
     *     shares ([1])
     */
    WheelShards(int shardCount, WheelShape shape, long originNanos, boolean systemClock) {
        if (shardCount <= 0 || shardCount > WheelShard.MAX_SHARDS || Integer.bitCount(shardCount) != 1) {
            throw new IllegalArgumentException("shards must be a power of two from 1 to "
                    + WheelShard.MAX_SHARDS + ": " + shardCount);
        }
        this.shards = new WheelShard[shardCount];
        for (int i = 0; i < shardCount; i++) {
            shards[i] = new WheelShard(i, shape, originNanos, this::wakeHarvester);
        }
        this.mask = shardCount - 1;
        this.originNanos = originNanos;
        this.ownClockStamps = systemClock ? null : ThreadLocal.withInitial(() -> new long[] {-1L});
        this.harvesting = new WheelShard[shardCount];
        this.heads = new TimerNode[shardCount];
    }

    int count() {
        return shards.length;
    }

    /**
     * Wheel time of a {@code System.nanoTime()}-style reading: the time since the wheels'
     * common origin, as each wheel's {@code TimingWheel.wheelTime} gives it. Kept here, in a
     * field no one writes, because every schedule reads it: a wheel's own origin shares a
     * cache line with the counts its shard's holder writes on every link, which another
     * shard's producer would then pull across cores on every read.
     */
    long wheelTime(long nanoTime) {
        return Math.max(0L, nanoTime - originNanos); // wrap-safe: a difference of two readings
    }

    // ---------------------------------------------------------------------------------------
    // Producers ([1]).

    /** The shard a task made by the calling thread now goes to; for tests. */
    int homeShard() {
        return PRODUCERS.get().probe() & mask;
    }

    /**
     * Gives a task being made now by the calling thread its deadline, its shard and its stamp
     * ([1], [6]), from one clock read.
     *
     * @param now wheel time, read just now
     * @param deadline wheel time
     */
    void place(WheelTask task, long now, long deadline) {
        Producer producer = PRODUCERS.get();
        task.place(deadline, sequence(nextStamp(producer, now), producer.probe() & mask));
    }

    /** The next stamp in this queue of the calling thread, whose Producer is {@code producer} ([1], [6]). */
    private long nextStamp(Producer producer, long now) {
        return ownClockStamps == null ? producer.nextStamp(now, originNanos) : nextOwnClockStamp(now);
    }

    /** The calling thread's next stamp in this queue on a clock of its own ([1], [6]). */
    private long nextOwnClockStamp(long now) {
        long[] last = ownClockStamps.get();
        return last[0] = Producer.stampAfter(last[0], now);
    }

    WheelShard shardOf(WheelTask task) {
        return shards[(int) task.sequence() & mask];
    }

    /**
     * Applies a task being queued, or one whose state changed, in its shard ([1]).
     *
     * @return the shard, whose published bound the caller compares with the leader's park
     */
    WheelShard submit(WheelTask task, boolean queueing) {
        return submit(task, queueing, null);
    }

    /**
     * As {@link #submit(WheelTask, boolean)}, counting the submission in {@code counts} unless
     * it is null (WheelShard [8]): a task being queued as scheduled, any other as cancelled.
     */
    WheelShard submit(WheelTask task, boolean queueing, TaskCounters counts) {
        WheelShard shard = shardOf(task);
        if (!shard.submit(task, queueing, counts) && queueing) {
            PRODUCERS.get().moveProbe(mask);
        }
        return shard;
    }

    /**
     * A thread's Producer: at the next home in turn, or, for a virtual thread, at a random one
     * ([1]); its last stamp just before the clock now, so that its first is not before now.
     */
    private static Producer newProducer() {
        Thread me = Thread.currentThread();
        long lastStamp = System.nanoTime() - 1L;
        return VirtualThreads.is(me)
                ? new VirtualProducer(scatter(me.getId()), lastStamp)
                : new PaddedProducer(PRODUCER_COUNT.getAndIncrement(), lastStamp);
    }

    /**
     * A thread's id spread over the int range (Fibonacci hashing): a home at random for virtual
     * threads without a shared write ([1]; ThreadLocalRandom's first use on a new thread
     * increments two shared seeds).
     */
    private static int scatter(long threadId) {
        return (int) ((threadId * 0x9E3779B97F4A7C15L) >>> 32);
    }

    /** A task's sequence: its stamp's low 57 bits, then its shard's index ([6]). */
    private static long sequence(long stamp, int shardIndex) {
        return stamp << WheelShard.SHARD_BITS | shardIndex;
    }

    /**
     * A thread's probe and last stamp, for every queue ([1], [6]); read and written only by that
     * thread. A platform thread's is padded (PaddedProducer); a virtual thread's is not
     * (VirtualProducer): it typically lives for one request, and 128 bytes of padding made per
     * request were a third of what arming and cancelling a timeout allocated there.
     */
    private abstract static class Producer {

        /** The home shard's index is probe() & mask. */
        abstract int probe();

        /**
         * A stamp later than this thread's previous one and not before {@code now}, in the wheel
         * time of a queue on System.nanoTime whose origin is {@code originNanos} ([1], [6]).
         */
        abstract long nextStamp(long now, long originNanos);

        /** Moves the home to one of the other shards at random ([1]); with one shard, stays. */
        abstract void moveProbe(int mask);

        static long stampAfter(long lastStamp, long now) {
            return Math.max(now, lastStamp + 1L);
        }

        /**
         * The stamp after {@code lastNanos}, a System.nanoTime reading, in the wheel time of a
         * queue whose origin is {@code originNanos} ([1]): a difference, so wrap-safe.
         */
        static long stampAfterNanos(long lastNanos, long now, long originNanos) {
            return stampAfter(lastNanos - originNanos, now);
        }

        static int probeMoved(int probe, int mask) {
            return probe + 1 + ThreadLocalRandom.current().nextInt(Math.max(1, mask));
        }
    }

    /** Padding before a PaddedProducer's fields; 'p00' as in WheelShardPadBefore. */
    private abstract static class ProducerPadBefore extends Producer {
        int p00;
        long p01, p02, p03, p04, p05, p06, p07, p08;
    }

    /** A PaddedProducer's fields, between two paddings. */
    private abstract static class ProducerFields extends ProducerPadBefore {
        int probe;
        /** The last stamp, as a System.nanoTime reading ([1]). */
        long lastNanos;
    }

    /**
     * A platform thread's Producer, padded: a garbage collector may copy two threads' Producers
     * next to each other, and one thread's write of its stamp on every schedule would then pull
     * the line from the other's core.
     */
    private static final class PaddedProducer extends ProducerFields {
        long p11, p12, p13, p14, p15, p16, p17, p18;

        PaddedProducer(int probe, long lastNanos) {
            this.probe = probe;
            this.lastNanos = lastNanos;
        }

        @Override
        int probe() {
            return probe;
        }

        @Override
        long nextStamp(long now, long originNanos) {
            long stamp = stampAfterNanos(lastNanos, now, originNanos);
            lastNanos = stamp + originNanos;
            return stamp;
        }

        @Override
        void moveProbe(int mask) {
            probe = probeMoved(probe, mask);
        }
    }

    /** A virtual thread's Producer: the same state, unpadded (see Producer). */
    private static final class VirtualProducer extends Producer {
        private int probe;
        /** The last stamp, as a System.nanoTime reading ([1]). */
        private long lastNanos;

        VirtualProducer(int probe, long lastNanos) {
            this.probe = probe;
            this.lastNanos = lastNanos;
        }

        @Override
        int probe() {
            return probe;
        }

        @Override
        long nextStamp(long now, long originNanos) {
            long stamp = stampAfterNanos(lastNanos, now, originNanos);
            lastNanos = stamp + originNanos;
            return stamp;
        }

        @Override
        void moveProbe(int mask) {
            probe = probeMoved(probe, mask);
        }
    }

    // ---------------------------------------------------------------------------------------
    // The merged view of time ([2]) and the harvest ([3]): any thread for the first, the
    // worker holding the queue's worker lock for the second.

    /** The earliest published bound over all shards, in wheel time; MAX_VALUE if none. */
    long earliestEvent() {
        long earliest = Long.MAX_VALUE;
        for (WheelShard shard : shards) {
            earliest = Math.min(earliest, shard.nextEvent());
        }
        return earliest;
    }

    /**
     * The earliest published bound over the shards the last harvest did not skip, and
     * {@code heldRetryAt} (wheel time) if it skipped any ([7]): what the workers plan by. Call
     * only under the queue's worker lock.
     */
    long earliestEventForLeader(long heldRetryAt) {
        if (skipped == 0L) {
            return earliestEvent();
        }
        long earliest = heldRetryAt;
        for (WheelShard shard : shards) {
            if ((skipped & 1L << shard.index) == 0L) {
                earliest = Math.min(earliest, shard.nextEvent());
            }
        }
        return earliest;
    }

    /** Wakes the worker whose harvest skipped a shard ([7]); called by the shard's holder as it lets go. */
    private void wakeHarvester() {
        LockSupport.unpark(skippingWorker);
    }

    /**
     * Moves up to {@code max} due tasks out of the shards that have any, in (deadline,
     * sequence) order ([3]); a shard held by another thread is skipped unless {@code wait} ([7]).
     *
     * @param wait whether to wait for a held shard (drainTo, which must take every due task)
     * @return how many tasks it put into {@code into}, from index 0
     */
    int harvest(long nanoTime, WheelTask[] into, int max, boolean wait) {
        long now = wheelTime(nanoTime);
        int locked = 0;
        long held = 0L;
        for (WheelShard shard : shards) {
            // A shard skipped last time is taken up again even if nothing there is due now, so
            // that its flag comes down and producers go back to its lock ([7]).
            if (shard.nextEvent() <= now || (skipped & 1L << shard.index) != 0L) {
                if (shard.lockForHarvest(wait)) {
                    harvesting[locked++] = shard;
                } else {
                    held |= 1L << shard.index;
                }
            }
        }
        if (held != 0L) {
            skippingWorker = Thread.currentThread(); // before skipped is read by the planning: same thread
        }
        skipped = held;
        int count = 0;
        Producer harvester = null; // for the stamps of re-links ([5]), looked up if any
        try {
            int share = inboxShare(max, locked, wait);
            for (int i = 0; i < locked; i++) {
                WheelShard shard = harvesting[i];
                shard.drainInbox(flooded(shard, now) ? share : WheelShard.DRAIN_BATCH);
                heads[i] = shard.wheel().peekDue(nanoTime);
            }
            while (count < max) {
                int first = firstHead(locked, -1);
                if (first < 0) {
                    break;
                }
                int second = firstHead(locked, first);
                WheelShard shard = harvesting[first];
                // Up to the runner-up's head, so that the merge costs a comparison per task,
                // not a scan of every head per task ([3]).
                int polled = second < 0
                        ? shard.wheel().pollDue(nanoTime, into, count, max - count)
                        : shard.wheel().pollDueBefore(nanoTime, heads[second], into, count, max - count);
                if (polled == 0) {
                    // Not with a consistent order (the first head precedes the runner-up's), but
                    // every pass must take a task or end the loop: the first head alone.
                    polled = shard.wheel().pollDue(nanoTime, into, count, 1);
                    if (polled == 0) {
                        break;
                    }
                }
                int end = count + polled;
                for (int i = count; i < end; i++) {
                    WheelTask task = into[i];
                    into[i] = null;
                    long armed = task.armedDeadline();
                    if (!task.wantsWheel()) {
                        continue; // cancelled, its unlink still in the inbox ([3]): never handed out
                    }
                    if (armed > now) { // touched since it was linked ([5]); not due again now
                        if (harvester == null) {
                            harvester = PRODUCERS.get();
                        }
                        shard.relink(task, task.positionOf(armed), sequence(nextStamp(harvester, now), shard.index));
                    } else {
                        task.handedOut();
                        into[count++] = task;
                    }
                }
                heads[first] = shard.wheel().peekDue(nanoTime);
            }
        } finally {
            for (int i = 0; i < locked; i++) {
                harvesting[i].publishNextEvent();
                harvesting[i].unlock(); // no help: what producers pushed meanwhile is theirs to apply ([3])
                harvesting[i] = null;
                heads[i] = null;
            }
        }
        return count;
    }

    /**
     * Whether {@code shard}, held by the harvest, is flooded ([3]): its due work already
     * BACKLOG_LAG_NANOS late and more than a drain's batch waiting in its inbox.
     */
    private static boolean flooded(WheelShard shard, long now) {
        return now - shard.wheelEvent() > WheelWorkQueue.BACKLOG_LAG_NANOS && shard.inboxSize() > WheelShard.DRAIN_BATCH;
    }

    /**
     * How many inbox tasks a harvest applies in each flooded shard of the {@code locked} it holds
     * ([3]): its batch of {@code max} split among them, at least MIN_INBOX_SHARE; a whole
     * DRAIN_BATCH for drainTo ({@code wait}), which takes every due task it can.
     */
    static int inboxShare(int max, int locked, boolean wait) {
        return wait ? WheelShard.DRAIN_BATCH : Math.max(MIN_INBOX_SHARE, max / Math.max(1, locked));
    }

    /**
     * The index among the first {@code locked} heads of the smallest, leaving out index
     * {@code except}; -1 if none.
     */
    private int firstHead(int locked, int except) {
        int first = -1;
        for (int i = 0; i < locked; i++) {
            TimerNode head = heads[i];
            if (i == except) {
                continue;
            }
            if (head != null && (first < 0 || TimerNode.precedes(head, heads[first]))) {
                first = i;
            }
        }
        return first;
    }

    // ---------------------------------------------------------------------------------------
    // Views ([4]).

    /** Locks every shard in index order and drains each inbox, so the wheels show every task. */
    void lockAllForView() {
        for (WheelShard shard : shards) {
            shard.lock();
            shard.drainInboxForView();
        }
    }

    void unlockAll() {
        for (int i = shards.length - 1; i >= 0; i--) {
            shards[i].publishNextEvent();
            shards[i].unlockAndHelp();
        }
    }

    /** Every task in every wheel. Call only between lockAllForView and unlockAll. */
    void forEach(Consumer<? super WheelTask> action) {
        for (WheelShard shard : shards) {
            shard.wheel().forEach(action);
        }
    }

    /** Tasks in every wheel. Call only between lockAllForView and unlockAll. */
    long size() {
        long size = 0;
        for (WheelShard shard : shards) {
            size += shard.wheel().size();
        }
        return size;
    }

    /** The pending task that comes first, due or not. Call only between lockAllForView and unlockAll. */
    WheelTask peekEarliest() {
        WheelTask earliest = null;
        for (WheelShard shard : shards) {
            WheelTask head = shard.wheel().peekEarliest();
            if (head != null && (earliest == null || TimerNode.precedes(head, earliest))) {
                earliest = head;
            }
        }
        return earliest;
    }

    /** Unlinks a task from its wheel. Call only between lockAllForView and unlockAll. */
    boolean cancel(WheelTask task) {
        return shardOf(task).wheel().cancel(task);
    }

    /** Empties every wheel. Call only between lockAllForView and unlockAll. */
    void clear() {
        for (WheelShard shard : shards) {
            shard.wheel().drain(task -> { });
        }
    }

    /** A shard, whose lock() and unlock() tests use; for tests. */
    WheelShard shard(int index) {
        return shards[index];
    }

    /** Lazy re-arms in every shard so far ([5]); any thread, no lock. */
    long relinks() {
        return sumOverShards(WheelShard::relinks);
    }

    /** New tasks counted in the shards so far (WheelShard [8]); any thread, no lock. */
    long scheduledHere() {
        return sumOverShards(WheelShard::scheduledHere);
    }

    /** Cancels counted in the shards so far (WheelShard [8]); any thread, no lock. */
    long cancelledHere() {
        return sumOverShards(WheelShard::cancelledHere);
    }

    /** Tasks in the inboxes now, at most shards times INBOX_CAPACITY; for tests of the bound. */
    int inboxSize() {
        return (int) sumOverShards(WheelShard::inboxSize);
    }

    /** The sum of {@code count} over the shards, each read once, in index order. */
    private long sumOverShards(ToLongFunction<WheelShard> count) {
        long sum = 0;
        for (WheelShard shard : shards) {
            sum += count.applyAsLong(shard);
        }
        return sum;
    }
}
