package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimeSource;
import io.github.timingwheel.core.TimingWheel;
import io.github.timingwheel.core.WheelShape;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.AbstractQueue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The work queue of a {@link WheelScheduledExecutor}: sharded timing wheels offered as a
 * {@code BlockingQueue<Runnable>} whose {@code take} and {@code poll} run the leader/follower
 * protocol, as the JDK's {@code DelayedWorkQueue} does over its heap.
 *
 * <p>Elements are the executor's tasks (or what {@code decorateTask} made of them). Views
 * ({@link #iterator()}, {@link #toArray()}) are snapshots in no particular order;
 * {@link #drainTo} moves only tasks that are due, as {@code DelayedWorkQueue}'s does. Due tasks
 * that the wheels have handed out in a batch, and no worker has taken yet, are still counted
 * and shown; {@code drainTo} and {@link #remove} take them, as {@code DelayedWorkQueue}'s do
 * until a worker has taken the task.
 *
 * <p>Limits: each shard's inbox holds at most {@link WheelShard#INBOX_CAPACITY} tasks, after
 * which a producer waits for that shard's lock; a lock holder applies at most
 * {@link WheelShard#DRAIN_BATCH} inbox tasks per drain, and a harvest moves at most
 * {@link #READY_BATCH} due tasks out of the wheels.
 */
final class WheelWorkQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {

    /*
     * Implementation notes
     *
     * [1] Producers do their own wheel work. schedule and cancel apply the task in its shard
     *     (WheelShard [2]) on the calling thread: a tryLock, an O(1) link or unlink, an unlock;
     *     through the shard's inbox only when its lock is busy. The wheels are in WheelShards,
     *     which also keeps the merged view of time. Producers never take 'workerLock'.
     * [2] Ownership. 'workerLock' guards the roles ('leader', 'leaderOut', 'standIn' and what
     *     the stand-in watches), 'followersWaiting', 'gathered' and the replacement of 'ready',
     *     and is held by any worker that harvests (WheelShards [3]) and by views; a worker
     *     holds it only between parks, never while parked or running a task. Lock order:
     *     workerLock, then shard locks in index order.
     * [3] Leader, stand-in, followers (Schmidt et al.'s leader/followers, with the lead kept
     *     while its holder runs). One worker holds the lead: it parks (LockSupport, without the
     *     lock) until the earliest event any shard publishes, harvests when it wakes, and keeps
     *     the lead while it runs the tasks it took ('leaderOut'), coming back for the next
     *     ones. A second worker, the stand-in, parks timed: while the leader parks, until
     *     TAKE_OVER_NANOS after the leader's planned event; while the leader is out, until
     *     TAKE_OVER_NANOS after the earliest due work, published for producers as [4]. It takes
     *     the lead from a leader that is out only when work has been due for TAKE_OVER_NANOS
     *     of real time with no harvest or claim meanwhile: the leader is held in a body, or
     *     descheduled (this rule also serves a clock that stands still). Lateness alone does
     *     not bring a second worker in: a leader that makes progress keeps the work. When two
     *     workers shared a late burst whose bodies touched shared state (a metric), every
     *     claim, every record and every role hand-off moved a cache line between cores, the
     *     two ran fewer tasks a millisecond than one alone, the lateness that had brought the
     *     second in grew, and the burst fell tens of milliseconds behind where one worker kept
     *     pace. Other waiting workers wait untimed on 'followers'. So one worker does the
     *     work while it makes progress, with its wheel and batches in its own cache and the
     *     other cores free, and no task waits more than about TAKE_OVER_NANOS (plus a wake-up)
     *     for a held leader while another worker waits; the price is that bodies shorter than
     *     TAKE_OVER_NANOS, due together, run one at a time. The JDK's executor wakes a follower
     *     on every take instead: on a machine whose cores are all busy, that hand-off is the
     *     tail. Hand-offs (leaveRoles): a worker that leaves without a task gives up its roles
     *     and wakes the stand-in or a follower to lead; a worker that takes the lead from the
     *     stand-in's role wakes a follower to stand in. The stand-in never sleeps through a
     *     leader's run: if its park would end more than TAKE_OVER_NANOS after the leader goes
     *     out, the leader unparks it.
     * [4] Waking the leader. Before parking, the leader publishes 'parkedLeader' and then
     *     'parkedUntil' (volatile), and then reads every shard's published bound again. A
     *     producer lowers its shard's bound (a volatile write, WheelShard [3], [4]) and then
     *     reads 'parkedUntil'. Volatile accesses in opposite order (Dekker): either the leader
     *     sees the lower bound and plans again, or the producer sees the deadline and unparks
     *     it. A producer whose task is not earlier than its shard's bound writes nothing and
     *     wakes no one: the leader already parks no later than that bound. So a steady stream
     *     of later tasks does not keep the leader awake, and the merged view costs the leader
     *     one volatile read per shard per park, no lock (the lesson of sharded wheels whose
     *     parking took every shard's lock in turn). A stale read can at most unpark a thread
     *     that has moved on, which every LockSupport user tolerates as a spurious wake-up.
     * [5] Batched hand-off. The leader, finding tasks due, harvests up to READY_BATCH of them
     *     at once, in deadline-then-sequence order across shards: it keeps the first and
     *     publishes the rest as 'ready', a ReadyBatch claimed from without a lock. The leader
     *     asks 'ready' first, before the lock, so that while due tasks last it goes from one to
     *     the next without parking; a worker that lost the lead to the stand-in ([3]) does not
     *     claim on its way back, but stands in: two workers claiming in turn from one batch
     *     shared its cache lines and the bodies' for every task. 'ready' is written
     *     only under workerLock and only replaced once exhausted. The cost: a task that
     *     becomes due while a batch is out (a fixed-rate run that is already late) starts
     *     after that batch, so order is exact across at most READY_BATCH tasks.
     * [6] A task cancelled while it still waits in an inbox is not pushed again: the producer
     *     marks it (WheelTask.markInInbox) before the push, the drain clears the mark with a
     *     volatile write before it reads the task's state, and a cancel reads the mark after
     *     its CAS on the state (Dekker again). Either the cancel sees the mark and the drain
     *     sees the task cancelled, or the cancel sees it cleared and applies the task again; a
     *     task applied twice is harmless, since applying only brings the wheel in line with
     *     the task's state.
     * [7] Re-armable tasks (ArmedDeadline). A touch that moves one later writes only its
     *     ArmedDeadline; the harvest that finds the task due at its old place re-links it for
     *     the armed deadline instead of handing it out (WheelShards [5]). A task handed out
     *     before a touch is checked again when it runs (its CAS to FIRED fails on a later
     *     deadline) and is re-linked by the worker through movedEarlier's path, which links
     *     a task that is not in its wheel and moves one that is if its armed deadline is
     *     earlier. Moving earlier is a submit like a cancel's: tryLock and an unlink and a link,
     *     or an inbox push. Such a submit may link a task that a harvest has just handed out
     *     (the move and the hand-out race); the task then sits both in the wheel and in a
     *     worker's hands, and whichever of the two comes second finds it FIRED and does
     *     nothing: the CAS on ArmedDeadline, not the wheel, keeps the firing to one.
     * [8] Tolerance (Linux's timer slack): how late a task may start. Workers read the clock a
     *     quarter of the tolerance back ('minLateNanos'), so a task is handed out once it has
     *     been due that long, and the leader parks until its next event plus another quarter
     *     ('slackNanos'): the tasks due within that quarter share one wake-up, and each starts
     *     between a quarter and a half of the tolerance late (plus the wake-up's own latency,
     *     for which the other half is left). The quarter of lateness every task gets is
     *     deliberate: a client that compares a millisecond clock with its last activity when a
     *     timeout fires, and arms a new one for the whole period if any millisecond is left,
     *     re-arms whenever a timer fires less late than that activity came after the arming
     *     (WheelTimer.Builder.tolerance); with a tolerance of 0 nothing changes. Producers
     *     compare their bound with the planned event ([4]), not with the later wake-up: a task
     *     due before the event unparks the leader, one due in the slack after it does not.
     *     Nothing is handed out before its deadline: the clock is only ever read back.
     *     drainTo and the views read it as it is.
     * [9] Backpressure. Accepted but not run is bounded in time: a producer whose task is due
     *     at once (its deadline no later than its stamp, so execute() and schedule with a delay
     *     of 0 or less) checks, after it has linked the task, how late its shard's earliest
     *     work is ('wheelEvent', exact after each harvest, WheelShard [3]) and how many tasks
     *     the shard holds (a racy read, WheelShard.pendingRacy); past BACKLOG_LAG_NANOS and
     *     BACKLOG_TASKS both, it parks in steps of BACKLOG_PARK_NANOS until the workers bring the
     *     lag back under it, for at most BACKLOG_WAIT_NANOS per call. So under a flood
     *     producers go at the pace of the runs, and a shard holds about BACKLOG_TASKS (or
     *     BACKLOG_LAG_NANOS of the workers' runs, if more), plus one submission per producer
     *     and what the inbox holds: the JDK's
     *     executor slows a flood only by its lock, and its backlog grew by millions a second.
     *     Tasks due later (timeouts) never wait: a mass expiry slows no one who arms a timer.
     *     A worker of this queue never waits (its body would wait for itself); nor does a
     *     producer whose task went through the inbox wait for anything but a full inbox.
     */

    /**
     * How late a shard's earliest due work may be before a producer of a task due at once
     * waits for the workers ([9]). Long against the lateness of a scheduler that keeps up
     * (microseconds to a millisecond or two on a busy machine), short enough that the backlog
     * it allows is a few tens of milliseconds of the workers' runs.
     */
    static final long BACKLOG_LAG_NANOS = 20_000_000L;
    /**
     * How many tasks a shard must hold before a producer waits for the workers ([9]): a
     * handful of due tasks on a busy worker (a test that blocks its only worker, then submits)
     * never holds a producer up; a flood is held to about this many a shard.
     */
    static final long BACKLOG_TASKS = 1L << 17;
    /** The longest a producer waits for the workers in one call ([9]). */
    static final long BACKLOG_WAIT_NANOS = 50_000_000L;
    /** How long a waiting producer parks between looks at its shard's lag ([9]). */
    private static final long BACKLOG_PARK_NANOS = 100_000L;
    /** The most due tasks one harvest moves out of the wheels for the workers ([5]). */
    static final int READY_BATCH = 64;
    /**
     * How long due work waits for the worker that holds the lead, out running a task, before
     * the stand-in takes the lead from it ([3]): by the clock, or in real time without progress.
     * Long enough that a worker keeping up is left alone (a burst of a thousand timers per
     * millisecond is one worker's work), short against the milliseconds a body that blocks
     * or a descheduled worker costs.
     */
    static final long TAKE_OVER_NANOS = 1_000_000L;
    private static final long NOT_PARKED = Long.MIN_VALUE;
    /** How long ago a task must have come due to be handed out by a worker ([8]). */
    private final long minLateNanos;
    /** How much later than its planned event the leader wakes, besides minLateNanos ([8]). */
    private final long slackNanos;

    private final TimeSource clock;
    /** The wheels, their locks and inboxes, and the merged view of time ([1]). */
    private final WheelShards shards;

    /** Whether the calling thread has been a worker of this queue: backpressure spares it ([9]). */
    private final ThreadLocal<Boolean> worker = ThreadLocal.withInitial(() -> Boolean.FALSE);

    private final ReentrantLock workerLock = new ReentrantLock();
    /** Followers wait here, untimed, until a role is free or late work appears ([3]). */
    private final Condition followers = workerLock.newCondition();
    /**
     * The worker that holds the lead, parked or out running a task it took, or null ([3]).
     * Written under workerLock; volatile for the one read without it, a worker's check whether
     * it still holds the lead before it claims a ready task ([5]).
     */
    private volatile Thread leader;
    /** Whether the leader is out running a task rather than parked ([3]). Guarded by workerLock. */
    private boolean leaderOut;
    /** The worker that waits, timed, to take the lead from a stuck or late leader, or null ([3]). Guarded by workerLock. */
    private Thread standIn;
    /** Wheel time the stand-in's park ends; Long.MAX_VALUE if untimed or none. Guarded by workerLock. */
    private long standInWakesAt = Long.MAX_VALUE;
    /** Harvests that handed tasks out: the lead's progress, which the stand-in watches ([3]). Guarded by workerLock. */
    private long harvests;
    /**
     * What the stand-in saw of the lead's progress when it first found work due, and when (real
     * time, System.nanoTime): if nothing has moved TAKE_OVER_NANOS later, it takes over ([3]).
     * Guarded by workerLock; 'watching' false when there is nothing to compare with.
     */
    private boolean watching;
    private long watchedHarvests;
    private ReadyBatch watchedBatch;
    private int watchedRemaining;
    private long watchedSince;
    /**
     * Times a worker began to wait as the stand-in, for tests: a stand-in that re-plans without
     * parking shows here. Written under workerLock, read opaque without it (as leaderWakeUps).
     */
    private long standInLooks;
    /** Workers waiting on 'followers'. Guarded by workerLock. */
    private int followersWaiting;
    /** Due tasks handed out for workers to claim ([5]); replaced under workerLock, read by anyone. */
    private volatile ReadyBatch ready = ReadyBatch.EMPTY;
    /** Where a harvest gathers due tasks before publishing them; guarded by workerLock. */
    private final WheelTask[] gathered = new WheelTask[READY_BATCH];
    /**
     * The worker producers wake for an earlier task ([4]): the leader while it parks, or the
     * stand-in while it parks and the leader is out; else null. Written under workerLock.
     */
    private volatile Thread parkedLeader;
    /** Wheel time of the event the published worker parks for; NOT_PARKED when none ([4]). */
    private volatile long parkedUntil = NOT_PARKED;
    /**
     * Times the leader or the stand-in returned from a park, for metrics and tests. Written only
     * under workerLock, so its plain read of the last value and an opaque store of the next are
     * exact; readers take no lock and read it opaque, so each sees a value no older than one it
     * saw before, lagging at most by a wake-up in progress (as WheelShard [6] counts re-links).
     */
    private long leaderWakeUps;

    /**
     * @param shardCount the number of wheels: a power of two, at most {@link WheelShard#MAX_SHARDS}
     */
    WheelWorkQueue(WheelShape shape, TimeSource clock, int shardCount) {
        this(shape, clock, shardCount, 0L);
    }

    /**
     * @param shardCount the number of wheels: a power of two, at most {@link WheelShard#MAX_SHARDS}
     * @param toleranceNanos how late a task may start ([8]); 0 for as soon as it is due
     */
    WheelWorkQueue(WheelShape shape, TimeSource clock, int shardCount, long toleranceNanos) {
        if (toleranceNanos < 0L) {
            throw new IllegalArgumentException("tolerance must not be negative: " + toleranceNanos);
        }
        this.clock = clock;
        this.minLateNanos = toleranceNanos / 4;
        this.slackNanos = toleranceNanos / 2 - minLateNanos;
        this.shards = new WheelShards(shardCount, shape, clock.nanoTime());
    }

    /**
     * A tolerance argument ([8]), of a builder or of one task, in nanoseconds (saturating).
     *
     * @throws IllegalArgumentException if {@code tolerance} is negative
     */
    static long toleranceNanos(long tolerance, TimeUnit unit) {
        if (tolerance < 0L) {
            throw new IllegalArgumentException("tolerance must not be negative: " + tolerance);
        }
        return unit.toNanos(tolerance);
    }

    /**
     * The number of shards a queue has by default: four per processor, as a power of two (at most
     * {@link WheelShard#MAX_SHARDS}). Twice the producer threads a server commonly has (Netty's
     * event loops default to two per processor), so that a producer that meets a busy lock and
     * moves (WheelShards [1]) most likely lands on a shard no other producer holds. With as many
     * shards as producers, every move landed on another producer's shard and set off more
     * moves: four producers of short timers on two cores, whose harvests take the shard locks
     * every millisecond, ran at 11.8 M schedule+cancel pairs/s on 4 shards against 21.9 M on 8
     * (benchmarks/results/churn-short-shards-2026-11-26.txt). A shard costs about 55 KB
     * (benchmarks/results/shard-cost-2026-11-26.txt, its staging ring 8 KB of it).
     */
    static int defaultShardCount() {
        int wanted = Math.min(WheelShard.MAX_SHARDS, 4 * Runtime.getRuntime().availableProcessors());
        return Integer.highestOneBit(Math.max(1, wanted));
    }

    // ---------------------------------------------------------------------------------------
    // Time: final fields only, any thread.

    long wheelNow() {
        return shards.wheelTime(clock.nanoTime());
    }

    long deadlineAfter(long delayNanos) {
        return TimingWheel.deadlineAfterWheelTime(wheelNow(), delayNanos);
    }

    // ---------------------------------------------------------------------------------------
    // Producers: any thread, never workerLock ([1]).

    /** The shard a task made now by the calling thread belongs to ([1]); for tests. */
    int homeShard() {
        return shards.homeShard();
    }

    /**
     * Gives a task being made by the calling thread its deadline, {@code delayNanos} from now
     * (a negative delay means now), its shard and its place among equal deadlines
     * (WheelShards [6]), from one clock read.
     */
    void place(WheelTask task, long delayNanos) {
        long now = wheelNow();
        shards.place(task, now, TimingWheel.deadlineAfterWheelTime(now, delayNanos));
    }

    /** As {@link #place}, with a deadline in wheel time; for tests. */
    void placeAt(WheelTask task, long deadline) {
        shards.place(task, wheelNow(), deadline);
    }

    /**
     * Links a NEW (or re-queued periodic) task and wakes the leader if it is the new first event;
     * a task due at once waits while its shard's due work is far behind ([9]).
     */
    void enqueue(WheelTask task) {
        WheelShard shard = shards.submit(task, true);
        wakeLeaderFor(shard);
        long madeAt = task.sequence() >>> WheelShard.SHARD_BITS; // the stamp: the clock when made (WheelShards [6])
        if (task.deadline() <= madeAt && madeAt - shard.wheelEvent() > BACKLOG_LAG_NANOS
                && shard.pendingRacy() > BACKLOG_TASKS) {
            awaitWorkers(shard);
        }
    }

    /**
     * Backpressure ([9]): waits while the shard's earliest due work is more than
     * BACKLOG_LAG_NANOS late, for at most BACKLOG_WAIT_NANOS; never on a worker of this queue.
     */
    private void awaitWorkers(WheelShard shard) {
        if (worker.get()) {
            return; // a body that submits: waiting for the workers would wait for itself
        }
        long start = clock.nanoTime();
        for (;;) {
            long now = clock.nanoTime();
            if (shards.wheelTime(now) - shard.wheelEvent() <= BACKLOG_LAG_NANOS
                    || now - start >= BACKLOG_WAIT_NANOS) {
                return;
            }
            LockSupport.unpark(parkedLeader);
            LockSupport.parkNanos(this, BACKLOG_PARK_NANOS);
        }
    }

    /** Unlinks a task that was just cancelled, at once or through its shard's inbox ([1], [6]). */
    void cancelled(WheelTask task) {
        if (task.inInbox()) {
            return; // the drain that takes it out of the inbox reads its new state ([6])
        }
        wakeLeaderFor(shards.submit(task, false));
    }

    /**
     * Moves a re-armable task whose deadline moved earlier ([7]), at once or through its shard's
     * inbox, and wakes the leader if it is now the first event; any thread.
     */
    void movedEarlier(WheelTask task) {
        wakeLeaderFor(shards.submit(task, false));
    }

    /** Unparks the leader if the shard's bound is now before the leader's wake-up time ([4]). */
    private void wakeLeaderFor(WheelShard shard) {
        if (shard.nextEvent() < parkedUntil) {
            LockSupport.unpark(parkedLeader);
        }
    }

    /**
     * Brings the wheel in line with the task's state: links it if it wants the wheel and is not
     * in it, unlinks it if the reverse. Call only when holding the wheel's shard lock.
     *
     * @return if it linked the task, the wheel time by which the leader must harvest on its
     *     account (TimingWheel.schedule's answer: earlier than the deadline when a large slot
     *     must move down first); else Long.MAX_VALUE
     */
    static long apply(TimingWheel<WheelTask> wheel, WheelTask task) {
        boolean wanted = task.wantsWheel();
        if (wanted == task.isScheduled()) {
            return wanted ? moveEarlier(wheel, task) : Long.MAX_VALUE;
        }
        if (wanted) {
            return wheel.schedule(task, task.linkDeadline(), task.sequence());
        }
        wheel.cancel(task);
        return Long.MAX_VALUE;
    }

    /**
     * Moves a linked re-armable task whose armed deadline is now before its place in the wheel
     * ([7]); later deadlines stay where they are until that place comes due (the lazy re-arm).
     * Call only when holding the wheel's shard lock.
     *
     * @return as {@link #apply}: Long.MAX_VALUE if the task stays where it is
     */
    private static long moveEarlier(TimingWheel<WheelTask> wheel, WheelTask task) {
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

    // ---------------------------------------------------------------------------------------
    // Consumers: the leader/follower protocol ([3]) with batched hand-off ([5]).

    @Override
    public Runnable take() throws InterruptedException {
        return await(false, 0L);
    }

    @Override
    public Runnable poll(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return await(true, unit.toNanos(timeout));
    }

    private Runnable await(boolean timed, long timeoutNanos)
            throws InterruptedException {
        Thread me = Thread.currentThread();
        if (leader == me) { // only the lead's holder: a worker that lost it stands in ([3])
            WheelTask claimed = ready.claim();
            if (claimed != null) {
                return claimed.outer(); // no lock while ready tasks last ([5])
            }
        }
        long giveUpAt = timed ? clock.nanoTime() - minLateNanos + timeoutNanos : 0L; // read back as below
        if (!worker.get()) {
            worker.set(Boolean.TRUE); // never held up by backpressure ([9])
        }
        boolean tookTask = false;
        long now = 0L;
        workerLock.lockInterruptibly();
        try {
            for (;;) {
                now = clock.nanoTime() - minLateNanos; // [8]
                if (leader != null && leader != me && leaderOut && mustTakeOver(now)) {
                    takeLead(me); // the worker out is stuck ([3])
                }
                if (leader == null || leader == me) {
                    WheelTask task = takeDue(now);
                    if (task != null) {
                        takeLead(me);
                        leaderOut = true;
                        tookTask = true;
                        return task.outer();
                    }
                }
                long waitNanos = timed ? giveUpAt - now : Long.MAX_VALUE;
                if (timed && waitNanos <= 0) {
                    return null;
                }
                if (leader == null || leader == me) {
                    long untilEvent = nanosUntilNextEvent(now);
                    if (untilEvent == 0L) {
                        continue; // a shard asks to be looked at again (a backlog in its inbox)
                    }
                    takeLead(me);
                    lead(untilEvent, waitNanos, now);
                } else if (standIn == null || standIn == me) {
                    standIn(now, waitNanos);
                } else {
                    follow(timed, waitNanos);
                }
            }
        } finally {
            leaveRoles(me, tookTask, now);
            workerLock.unlock();
        }
    }

    /** Makes the calling worker the leader, giving up the stand-in's role if it held it. */
    private void takeLead(Thread me) {
        leader = me;
        if (standIn == me) {
            standIn = null;
            watching = false;
        }
    }

    /**
     * Whether the stand-in takes the lead from the worker out ([3]): some work is due and the
     * lead has made no progress (no harvest, no claim) for TAKE_OVER_NANOS of real time since
     * the stand-in first saw work due; real time, so that it serves clocks that stand still (a
     * manual clock in tests). Call only when holding workerLock, as the stand-in.
     */
    private boolean mustTakeOver(long now) {
        long wheelNow = shards.wheelTime(now);
        long due = earliestWork(wheelNow);
        if (due > wheelNow) {
            watching = false;
            return false;
        }
        ReadyBatch batch = ready;
        int remaining = batch.remaining();
        long realNow = System.nanoTime();
        if (!watching || watchedHarvests != harvests || watchedBatch != batch || watchedRemaining != remaining) {
            watching = true;
            watchedHarvests = harvests;
            watchedBatch = batch;
            watchedRemaining = remaining;
            watchedSince = realNow;
            return false;
        }
        return realNow - watchedSince >= TAKE_OVER_NANOS;
    }

    /**
     * Wheel time of the earliest work there is: the ready batch's first task or the earliest
     * event a shard publishes; Long.MAX_VALUE if none. Racy reads of both, as the stand-in's
     * checks need ([3]).
     */
    private long earliestWork(long wheelNow) {
        return Math.min(ready.firstDeadline(), shards.earliestEventForLeader(heldRetryAt(wheelNow)));
    }

    /**
     * Hands the roles on as a worker leaves the queue ([3]): with a task (the leader goes out
     * holding the lead; the stand-in goes out having taken the lead from a stuck one), or
     * without one (interrupted, or its timed poll ran out). {@code now} is the clock as the
     * caller last read it back ([8]), used only when it took a task: its take read it, so the
     * leader going out reads the clock no more than before. Call only when holding workerLock.
     */
    private void leaveRoles(Thread me, boolean tookTask, long now) {
        if (leader == me && !tookTask) {
            leader = null;
            leaderOut = false;
        }
        if (standIn == me) {
            standIn = null;
            watching = false;
        }
        boolean wanted = false;
        if (leader == null) {
            if (standIn != null) {
                LockSupport.unpark(standIn); // it parks without the condition: wake it to lead
            } else {
                wanted = true;
            }
        } else if (leaderOut) {
            if (standIn == null) {
                wanted = true; // someone must watch the worker out
            } else if (tookTask && leader == me && standInWakesAt > shards.wheelTime(now + minLateNanos) + TAKE_OVER_NANOS) {
                LockSupport.unpark(standIn); // it sleeps on a later plan: let it watch this run
            }
        }
        if (wanted && followersWaiting > 0) {
            followers.signal();
        }
    }

    /**
     * How long the leader may park: until the earliest event any shard publishes ([4]), or a
     * retry of a shard the last harvest found held (WheelShards [7]).
     */
    private long nanosUntilNextEvent(long nanoTime) {
        long wheelNow = shards.wheelTime(nanoTime);
        long earliest = shards.earliestEventForLeader(heldRetryAt(wheelNow));
        if (earliest == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return Math.max(0L, earliest - wheelNow);
    }

    /** When to look again at a shard the last harvest found held (WheelShards [7]), in wheel time. */
    private static long heldRetryAt(long wheelNow) {
        return TimingWheel.addSaturated(wheelNow, WheelShards.HELD_RETRY_NANOS);
    }

    /**
     * Takes a due task: a ready one, or the first of a new harvest ([5]). Call only when holding
     * workerLock.
     *
     * @return a due task for the caller, or null if none is due
     */
    private WheelTask takeDue(long now) {
        WheelTask task = ready.claim();
        return task != null ? task : handOutDue(now);
    }

    /**
     * Harvests up to READY_BATCH due tasks, in order; the first is returned, the rest become
     * the ready batch ([5]). Call only when holding workerLock, with 'ready' exhausted.
     */
    private WheelTask handOutDue(long now) {
        int count = shards.harvest(now, gathered, READY_BATCH, false);
        if (count == 0) {
            return null;
        }
        harvests++;
        WheelTask first = gathered[0];
        if (count > 1) {
            ready = ReadyBatch.of(Arrays.copyOfRange(gathered, 1, count), count - 1);
        }
        Arrays.fill(gathered, 0, count, null); // hold no task longer than the batch does
        return first;
    }

    /** Waits as a follower. Call only when holding workerLock; it is released while waiting. */
    private void follow(boolean timed, long waitNanos) throws InterruptedException {
        followersWaiting++;
        try {
            if (timed) {
                followers.awaitNanos(waitNanos);
            } else {
                followers.await();
            }
        } finally {
            followersWaiting--;
        }
    }

    /**
     * Parks as the leader until the next event plus the slack ([8]), or for {@code waitNanos}
     * if that is sooner ({@link Long#MAX_VALUE}: until woken). Call only when holding
     * workerLock; it is released while parked and held again on return.
     */
    private void lead(long untilEvent, long waitNanos, long now) throws InterruptedException {
        leaderOut = false;
        // What producers compare with: the planned event, not the slack after it ([8]).
        long until = untilEvent == Long.MAX_VALUE
                ? Long.MAX_VALUE
                : TimingWheel.addSaturated(shards.wheelTime(now), untilEvent);
        park(until, parkNanos(untilEvent, waitNanos, slackNanos));
    }

    /**
     * Waits as the stand-in ([3]): while the leader parks, until a little after the leader's
     * planned event; while the leader is out, until TAKE_OVER_NANOS after the earliest due work,
     * published for producers as the leader publishes its park. Call only when holding
     * workerLock; it is released while parked and held again on return.
     */
    private void standIn(long now, long waitNanos) throws InterruptedException {
        standIn = Thread.currentThread();
        STAND_IN_LOOKS.setOpaque(this, standInLooks + 1); // see the field
        long wheelNow = shards.wheelTime(now);
        long event = leaderOut ? earliestWork(wheelNow) : parkedUntil;
        long untilEvent = event == Long.MAX_VALUE || event == NOT_PARKED ? Long.MAX_VALUE : Math.max(0L, event - wheelNow);
        long parkNanos = parkNanos(untilEvent, waitNanos, slackNanos + TAKE_OVER_NANOS);
        standInWakesAt = parkNanos == Long.MAX_VALUE ? Long.MAX_VALUE : TimingWheel.addSaturated(wheelNow, parkNanos);
        try {
            if (leaderOut) {
                park(event, parkNanos); // the event itself, even if past: only an earlier one re-plans
            } else {
                parkUnpublished(parkNanos);
            }
        } finally {
            standInWakesAt = Long.MAX_VALUE;
        }
    }

    /**
     * Parks the calling worker for {@code parkNanos} ({@link Long#MAX_VALUE}: until woken),
     * published to producers as waking for wheel time {@code until} ([4]). Call only when
     * holding workerLock; it is released while parked and held again on return.
     */
    private void park(long until, long parkNanos) throws InterruptedException {
        Thread me = Thread.currentThread();
        try {
            parkedLeader = me;
            parkedUntil = until;
            if (shards.earliestEventForLeader(until) < until) {
                return; // a producer lowered a bound meanwhile: plan again ([4])
            }
            parkUnpublished(parkNanos);
        } finally {
            if (parkedLeader == me) {
                parkedUntil = NOT_PARKED;
                parkedLeader = null;
            }
        }
    }

    /** As {@link #park}, without telling producers: another parked worker answers for the next event. */
    private void parkUnpublished(long parkNanos) throws InterruptedException {
        workerLock.unlock();
        try {
            if (parkNanos == Long.MAX_VALUE) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, parkNanos);
            }
        } finally {
            workerLock.lock();
        }
        WAKE_UPS.setOpaque(this, leaderWakeUps + 1); // see the field
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    /**
     * How long the leader parks ([8]): until its next event plus the slack, or until a timed
     * wait ends if that is sooner; {@link Long#MAX_VALUE} for until woken.
     */
    static long parkNanos(long untilEvent, long waitNanos, long slackNanos) {
        long untilWake = untilEvent == Long.MAX_VALUE ? Long.MAX_VALUE : TimingWheel.addSaturated(untilEvent, slackNanos);
        return Math.min(waitNanos, untilWake);
    }

    // ---------------------------------------------------------------------------------------
    // The rest of BlockingQueue: views under workerLock and every shard lock.

    @Override
    public Runnable poll() {
        WheelTask claimed = ready.claim();
        if (claimed != null) {
            return claimed.outer();
        }
        workerLock.lock();
        try {
            WheelTask task = takeDue(clock.nanoTime() - minLateNanos); // [8]
            if (ready.remaining() > 0) {
                LockSupport.unpark(parkedLeader); // a batch this poll made: the parked worker takes it
            }
            return task == null ? null : task.outer();
        } finally {
            workerLock.unlock();
        }
    }

    @Override
    public Runnable peek() {
        return underViewLocks(() -> {
            WheelTask[] first = new WheelTask[1];
            forEachReady(task -> {
                if (first[0] == null) {
                    first[0] = task;
                }
            });
            WheelTask task = first[0] != null ? first[0] : shards.peekEarliest();
            return task == null ? null : task.outer();
        });
    }

    /**
     * Runs a view with workerLock held (no harvest is half done) and every shard locked with
     * its inbox drained (the wheels show every task).
     */
    private <T> T underViewLocks(Supplier<T> view) {
        workerLock.lock();
        try {
            shards.lockAllForView();
            try {
                return view.get();
            } finally {
                shards.unlockAll();
            }
        } finally {
            workerLock.unlock();
        }
    }

    /**
     * Accepts only tasks of the owning executor; the executor's {@code execute} never calls this
     * except with its worker-start marker, which is accepted and dropped.
     */
    @Override
    public boolean offer(Runnable runnable) {
        Objects.requireNonNull(runnable, "runnable");
        if (runnable == WheelScheduledExecutor.WORKER_START) {
            return true;
        }
        WheelTask task = taskOf(runnable);
        if (task == null) {
            throw new ClassCastException("not a task of this executor: " + runnable);
        }
        enqueue(task);
        return true;
    }

    @Override
    public void put(Runnable runnable) {
        offer(runnable);
    }

    @Override
    public boolean offer(Runnable runnable, long timeout, TimeUnit unit) {
        return offer(runnable);
    }

    /** Removes a pending task, or a due one no worker has taken yet from the ready batch. */
    @Override
    public boolean remove(Object o) {
        return underViewLocks(() -> {
            WheelTask task = find(o);
            if (task != null) {
                return shards.cancel(task);
            }
            WheelTask[] handedOut = new WheelTask[1];
            forEachReady(t -> {
                if (t == o || t.outer() == o) {
                    handedOut[0] = t;
                }
            });
            return handedOut[0] != null && ready.remove(handedOut[0]);
        });
    }

    @Override
    public boolean contains(Object o) {
        return underViewLocks(() -> {
            if (find(o) != null) {
                return true;
            }
            boolean[] found = new boolean[1];
            forEachReady(task -> found[0] |= task == o || task.outer() == o);
            return found[0];
        });
    }

    /**
     * The task in a wheel that is, or is decorated as, {@code o}; not one handed out in a
     * batch. Call only under the view locks.
     */
    private WheelTask find(Object o) {
        if (o instanceof WheelTask task && task.belongsTo(this)) {
            return task.isScheduled() ? task : null;
        }
        if (!(o instanceof RunnableScheduledFuture<?>)) {
            return null;
        }
        WheelTask[] found = new WheelTask[1];
        shards.forEach(task -> {
            if (task.outer() == o) {
                found[0] = task;
            }
        });
        return found[0];
    }

    private WheelTask taskOf(Runnable runnable) {
        return runnable instanceof WheelTask task && task.belongsTo(this) ? task : null;
    }

    @Override
    public int size() {
        return underViewLocks(() -> {
            int[] readyTasks = new int[1];
            forEachReady(task -> readyTasks[0]++);
            return (int) Math.min(Integer.MAX_VALUE, shards.size() + readyTasks[0]);
        });
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public int remainingCapacity() {
        return Integer.MAX_VALUE;
    }

    @Override
    public void clear() {
        underViewLocks(() -> {
            ready.claimAll(READY_BATCH, task -> { });
            shards.clear();
            return null;
        });
    }

    @Override
    public Object[] toArray() {
        return snapshot().toArray();
    }

    @Override
    public <T> T[] toArray(T[] array) {
        return snapshot().toArray(array);
    }

    private List<Runnable> snapshot() {
        return underViewLocks(() -> {
            List<Runnable> tasks = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, shards.size() + READY_BATCH));
            forEachReady(task -> tasks.add(task.outer()));
            shards.forEach(task -> tasks.add(task.outer()));
            return tasks;
        });
    }

    @Override
    public int drainTo(Collection<? super Runnable> sink) {
        return drainTo(sink, Integer.MAX_VALUE);
    }

    /** Moves up to {@code maxElements} tasks that are due, in order; tasks not yet due stay. */
    @Override
    public int drainTo(Collection<? super Runnable> sink, int maxElements) {
        Objects.requireNonNull(sink, "sink");
        if (sink == this) {
            throw new IllegalArgumentException("sink must not be this queue");
        }
        if (maxElements <= 0) {
            return 0;
        }
        // Only workerLock: the harvest locks the shards that have anything due (and drains
        // their inboxes) itself; the shard locks are not reentrant.
        workerLock.lock();
        try {
            int[] moved = new int[1];
            ready.claimAll(maxElements, task -> {
                if (task.wantsWheel()) { // a task cancelled since its hand-off has left the queue
                    sink.add(task.outer());
                    moved[0]++;
                }
            });
            long now = clock.nanoTime();
            while (moved[0] < maxElements) {
                int count = shards.harvest(now, gathered, Math.min(READY_BATCH, maxElements - moved[0]), true);
                for (int i = 0; i < count; i++) {
                    sink.add(gathered[i].outer());
                    gathered[i] = null;
                }
                moved[0] += count;
                if (count == 0) {
                    break;
                }
            }
            return moved[0];
        } finally {
            workerLock.unlock();
        }
    }

    /** A snapshot iterator whose {@code remove} removes the last task from this queue. */
    @Override
    public Iterator<Runnable> iterator() {
        List<Runnable> tasks = snapshot();
        return new Iterator<>() {
            private int cursor;
            private Runnable last;

            @Override
            public boolean hasNext() {
                return cursor < tasks.size();
            }

            @Override
            public Runnable next() {
                if (cursor >= tasks.size()) {
                    throw new NoSuchElementException();
                }
                last = tasks.get(cursor++);
                return last;
            }

            @Override
            public void remove() {
                if (last == null) {
                    throw new IllegalStateException();
                }
                WheelWorkQueue.this.remove(last);
                last = null;
            }
        };
    }

    /**
     * Gives {@code action} each task of the ready batch that no worker has claimed yet and that
     * still belongs in the queue: one cancelled since the hand-off is gone from the views, as it
     * would be from the wheel ([5]). Call only under the view locks.
     */
    private void forEachReady(Consumer<WheelTask> action) {
        ready.forEachRemaining(task -> {
            if (task.wantsWheel()) {
                action.accept(task);
            }
        });
    }

    /** Lazy re-arms of re-armable tasks so far (WheelShards [5]); any thread, no lock. */
    long relinks() {
        return shards.relinks();
    }

    /** Tasks in the shards' inboxes now; for tests of the bound. */
    int inboxSize() {
        return shards.inboxSize();
    }

    /** The number of shards; for tests. */
    int shardCount() {
        return shards.count();
    }

    /** A shard; for tests that hold its lock to send producers through the inbox. */
    WheelShard shard(int index) {
        return shards.shard(index);
    }

    /** Whether a leader is parked (or about to park); for tests of who drains the inbox. */
    boolean leaderParked() {
        return parkedLeader != null;
    }

    /** Times the leader or the stand-in woke from a park; any thread, an opaque read, no lock (see the field). */
    long leaderWakeUps() {
        return (long) WAKE_UPS.getOpaque(this);
    }

    /** Times a worker began to wait as the stand-in; any thread, an opaque read, no lock. */
    long standInLooks() {
        return (long) STAND_IN_LOOKS.getOpaque(this);
    }

    private static final VarHandle WAKE_UPS;
    private static final VarHandle STAND_IN_LOOKS;

    static {
        try {
            WAKE_UPS = MethodHandles.lookup().findVarHandle(WheelWorkQueue.class, "leaderWakeUps", long.class);
            STAND_IN_LOOKS = MethodHandles.lookup().findVarHandle(WheelWorkQueue.class, "standInLooks", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
