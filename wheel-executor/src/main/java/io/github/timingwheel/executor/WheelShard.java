package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimingWheel;
import io.github.timingwheel.core.WheelShape;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Queue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import org.jctools.queues.atomic.MpscChunkedAtomicArrayQueue;

/** Padding before the shard's hot fields, so that two shards never share a cache line. */
abstract class WheelShardPadBefore {
    long p01, p02, p03, p04, p05, p06, p07, p08;
}

/** The fields producers and the leader read and write. */
abstract class WheelShardHotFields extends WheelShardPadBefore {
    /** See WheelShard [3]. */
    volatile long wheelEvent = Long.MAX_VALUE;
    /** See WheelShard [4]. */
    volatile long inboxEvent = Long.MAX_VALUE;
}

/** Padding after the shard's hot fields. */
abstract class WheelShardPadAfter extends WheelShardHotFields {
    long p11, p12, p13, p14, p15, p16, p17, p18;
}

/**
 * One of the timing wheels of a {@link WheelWorkQueue}, with its own lock and its own inbox: the
 * unit of the in-place hot path. The thread that schedules or cancels a task links or unlinks
 * it here itself, while the task's cache lines are hot on its core; only when the lock is busy
 * does the task go through the inbox, for the next holder to apply.
 *
 * <p>Every task belongs to one shard for its whole life (its sequence's low bits name it), so a
 * cancel always finds the wheel the task sits in.
 */
final class WheelShard extends WheelShardPadAfter {

    /*
     * Implementation notes
     *
     * [1] Ownership. 'wheel' and every wheel field of the tasks in it are guarded by 'lock'.
     *     Producers only ever tryLock it, and hold it for O(1) wheel work plus at most
     *     DRAIN_BATCH inbox tasks; the leader locks it to harvest (WheelWorkQueue), and views
     *     to read it. Lock order: a worker holds the queue's worker lock, then shard locks in
     *     index order; producers hold at most one shard lock and never the worker lock.
     * [2] In place, never waiting. schedule and cancel tryLock the shard; if it is free they
     *     apply the task to the wheel (link it if it wants the wheel and is not in it, unlink
     *     it if the reverse: WheelWorkQueue.apply's rule, which only brings the wheel in line
     *     with the task's state, so applying a task twice or late is harmless). If it is busy
     *     they push the task into 'inbox' (JCTools, bounded, multi-producer, single consumer:
     *     the lock holder) and try the lock once more. The holder, after it unlocks, looks at
     *     the inbox and drains it if tryLock succeeds. Unlock (a volatile write) then look (a
     *     volatile read), against push (a volatile write) then tryLock (a CAS): Dekker, so at
     *     least one of the two sees the other and the task is applied by one of them, unless a
     *     third thread holds the lock, which looks in its turn when it unlocks. Each look is
     *     bounded (HELP_ROUNDS drains of DRAIN_BATCH), so no flood keeps a producer draining;
     *     what a bounded look leaves is applied by the next holder, and a producer that finds
     *     the inbox past DRAIN_BATCH asks the leader to harvest the shard ([4]).
     * [3] 'wheelEvent' is a lower bound of the wheel's next event (WheelWorkQueue's leader
     *     parks until the earliest over all shards). Written only under the lock: set exactly
     *     to wheel.nextEventTime() by a harvest, lowered by an in-place schedule whose task is
     *     due sooner (a volatile write only then, so a producer whose tasks are all later than
     *     the head writes no shared line). A cancel leaves it low: a stale bound costs one
     *     early harvest, which makes it exact again. Waking at a task's deadline rather than at
     *     an earlier cascade of its slot is safe: a poll catches up through cascades one at a
     *     time (TimingWheel [9]).
     * [4] 'inboxEvent' is a lower bound of the deadlines pushed into the inbox since it was
     *     last drained, lowered by pushers with a CAS (no lock), reset to MAX_VALUE by a drain
     *     before it polls. A push before the reset is seen by the drain; a lowering after it
     *     stays, at worst for a task already drained (one early harvest). A drain stopped at
     *     its limit sets it to 0: look again at once. So min(wheelEvent, inboxEvent) never
     *     misses a due task.
     * [5] Sequences. A task's sequence is (counter << SHARD_BITS) | shard index: its low bits
     *     are set when the task is made (the making thread's home shard) and never change, so
     *     a racy read of the sequence (a 64-bit field: atomic on 64-bit JVMs) always names the
     *     right shard; the counter bits come from one queue-wide counter when the task is
     *     queued, which orders equal deadlines across shards by submission (happens-before).
     * [6] 'relinks' counts the lazy re-arms of re-armable tasks (WheelShards [5]) for metrics:
     *     only lock holders write it, so a plain increment published with an opaque store is
     *     exact; a metrics read (opaque, no lock) may lag by the re-links of one harvest.
     */

