package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.WheelWorkQueue.READY_BATCH;

import io.github.timingwheel.core.TimeSource;
import io.github.timingwheel.core.TimingWheel;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The workers' side of a {@link WheelWorkQueue}: who leads, who stands in and who follows; how
 * the leader parks, is woken and hands due tasks out in batches. The queue's {@code take} and
 * {@code poll} run here; its producers wake the parked worker through {@link #wakeLeaderFor},
 * and its views read the ready batch while holding the worker lock.
 */
final class WorkerRoles {

    /*
     * Implementation notes
     *
     * [1] Ownership. 'workerLock' guards the roles ('leader', 'leaderOut', 'standIn' and what
     *     the stand-in watches), 'followersWaiting', 'gathered' and the replacement of 'ready',
     *     and is held by any worker that harvests (WheelShards [3]) and by the queue's views; a
     *     worker holds it only between parks, never while parked or running a task. Lock order:
     *     workerLock, then shard locks in index order. Producers never take it
     *     (WheelWorkQueue [1]).
     * [2] Leader, stand-in, followers (Schmidt et al.'s leader/followers, with the lead kept
     *     while its holder runs). One worker holds the lead: it parks (LockSupport, without the
     *     lock) until the earliest event any shard publishes, harvests when it wakes, and keeps
     *     the lead while it runs the tasks it took ('leaderOut'), coming back for the next
     *     ones. A second worker, the stand-in, parks timed: while the leader parks, until
     *     TAKE_OVER_NANOS after the leader's planned event; while the leader is out, until
     *     TAKE_OVER_NANOS after the earliest due work, published for producers as [3]. It takes
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
     * [3] Waking the leader. Before parking, the leader publishes 'parkedLeader' and then
     *     'parkedUntil' (volatile), and then reads every shard's published bound again. A
     *     producer lowers its shard's bound (a volatile write, WheelShard [3], [4]) and then
     *     reads 'parkedUntil' (wakeLeaderFor). Volatile accesses in opposite order (Dekker):
     *     either the leader sees the lower bound and plans again, or the producer sees the
     *     deadline and unparks it. A producer whose task is not earlier than its shard's bound
     *     writes nothing and wakes no one: the leader already parks no later than that bound.
     *     So a steady stream of later tasks does not keep the leader awake, and the merged
     *     view costs the leader one volatile read per shard per park, no lock (the lesson of
     *     sharded wheels whose parking took every shard's lock in turn). A stale read can at
     *     most unpark a thread that has moved on, which every LockSupport user tolerates as a
     *     spurious wake-up.
     * [4] Batched hand-off. The leader, finding tasks due, harvests up to READY_BATCH of them
     *     at once, in deadline-then-sequence order across shards: it keeps the first and
     *     publishes the rest as 'ready', a ReadyBatch claimed from without a lock. The leader
     *     asks 'ready' first, before the lock, so that while due tasks last it goes from one to
     *     the next without parking; a worker that lost the lead to the stand-in ([2]) does not
     *     claim on its way back, but stands in: two workers claiming in turn from one batch
     *     shared its cache lines and the bodies' for every task. 'ready' is written
     *     only under workerLock and only replaced once exhausted. The cost: a task that
     *     becomes due while a batch is out (a fixed-rate run that is already late) starts
     *     after that batch, so order is exact across at most READY_BATCH tasks.
     * [5] Tolerance (Linux's timer slack): how late a task may start. Workers read the clock a
     *     quarter of the tolerance back ('minLateNanos'), so a task is handed out once it has
     *     been due that long, and the leader parks until its next event plus another quarter
     *     ('slackNanos'): the tasks due within that quarter share one wake-up, and each starts
     *     between a quarter and a half of the tolerance late (plus the wake-up's own latency,
     *     for which the other half is left). The quarter of lateness every task gets is
     *     deliberate: a client that compares a millisecond clock with its last activity when a
     *     timeout fires, and arms a new one for the whole period if any millisecond is left,
     *     re-arms whenever a timer fires less late than that activity came after the arming
     *     (WheelTimer.Builder.tolerance); with a tolerance of 0 nothing changes. Producers
     *     compare their bound with the planned event ([3]), not with the later wake-up: a task
     *     due before the event unparks the leader, one due in the slack after it does not.
     *     Nothing is handed out before its deadline: the clock is only ever read back.
     *     drainDue and the queue's views read it as it is.
     */

    /**
     * How long due work waits for the worker that holds the lead, out running a task, before
     * the stand-in takes the lead from it ([2]): by the clock, or in real time without progress.
     * Longer than the few milliseconds for which an operating system lets other runnable
     * threads run before a preempted one's turn comes again: a leader descheduled that long
     * comes back to its work instead of losing it. At 1 ms, such take-overs moved the lead
     * between the two workers of a 2-core machine again and again in a burst, and the burst
     * fell further behind than on one worker (docs/decisions.md). Short against a body that
     * blocks for tens of milliseconds, the case a second worker is for.
     */
    static final long TAKE_OVER_NANOS = 4_000_000L;
    private static final long NOT_PARKED = Long.MIN_VALUE;
    /** How long ago a task must have come due to be handed out by a worker ([5]). */
    private final long minLateNanos;
    /** How much later than its planned event the leader wakes, besides minLateNanos ([5]). */
    private final long slackNanos;

    private final TimeSource clock;
    private final WheelShards shards;
    /** What parked workers are parked on (LockSupport's blocker, in thread dumps): the queue. */
    private final Object blocker;

    /** Whether the calling thread has been a worker of this queue: backpressure spares it (WheelWorkQueue [4]). */
    private final ThreadLocal<Boolean> worker = ThreadLocal.withInitial(() -> Boolean.FALSE);

    private final ReentrantLock workerLock = new ReentrantLock();
    /** Followers wait here, untimed, until a role is free or late work appears ([2]). */
    private final Condition followers = workerLock.newCondition();
    /**
     * The worker that holds the lead, parked or out running a task it took, or null ([2]).
     * Written under workerLock; volatile for the one read without it, a worker's check whether
     * it still holds the lead before it claims a ready task ([4]).
     */
    private volatile Thread leader;
    /** Whether the leader is out running a task rather than parked ([2]). Guarded by workerLock. */
    private boolean leaderOut;
    /** The worker that waits, timed, to take the lead from a stuck or late leader, or null ([2]). Guarded by workerLock. */
    private Thread standIn;
    /** Wheel time the stand-in's park ends; Long.MAX_VALUE if untimed or none. Guarded by workerLock. */
    private long standInWakesAt = Long.MAX_VALUE;
    /** Harvests that handed tasks out: the lead's progress, which the stand-in watches ([2]). Guarded by workerLock. */
    private long harvests;
    /**
     * What the stand-in saw of the lead's progress when it first found work due, and when (real
     * time, System.nanoTime): if nothing has moved TAKE_OVER_NANOS later, it takes over ([2]).
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
    /** Due tasks handed out for workers to claim ([4]); replaced under workerLock, read by anyone. */
    private volatile ReadyBatch ready = ReadyBatch.EMPTY;
    /** Where a harvest gathers due tasks before publishing them; guarded by workerLock. */
    private final WheelTask[] gathered = new WheelTask[READY_BATCH];
    /**
     * The worker producers wake for an earlier task ([3]): the leader while it parks, or the
     * stand-in while it parks and the leader is out; else null. Written under workerLock.
     */
    private volatile Thread parkedLeader;
    /** Wheel time of the event the published worker parks for; NOT_PARKED when none ([3]). */
    private volatile long parkedUntil = NOT_PARKED;
    /**
     * Times the leader or the stand-in returned from a park, for metrics and tests. Written only
     * under workerLock, so its plain read of the last value and an opaque store of the next are
     * exact; readers take no lock and read it opaque, so each sees a value no older than one it
     * saw before, lagging at most by a wake-up in progress (as WheelShard [6] counts re-links).
     */
    private long leaderWakeUps;

    /**
     * @param toleranceNanos how late a task may start ([5]), not negative (the queue checks it)
     * @param blocker what parked workers are parked on: the queue
     */
    WorkerRoles(WheelShards shards, TimeSource clock, long toleranceNanos, Object blocker) {
        this.clock = clock;
        this.shards = shards;
        this.blocker = blocker;
        this.minLateNanos = toleranceNanos / 4;
        this.slackNanos = toleranceNanos / 2 - minLateNanos;
    }

    // ---------------------------------------------------------------------------------------
    // Producers: any thread, never workerLock ([1]).

    /** Unparks the leader if the shard's bound is now before the leader's wake-up time ([3]). */
    void wakeLeaderFor(WheelShard shard) {
        if (shard.nextEvent() < parkedUntil) {
            LockSupport.unpark(parkedLeader);
        }
    }

    /** Unparks the published parked worker, if any: a producer held by backpressure nudges it. */
    void unparkLeader() {
        LockSupport.unpark(parkedLeader);
    }

    /** Whether the calling thread has been a worker of this queue (WheelWorkQueue [4]). */
    boolean calledByWorker() {
        return worker.get();
    }

    // ---------------------------------------------------------------------------------------
    // Workers: the leader/follower protocol ([2]) with batched hand-off ([4]).

    /**
     * The queue's {@code take} ({@code timed} false) and timed {@code poll}: a due task for the
     * calling worker, or null if a timed wait ran out.
     */
    Runnable await(boolean timed, long timeoutNanos)
            throws InterruptedException {
        Thread me = Thread.currentThread();
        if (leader == me) { // only the lead's holder: a worker that lost it stands in ([2])
            WheelTask claimed = ready.claim();
            if (claimed != null) {
                return claimed.outer(); // no lock while ready tasks last ([4])
            }
        }
        long giveUpAt = timed ? clock.nanoTime() - minLateNanos + timeoutNanos : 0L; // read back as below
        if (!worker.get()) {
            worker.set(Boolean.TRUE); // never held up by backpressure (WheelWorkQueue [4])
        }
        boolean tookTask = false;
        long now = 0L;
        workerLock.lockInterruptibly();
        try {
            for (;;) {
                now = clock.nanoTime() - minLateNanos; // [5]
                if (leader != null && leader != me && leaderOut && mustTakeOver(now)) {
                    takeLead(me); // the worker out is stuck ([2])
                }
                if (leader == null || leader == me) {
                    WheelTask task = takeDue(now);
                    if (task != null) {
                        takeLead(me);
                        leaderOut = true;
                        tookTask = true;
                        return task.outer();
                    }
                    // The park is planned from when the harvest ended, not began: one that sorts a
                    // tick ahead of time (TimingWheel [14]) may take milliseconds.
                    now = clock.nanoTime() - minLateNanos; // [5]
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

    /** The queue's {@code poll()}: a task due now ([5]), or null; it never waits for one. */
    Runnable poll() {
        WheelTask claimed = ready.claim();
        if (claimed != null) {
            return claimed.outer();
        }
        workerLock.lock();
        try {
            WheelTask task = takeDue(clock.nanoTime() - minLateNanos); // [5]
            if (ready.remaining() > 0) {
                LockSupport.unpark(parkedLeader); // a batch this poll made: the parked worker takes it
            }
            return task == null ? null : task.outer();
        } finally {
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
     * Whether the stand-in takes the lead from the worker out ([2]): some work is due and the
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
     * checks need ([2]).
     */
    private long earliestWork(long wheelNow) {
        return Math.min(ready.firstDeadline(), shards.earliestEventForLeader(heldRetryAt(wheelNow)));
    }

    /**
     * Hands the roles on as a worker leaves the queue ([2]): with a task (the leader goes out
     * holding the lead; the stand-in goes out having taken the lead from a stuck one), or
     * without one (interrupted, or its timed poll ran out). {@code now} is the clock as the
     * caller last read it back ([5]), used only when it took a task: its take read it, so the
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
     * How long the leader may park: until the earliest event any shard publishes ([3]), or a
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
     * Takes a due task: a ready one, or the first of a new harvest ([4]). Call only when holding
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
     * the ready batch ([4]). Call only when holding workerLock, with 'ready' exhausted.
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
     * Parks as the leader until the next event plus the slack ([5]), or for {@code waitNanos}
     * if that is sooner ({@link Long#MAX_VALUE}: until woken). Call only when holding
     * workerLock; it is released while parked and held again on return.
     */
    private void lead(long untilEvent, long waitNanos, long now) throws InterruptedException {
        leaderOut = false;
        // What producers compare with: the planned event, not the slack after it ([5]).
        long until = untilEvent == Long.MAX_VALUE
                ? Long.MAX_VALUE
                : TimingWheel.addSaturated(shards.wheelTime(now), untilEvent);
        park(until, parkNanos(untilEvent, waitNanos, slackNanos));
    }

    /**
     * Waits as the stand-in ([2]): while the leader parks, until a little after the leader's
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
     * published to producers as waking for wheel time {@code until} ([3]). Call only when
     * holding workerLock; it is released while parked and held again on return.
     */
    private void park(long until, long parkNanos) throws InterruptedException {
        Thread me = Thread.currentThread();
        try {
            parkedLeader = me;
            parkedUntil = until;
            if (shards.earliestEventForLeader(until) < until) {
                return; // a producer lowered a bound meanwhile: plan again ([3])
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
                LockSupport.park(blocker);
            } else {
                LockSupport.parkNanos(blocker, parkNanos);
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
     * How long the leader parks ([5]): until its next event plus the slack, or until a timed
     * wait ends if that is sooner; {@link Long#MAX_VALUE} for until woken.
     */
    static long parkNanos(long untilEvent, long waitNanos, long slackNanos) {
        long untilWake = untilEvent == Long.MAX_VALUE ? Long.MAX_VALUE : TimingWheel.addSaturated(untilEvent, slackNanos);
        return Math.min(waitNanos, untilWake);
    }

    // ---------------------------------------------------------------------------------------
    // The queue's views: under workerLock, so that no harvest is half done ([1]).

    /** Runs {@code view} holding workerLock; the queue's views lock the shards inside it ([1]). */
    <T> T underWorkerLock(Supplier<T> view) {
        workerLock.lock();
        try {
            return view.get();
        } finally {
            workerLock.unlock();
        }
    }

    /**
     * Gives {@code action} each task of the ready batch that no worker has claimed yet and that
     * still belongs in the queue: one cancelled since the hand-off is gone from the views, as it
     * would be from the wheel ([4]). Call only under the view locks.
     */
    void forEachReady(Consumer<WheelTask> action) {
        ready.forEachRemaining(task -> {
            if (task.wantsWheel()) {
                action.accept(task);
            }
        });
    }

    /**
     * Takes back from the ready batch the unclaimed task that is, or is decorated as,
     * {@code o}. Call only under the view locks.
     */
    boolean removeReady(Object o) {
        WheelTask[] handedOut = new WheelTask[1];
        forEachReady(t -> {
            if (t == o || t.outer() == o) {
                handedOut[0] = t;
            }
        });
        return handedOut[0] != null && ready.remove(handedOut[0]);
    }

    /** Drops every unclaimed task of the ready batch. Call only under the view locks. */
    void clearReady() {
        ready.claimAll(READY_BATCH, task -> { });
    }

    /**
     * The queue's {@code drainTo}: moves up to {@code maxElements} (positive) tasks that are
     * due, in order, the ready batch's first; tasks not yet due stay.
     */
    int drainDue(Collection<? super Runnable> sink, int maxElements) {
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

    // ---------------------------------------------------------------------------------------
    // For metrics and tests.

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
            WAKE_UPS = MethodHandles.lookup().findVarHandle(WorkerRoles.class, "leaderWakeUps", long.class);
            STAND_IN_LOOKS = MethodHandles.lookup().findVarHandle(WorkerRoles.class, "standInLooks", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
