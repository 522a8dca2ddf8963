package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimingWheel;
import io.github.timingwheel.core.WheelShape;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Queue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.atomic.MpscChunkedAtomicArrayQueue;

/**
 * Padding before the shard's hot fields, so that two shards never share a cache line. 'p00'
 * fills the 4 bytes after a compressed object header: left empty, the JVM (JDK 15 and later)
 * puts a subclass's int field there, in front of the padding, and the lock word would share the
 * cache line of whatever object lies before the shard (HotFieldLayoutTest checks the layout).
 */
abstract class WheelShardPadBefore {
    int p00;
    long p01, p02, p03, p04, p05, p06, p07, p08;
}

/** The fields producers and the leader read and write. */
abstract class WheelShardHotFields extends WheelShardPadBefore {
    /** The shard's lock: 0 free, 1 held. See WheelShard [1], [2]. */
    volatile int lockState;
    /**
     * 1 while a harvest waits for the lock, or came and found it held: producers then leave
     * the lock to it. Written by the harvesting worker, read by producers. See WheelShard [7].
     */
    volatile int harvestWanted;
    /** See WheelShard [3]. */
    volatile long wheelEvent = Long.MAX_VALUE;
    /** See WheelShard [4]. */
    volatile long inboxEvent = Long.MAX_VALUE;
    /**
     * New tasks counted as scheduled, and cancels counted, by the threads that applied them
     * here in place: written under the lock (release), read by metrics (acquire). See
     * WheelShard [8].
     */
    long scheduledHere;
    long cancelledHere;
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
     * [1] Ownership. 'wheel' and every wheel field of the tasks in it are guarded by the
     *     shard's lock, a word of its own ('lockState'): tryLock is one CAS from 0 to 1,
     *     unlock one release store of 0, which is all a pair of schedule and cancel pays for
     *     it (a ReentrantLock adds owner bookkeeping and the full fence of a volatile unlock to
     *     every pair). The CAS acquires and the release store releases, so each holder
     *     sees what the previous one wrote. Producers only ever tryLock it, and hold it for
     *     O(1) wheel work plus at most DRAIN_BATCH inbox tasks; the leader (to harvest), views,
     *     and a producer facing a full inbox wait for it by spinning, yielding and then
     *     parking briefly: every holder lets go after bounded work, and nobody queues. It
     *     has no owner and is not reentrant: no holder locks a shard it holds. Lock
     *     order: a worker holds the queue's worker lock, then shard locks in index order;
     *     producers hold at most one shard lock and never the worker lock.
     * [2] In place, never waiting. schedule and cancel tryLock the shard; if it is free they
     *     apply the task to the wheel (link it if it wants the wheel and is not in it, unlink
     *     it if the reverse: apply, which only brings the wheel in line with the task's state,
     *     so applying a task twice or late is harmless). If it is busy
     *     they push the task into 'inbox' (JCTools, bounded, multi-producer, single consumer:
     *     the lock holder) and try the lock once more. The holder, after it unlocks, looks at
     *     the inbox and drains it if tryLock succeeds. Nearly always one of the two sees the
     *     other, but not always: the unlock is a release store with no fence after it, so the
     *     holder's look may pass the store while the pusher's CAS still finds the lock held,
     *     and then both miss (the full fence that would forbid it costs more than the rest of
     *     the lock). Nothing depends on it: such a task waits in the inbox for the shard's
     *     next holder (the next schedule or cancel made in place there, or a harvest); a
     *     queued task has lowered 'inboxEvent' ([4]), so the leader harvests the shard, and
     *     drains the inbox, no later than the task's deadline; views drain every inbox first.
     *     A cancel may so stay unapplied a while longer, and its task in the wheel, which is
     *     memory, not behaviour: a cancelled task is never handed out. Each look is bounded
     *     (HELP_ROUNDS drains of DRAIN_BATCH), so no flood keeps a producer draining; what a
     *     bounded look leaves is applied by the next holder, and a producer that finds the
     *     inbox past DRAIN_BATCH asks the leader to harvest the shard ([4]).
     * [3] 'wheelEvent' is a lower bound of the wheel's next event (the queue's leader parks
     *     until the earliest over all shards, WorkerRoles [3]). Written only under the lock:
     *     set exactly to wheel.nextEventTime() by a harvest, lowered by a schedule applied
     *     under the lock whose node brings the next event forward (a volatile write only then,
     *     so a producer whose tasks are all later than the head writes no shared line). What it
     *     is lowered to is TimingWheel.schedule's answer, not the task's deadline: for a task
     *     placed in a slot that must move down first, that slot's cascade or the start of its
     *     early cascade (TimingWheel [10]). Lowered only to the deadline, the leader would
     *     sleep through the early cascade of a burst armed ahead and re-place each of its slots
     *     whole in one harvest at the first deadline, while due tasks wait behind it.
     *     A cancel leaves it low: a stale bound costs one early harvest, which makes it exact
     *     again.
     * [4] 'inboxEvent' is a lower bound of the deadlines pushed into the inbox since it was
     *     last drained, lowered by pushers with a CAS (no lock), reset to MAX_VALUE by a drain
     *     before it polls. A push before the reset is seen by the drain; a lowering after it
     *     stays, at worst for a task already drained (one early harvest). A drain stopped at
     *     its limit sets it to 0: look again at once. So min(wheelEvent, inboxEvent) never
     *     misses a due task.
     * [5] Sequences. A task's sequence is (stamp << SHARD_BITS) | shard index, set when the
     *     task is made (WheelShards [6]); its low bits never change, so a racy read of the
     *     sequence (a 64-bit field: atomic on 64-bit JVMs) always names the right shard.
     * [6] 'relinks' counts the lazy re-arms of re-armable tasks (WheelShards [5]) for metrics:
     *     only lock holders write it, so a plain increment published with an opaque store is
     *     exact; a metrics read (opaque, no lock) may lag by the re-links of one harvest.
     * [7] The harvest never waits behind a producer. With a plain lock, producers that never
     *     pause take the shard again right after each release while the harvest spins, yields
     *     and parks on it, shard after shard, with the due tasks of every shard it already
     *     holds waiting too; and a producer descheduled inside its section (a time slice is
     *     milliseconds on a busy machine) holds up every due task. So a harvest first
     *     raises 'harvestWanted' (a volatile write), then tries the lock for HARVEST_SPINS
     *     spins. Producers do not take a lock that is wanted: their tryLock fails and the task
     *     goes through the inbox, so once the holder of the moment lets go (O(1) wheel work
     *     plus at most DRAIN_BATCH inbox tasks) no one but the harvest takes the lock. The
     *     harvest clears the flag when it has the lock. If the spins run out (the holder is
     *     descheduled, or drains a long inbox), the harvest skips the shard and hands out the
     *     other shards' due tasks; the flag stays up, and the holder, when it unlocks, sees it
     *     and wakes the harvester (WheelShards.wakeHarvester) instead of helping with the
     *     inbox. That read follows a release store with no fence, so it may miss a flag raised
     *     at that moment: the harvester then comes back by itself after HELD_RETRY_NANOS
     *     (WheelShards [7]), and finds the lock free, since the flag keeps producers off it.
     *     A producer facing a full inbox defers to a raised flag too, for at most
     *     PRODUCER_DEFER_TRIES tries (about a millisecond, several of the harvester's retries),
     *     then takes the lock when it is free: so a flag left up by a harvester that has gone
     *     (a worker that left the pool) delays producers, never stops them. Views and drainTo,
     *     which must see every task, wait for the lock as before (lock()): no harvest runs
     *     beside them, since both hold the queue's worker lock as a harvest does.
     * [8] Counts kept here. A new task is counted as scheduled, and a won cancel as
     *     cancelled, by the thread that applies it (submit with a TaskCounters): in place, in
     *     'scheduledHere' or 'cancelledHere' on this shard's hot line, which the lock's CAS has
     *     just brought to its core, so the count costs a plain add and a release store and no
     *     look-up of the thread's counter cell (a thread-local and an array: most of what a
     *     count in the cell costs); through the inbox, in the thread's cell before the push.
     *     Either way the count is made before any other thread can see the task through this
     *     shard (the unlock, or the push, publishes both), which is the order TaskCounters [2]
     *     needs. Only lock holders write the fields, so a plain add is
     *     exact; TaskCounters reads them with acquire, as it reads the cells.
     */

    /** Bits of a task's sequence that name its shard ([5]); at most 1 << SHARD_BITS shards. */
    static final int SHARD_BITS = 6;
    /** The most shards a queue may have. */
    static final int MAX_SHARDS = 1 << SHARD_BITS;
    /** The most inbox tasks one drain applies ([2]). */
    static final int DRAIN_BATCH = 1024;
    /**
     * Recent arrivals the wheel keeps unplaced until they live a while (TimingWheel [11]): a
     * task due 2 ticks or more after the shard's last harvest (2 ms by default) is placed in its
     * slot only if it is still pending after three quarters of this many later arrivals at its
     * shard, or at the shard's next harvest, whichever comes first; one cancelled sooner costs a
     * store of null instead of a link and an unlink. Room for a producer that keeps about a
     * thousand short timers live at once, twice over; 8 KB a shard.
     */
    static final int STAGING_CAPACITY = 2048;
    /** The most tasks a shard's inbox holds; past it a producer waits for the lock ([2]). */
    static final int INBOX_CAPACITY = 16 * DRAIN_BATCH;
    /** Drains an unlocking holder makes at most for what producers left in the inbox ([2]). */
    private static final int HELP_ROUNDS = 2;
    /** A producer looks at the inbox's size on about one push in this many (a power of two). */
    private static final int SIZE_CHECK_ODDS = 32;
    private static final int INBOX_CHUNK = 1024;

    /** Spins of lock() before it yields, and yields before it parks ([1]). */
    private static final int LOCK_SPINS = 64;
    private static final int LOCK_YIELDS = 16;
    private static final long LOCK_PARK_NANOS = 20_000L;
    /**
     * Spins a harvest gives a holder to let go before it skips the shard ([7]): a producer's
     * section is tens of nanoseconds, an inbox drain tens of microseconds; a descheduled holder
     * is milliseconds, and is not waited for.
     */
    static final int HARVEST_SPINS = 256;
    /** Tries for which a producer facing a full inbox leaves the lock to a wanting harvest ([7]). */
    private static final int PRODUCER_DEFER_TRIES = LOCK_SPINS + LOCK_YIELDS + 50;

    final int index;
    /** Wakes the harvester that skipped this shard ([7]). */
    private final Runnable wakeHarvester;
    /** Guarded by lock ([1]). */
    private final TimingWheel<WheelTask> wheel;
    /** Tasks whose state changed while the lock was busy ([2]). */
    private final Queue<WheelTask> inbox = new MpscChunkedAtomicArrayQueue<>(INBOX_CHUNK, INBOX_CAPACITY);
    /** Lazy re-arms applied here: written under lock (opaque), read by metrics (opaque) ([6]). */
    private long relinks;

    WheelShard(int index, WheelShape shape, long originNanos, Runnable wakeHarvester) {
        this.index = index;
        this.wakeHarvester = wakeHarvester;
        this.wheel = new TimingWheel<>(shape, originNanos, STAGING_CAPACITY);
    }

    // ---------------------------------------------------------------------------------------
    // The lock ([1]).

    /**
     * A producer's try: takes the lock if it is free and no harvest wants it ([7]); one CAS, and
     * plain reads first (one cache line) so a busy or wanted lock costs none.
     */
    boolean tryLock() {
        return harvestWanted == 0 && tryLockFree();
    }

    /** Takes the lock if it is free, wanted or not. */
    private boolean tryLockFree() {
        return lockState == 0 && LOCK_STATE.compareAndSet(this, 0, 1);
    }

    /**
     * Waits for the lock, wanted by a harvest or not: spins, then yields, then parks briefly
     * between tries ([1]). For views, drainTo and tests; never on the firing path ([7]).
     */
    void lock() {
        for (int tries = 0; !tryLockFree(); tries++) {
            backOff(tries);
        }
    }

    /**
     * A producer's wait for the lock when the inbox is full: as {@link #lock()}, but leaving the
     * lock to a harvest that wants it for up to PRODUCER_DEFER_TRIES tries ([7]).
     */
    private void lockAsProducer() {
        for (int tries = 0; !(tries < PRODUCER_DEFER_TRIES ? tryLock() : tryLockFree()); tries++) {
            backOff(tries);
        }
    }

    private void backOff(int tries) {
        if (tries < LOCK_SPINS) {
            Thread.onSpinWait();
        } else if (tries < LOCK_SPINS + LOCK_YIELDS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(this, LOCK_PARK_NANOS);
        }
    }

    /**
     * The harvest's try ([7]): raises the flag that keeps producers off the lock, and takes the
     * lock within HARVEST_SPINS spins, or gives up and leaves the flag raised for the holder to
     * see as it lets go. Call only as the harvesting worker.
     *
     * @param wait whether to wait for the lock however long it is held (drainTo)
     * @return true if it holds the lock
     */
    boolean lockForHarvest(boolean wait) {
        if (harvestWanted == 0) {
            harvestWanted = 1; // volatile: ordered before the CAS below, which producers' CAS orders with
        }
        for (int tries = 0; !tryLockFree(); tries++) {
            if (wait) {
                backOff(tries);
            } else if (tries < HARVEST_SPINS) {
                Thread.onSpinWait();
            } else {
                return false;
            }
        }
        HARVEST_WANTED.setRelease(this, 0); // producers may take it again once it is let go
        return true;
    }

    /** Lets the lock go: a release store, no fence ([1], [2]). Call only when holding it. */
    void unlock() {
        LOCK_STATE.setRelease(this, 0);
    }

    /** The wheel; call only when holding lock. */
    TimingWheel<WheelTask> wheel() {
        return wheel;
    }

    /**
     * Tasks in the wheel, read without the lock: a plain long that only holders write, so the
     * read may be stale by what holders did since, never torn on a 64-bit JVM; enough for
     * backpressure's threshold (WheelWorkQueue [4]), and for nothing exact.
     */
    long pendingRacy() {
        return wheel.size();
    }

    /** The wheel's published next event ([3]); any thread. */
    long wheelEvent() {
        return wheelEvent;
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
     * @param queueing whether the task is being queued (new, or a periodic one again)
     * @return true if applied in place; false if pushed into the inbox
     */
    boolean submit(WheelTask task, boolean queueing) {
        return submit(task, queueing, null);
    }

    /**
     * As {@link #submit(WheelTask, boolean)}, and counts the submission in {@code counts}
     * unless it is null ([8]): a task being queued as scheduled, any other as cancelled.
     */
    boolean submit(WheelTask task, boolean queueing, TaskCounters counts) {
        if (tryLock()) {
            try {
                applyLinked(task);
                if (counts != null) {
                    countHere(queueing);
                }
            } finally {
                unlockAndHelp();
            }
            return true;
        }
        if (counts != null) { // before the push that publishes the task ([8])
            if (queueing) {
                counts.scheduled();
            } else {
                counts.cancelled();
            }
        }
        if (queueing) {
            task.markInInbox(); // WheelWorkQueue [2]: published by the push
        }
        push(task, queueing);
        return false;
    }

    /** Counts a submission applied here ([8]). Call only when holding lock. */
    private void countHere(boolean scheduled) {
        if (scheduled) {
            SCHEDULED_HERE.setRelease(this, scheduledHere + 1L);
        } else {
            CANCELLED_HERE.setRelease(this, cancelledHere + 1L);
        }
    }

    /** New tasks counted here ([8]); any thread, an acquire read. */
    long scheduledHere() {
        return (long) SCHEDULED_HERE.getAcquire(this);
    }

    /** Cancels counted here ([8]); any thread, an acquire read. */
    long cancelledHere() {
        return (long) CANCELLED_HERE.getAcquire(this);
    }

    /** Applies a task under the lock; lowers wheelEvent if it brings the next event forward ([3]). */
    private void applyLinked(WheelTask task) {
        long event = apply(task);
        if (event < wheelEvent) {
            wheelEvent = event;
        }
    }

    /**
     * Brings the wheel in line with the task's state ([2]): links it if it wants the wheel and is
     * not in it, unlinks it if the reverse. Call only when holding lock.
     *
     * @return if it linked the task, the wheel time by which the leader must harvest on its
     *     account (TimingWheel.schedule's answer: earlier than the deadline when a large slot
     *     must move down first); else Long.MAX_VALUE
     */
    private long apply(WheelTask task) {
        boolean wanted = task.wantsWheel();
        if (wanted == task.isScheduled()) {
            return wanted ? moveEarlier(task) : Long.MAX_VALUE;
        }
        if (wanted) {
            return wheel.schedule(task, task.linkDeadline(), task.sequence());
        }
        wheel.cancel(task);
        return Long.MAX_VALUE;
    }

    /**
     * Moves a linked re-armable task whose armed deadline is now before its place in the wheel
     * (WheelWorkQueue [3]); later deadlines stay where they are until that place comes due (the
     * lazy re-arm). Call only when holding lock.
     *
     * @return as {@link #apply}: Long.MAX_VALUE if the task stays where it is
     */
    private long moveEarlier(WheelTask task) {
        long armed = task.armedDeadline();
        if (armed < 0L) {
            return Long.MAX_VALUE;
        }
        long position = task.positionOf(armed); // within the same grain: no move (ArmedDeadline [4])
        if (position >= task.deadline()) {
            return Long.MAX_VALUE;
        }
        wheel.cancel(task);
        return wheel.schedule(task, position, task.sequence());
    }

    private void push(WheelTask task, boolean queueing) {
        while (!inbox.offer(task)) {
            applyUnderFullInbox(); // the inbox is full: the JDK's backpressure, wait for the lock
        }
        long armed = task.armedDeadline();
        if (queueing || armed >= 0L) { // a re-armable task moving earlier needs the bound too
            lowerInboxEvent(task.linkDeadline(armed));
        }
        if (tryLock()) { // [2]: the holder may have unlocked before it could see the push
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
        lockAsProducer();
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

    /**
     * Unlocks, then wakes a harvester that wants the lock ([7]), or else drains what producers
     * pushed meanwhile, boundedly ([2]).
     */
    void unlockAndHelp() {
        unlock();
        if (harvestWanted != 0) {
            wakeHarvester.run();
            return;
        }
        for (int round = 0; round < HELP_ROUNDS && !inbox.isEmpty() && tryLock(); round++) {
            try {
                drainInbox(DRAIN_BATCH);
            } finally {
                unlock();
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
            task.clearInInbox(); // before the state is read (WheelWorkQueue [2])
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
     * deadline (WheelShards [5]), at that deadline's position (WheelTask.positionOf), with a new
     * sequence of this shard, as if it were scheduled now. Call only when holding lock.
     */
    void relink(WheelTask task, long position, long sequence) {
        wheel.schedule(task, position, sequence);
        RELINKS.setOpaque(this, relinks + 1); // [6]
    }

    /** Re-links so far ([6]); any thread, an opaque read. */
    long relinks() {
        return (long) RELINKS.getOpaque(this);
    }

    /** Tasks in the inbox now, at most INBOX_CAPACITY: for the harvest (WheelShards [3]) and tests of the bound. */
    int inboxSize() {
        return inbox.size();
    }

    private static final VarHandle LOCK_STATE;
    private static final VarHandle HARVEST_WANTED;
    private static final VarHandle INBOX_EVENT;
    private static final VarHandle RELINKS;
    private static final VarHandle SCHEDULED_HERE;
    private static final VarHandle CANCELLED_HERE;

    static {
        try {
            LOCK_STATE = MethodHandles.lookup().findVarHandle(WheelShardHotFields.class, "lockState", int.class);
            HARVEST_WANTED = MethodHandles.lookup().findVarHandle(WheelShardHotFields.class, "harvestWanted", int.class);
            INBOX_EVENT = MethodHandles.lookup().findVarHandle(WheelShardHotFields.class, "inboxEvent", long.class);
            RELINKS = MethodHandles.lookup().findVarHandle(WheelShard.class, "relinks", long.class);
            SCHEDULED_HERE = MethodHandles.lookup().findVarHandle(WheelShardHotFields.class, "scheduledHere", long.class);
            CANCELLED_HERE = MethodHandles.lookup().findVarHandle(WheelShardHotFields.class, "cancelledHere", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