    /** Bits of a task's sequence that name its shard ([5]); at most 1 << SHARD_BITS shards. */
    static final int SHARD_BITS = 6;
    /** The most shards a queue may have. */
    static final int MAX_SHARDS = 1 << SHARD_BITS;
    /** The most inbox tasks one drain applies ([2]). */
    static final int DRAIN_BATCH = 1024;
    /** The most tasks a shard's inbox holds; past it a producer waits for the lock ([2]). */
    static final int INBOX_CAPACITY = 16 * DRAIN_BATCH;
    /** Drains an unlocking holder makes at most for what producers left in the inbox ([2]). */
    private static final int HELP_ROUNDS = 2;
    /** A producer looks at the inbox's size on about one push in this many (a power of two). */
    private static final int SIZE_CHECK_ODDS = 32;
    private static final int INBOX_CHUNK = 1024;

    final int index;
    final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock ([1]). */
    private final TimingWheel<WheelTask> wheel;
    /** Tasks whose state changed while the lock was busy ([2]). */
    private final Queue<WheelTask> inbox = new MpscChunkedAtomicArrayQueue<>(INBOX_CHUNK, INBOX_CAPACITY);
    /** Lazy re-arms applied here: written under lock (opaque), read by metrics (opaque) ([6]). */
    private long relinks;

    WheelShard(int index, WheelShape shape, long originNanos) {
        this.index = index;
        this.wheel = new TimingWheel<>(shape, originNanos);
    }

    /** The wheel; call only when holding lock. */
    TimingWheel<WheelTask> wheel() {
        return wheel;
    }

    /** The earliest time anything here may need the leader: a lower bound ([3], [4]). Any thread. */
    long nextEvent() {
        return Math.min(wheelEvent, inboxEvent);
    }

    // ---------------------------------------------------------------------------------------
    // Producers ([2]).

    /**
     * Applies a task whose state changed (new, re-queued or cancelled) in place, or through the
     * inbox if the lock is busy.
     *
     * @param sequenced whether to give the task its queue-wide sequence first (a task being
     *     queued); the counter is read at once, so the order is the order of the calls
     * @return true if applied in place; false if pushed into the inbox
     */
    boolean submit(WheelTask task, boolean queueing, SequenceCounter sequences) {
        if (lock.tryLock()) {
            try {
                if (queueing) {
                    task.assignSequence(sequences.next(index));
                }
                applyLinked(task);
            } finally {
                unlockAndHelp();
            }
            return true;
        }
        if (queueing) {
            task.assignSequence(sequences.next(index));
            task.markInInbox(); // WheelWorkQueue [6]: published by the push
        }
        push(task, queueing);
        return false;
    }

    /** Applies a task under the lock and lowers wheelEvent if it became the first ([3]). */
    private void applyLinked(WheelTask task) {
        if (WheelWorkQueue.apply(wheel, task) && task.deadline() < wheelEvent) {
            wheelEvent = task.deadline();
        }
    }

    private void push(WheelTask task, boolean queueing) {
        while (!inbox.offer(task)) {
            applyUnderFullInbox(); // the inbox is full: the JDK's backpressure, wait for the lock
        }
        long armed = task.armedDeadline();
        if (queueing || armed >= 0L) { // a re-armable task moving earlier needs the bound too
            lowerInboxEvent(armed >= 0L ? armed : task.deadline());
        }
        if (lock.tryLock()) { // [2]: the holder may have unlocked before it could see the push
            try {
                drainInbox(DRAIN_BATCH);
            } finally {
                unlockAndHelp();
            }
        } else if ((ThreadLocalRandom.current().nextInt() & (SIZE_CHECK_ODDS - 1)) == 0
                && inbox.size() >= DRAIN_BATCH) {
            lowerInboxEvent(0L); // a backlog of cancels: ask the leader to harvest ([2], [4])
        }
    }

    private void applyUnderFullInbox() {
        lock.lock();
        try {
            drainInbox(DRAIN_BATCH);
        } finally {
            unlockAndHelp();
        }
    }

    private void lowerInboxEvent(long deadline) {
        long seen;
        while (deadline < (seen = inboxEvent)) {
            if (INBOX_EVENT.weakCompareAndSet(this, seen, deadline)) {
                return;
            }
        }
    }

    /** Unlocks, then drains what producers pushed meanwhile, boundedly ([2]). */
    void unlockAndHelp() {
        lock.unlock();
        for (int round = 0; round < HELP_ROUNDS && !inbox.isEmpty() && lock.tryLock(); round++) {
            try {
                drainInbox(DRAIN_BATCH);
            } finally {
                lock.unlock();
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Lock holders.

    /**
     * Applies at most {@code limit} inbox tasks to the wheel ([2], [4]). Call only when holding
     * lock.
     *
     * @return true if it stopped at the limit, so the inbox may hold more
     */
    boolean drainInbox(int limit) {
        if (inboxEvent != Long.MAX_VALUE) {
            // Before the polls ([4]); also when the inbox is empty: a pusher lowers the bound
            // after its push, so another drain may already have taken the task it stands for.
            inboxEvent = Long.MAX_VALUE;
        }
        if (inbox.isEmpty()) {
            return false;
        }
        for (int i = 0; i < limit; i++) {
            WheelTask task = inbox.poll();
            if (task == null) {
                return false;
            }
            task.clearInInbox(); // before the state is read (WheelWorkQueue [6])
            applyLinked(task);
        }
        inboxEvent = 0L; // more may wait: look again at once ([4])
        return true;
    }

    /** Drains the whole inbox for a view: at most its capacity. Call only when holding lock. */
    void drainInboxForView() {
        drainInbox(INBOX_CAPACITY);
    }

    /** Publishes the wheel's exact next event after a harvest ([3]). Call only when holding lock. */
    void publishNextEvent() {
        wheelEvent = wheel.nextEventTime();
    }

    /**
     * Re-links a re-armable task that came due at its old place but is armed for a later
     * deadline (WheelShards [5]), with a new sequence, as if it were scheduled now. Call only
     * when holding lock.
     */
    void relink(WheelTask task, long armedDeadline, SequenceCounter sequences) {
        task.assignSequence(sequences.next(index));
        wheel.schedule(task, armedDeadline, task.sequence());
        RELINKS.setOpaque(this, relinks + 1); // [6]
    }

    /** Re-links so far ([6]); any thread, an opaque read. */
    long relinks() {
        return (long) RELINKS.getOpaque(this);
    }

    /** Tasks in the inbox now, at most INBOX_CAPACITY; for tests of the bound. */
    int inboxSize() {
        return inbox.size();
    }

    private static final VarHandle INBOX_EVENT;
    private static final VarHandle RELINKS;

    static {
        try {
            INBOX_EVENT = MethodHandles.lookup().findVarHandle(WheelShardHotFields.class, "inboxEvent", long.class);
            RELINKS = MethodHandles.lookup().findVarHandle(WheelShard.class, "relinks", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
