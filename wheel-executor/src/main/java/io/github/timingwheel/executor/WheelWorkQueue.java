package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimeSource;
import io.github.timingwheel.core.TimingWheel;
import io.github.timingwheel.core.WheelShape;
import java.util.AbstractQueue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The work queue of a {@link WheelScheduledExecutor}: sharded timing wheels offered as a
 * {@code BlockingQueue<Runnable>} whose {@code take} and {@code poll} run the leader/follower
 * protocol ({@link WorkerRoles}), as the JDK's {@code DelayedWorkQueue} does over its heap.
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
     *     which also keeps the merged view of time. Producers never take the worker lock
     *     (WorkerRoles [1]); the workers' side, and how a producer wakes the parked leader, is
     *     WorkerRoles.
     * [2] A task cancelled while it still waits in an inbox is not pushed again: the producer
     *     marks it (WheelTask [1]) before the push, the drain clears the mark with a CAS before
     *     it reads the task's state, and a cancel reads the mark after its CAS on the state
     *     (Dekker, as in WorkerRoles [3]). Either the cancel sees the mark
     *     and the drain sees the task cancelled, or the cancel sees it cleared and applies the
     *     task again; a task applied twice is harmless, since applying only brings the wheel in
     *     line with the task's state.
     * [3] Re-armable tasks (ArmedDeadline). A touch that moves one later writes only its
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
     * [4] Backpressure. Accepted but not run is bounded in time: a producer whose task is due
     *     at once (its deadline no later than its stamp, so execute() and schedule with a delay
     *     of 0 or less) checks, after it has linked the task, how late its shard's earliest
     *     work is ('wheelEvent', exact after each harvest, WheelShard [3]) and how many tasks
     *     the shard holds (a racy read, WheelShard.pendingRacy); past BACKLOG_LAG_NANOS and
     *     BACKLOG_TASKS both, it parks in steps of BACKLOG_PARK_NANOS until the workers bring the
     *     lag back under it, for at most BACKLOG_WAIT_NANOS per call. So under a flood
     *     producers go at the pace of the runs, and a shard holds about BACKLOG_TASKS (or
     *     BACKLOG_LAG_NANOS of the workers' runs, if more), plus one submission per producer
     *     and what the inbox holds (the JDK's executor slows a flood only by its lock, and its
     *     backlog grows without bound). Tasks due later (timeouts) never wait: a mass expiry
     *     slows no one who arms a timer.
     *     A worker of this queue never waits (its body would wait for itself); nor does a
     *     producer whose task went through the inbox wait for anything but a full inbox.
     */

    /**
     * How late a shard's earliest due work may be before a producer of a task due at once
     * waits for the workers ([4]). Long against the lateness of a scheduler that keeps up
     * (microseconds to a millisecond or two on a busy machine), short enough that the backlog
     * it allows is a few tens of milliseconds of the workers' runs.
     */
    static final long BACKLOG_LAG_NANOS = 20_000_000L;
    /**
     * How many tasks a shard must hold before a producer waits for the workers ([4]): a
     * handful of due tasks on a busy worker (a test that blocks its only worker, then submits)
     * never holds a producer up; a flood is held to about this many a shard, twice what its
     * inbox holds. Much more, and on a machine whose cores are all busy the producers, never
     * waiting, take the CPU the workers need to run what they have accepted.
     */
    static final long BACKLOG_TASKS = 2L * WheelShard.INBOX_CAPACITY;
    /**
     * The longest a producer waits for the workers in one call ([4]): so many parks of
     * BACKLOG_PARK_NANOS (a park may last longer than asked on a busy machine).
     */
    static final long BACKLOG_WAIT_NANOS = 50_000_000L;
    /** How long a waiting producer parks between looks at its shard's lag ([4]). */
    private static final long BACKLOG_PARK_NANOS = 100_000L;
    /** The most due tasks one harvest moves out of the wheels for the workers (WorkerRoles [4]). */
    static final int READY_BATCH = 64;

    private final TimeSource clock;
    /** The wheels, their locks and inboxes, and the merged view of time ([1]). */
    private final WheelShards shards;
    /** The workers' side: roles, parks and the ready batch, under the worker lock. */
    private final WorkerRoles roles;

    /**
     * @param shardCount the number of wheels: a power of two, at most {@link WheelShard#MAX_SHARDS}
     */
    WheelWorkQueue(WheelShape shape, TimeSource clock, int shardCount) {
        this(shape, clock, shardCount, 0L);
    }

    /**
     * @param shardCount the number of wheels: a power of two, at most {@link WheelShard#MAX_SHARDS}
     * @param toleranceNanos how late a task may start (WorkerRoles [5]); 0 for as soon as it is due
     */
    WheelWorkQueue(WheelShape shape, TimeSource clock, int shardCount, long toleranceNanos) {
        if (toleranceNanos < 0L) {
            throw new IllegalArgumentException("tolerance must not be negative: " + toleranceNanos);
        }
        this.clock = clock;
        this.shards = new WheelShards(shardCount, shape, clock.nanoTime(), clock == TimeSource.system());
        this.roles = new WorkerRoles(shards, clock, toleranceNanos, this);
    }

    /**
     * A tolerance argument (WorkerRoles [5]), of a builder or of one task, in nanoseconds (saturating).
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
     * moves (WheelShards [1]) most likely lands on a shard no other producer holds: with as many
     * shards as producers, every move lands on another producer's shard and sets off more moves.
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
    // Producers: any thread, never the worker lock ([1]).

    /** The shard a task made now by the calling thread belongs to ([1]); for tests. */
    int homeShard() {
        return shards.homeShard();
    }

    /**
     * Places a task just made by the calling thread, before any other thread sees it: its
     * deadline, {@code delayNanos} from now (a negative delay means now), its shard and its place
     * among equal deadlines (WheelShards [6]), from one clock read. Whoever makes a task calls
     * it, not the task's constructor.
     *
     * @return the task
     */
    <T extends WheelTask> T place(T task, long delayNanos) {
        long now = wheelNow();
        shards.place(task, now, TimingWheel.deadlineAfterWheelTime(now, delayNanos));
        return task;
    }

    /** As {@link #place}, with a deadline in wheel time; for tests. */
    void placeAt(WheelTask task, long deadline) {
        shards.place(task, wheelNow(), deadline);
    }

    /**
     * Links a NEW (or re-queued periodic) task and wakes the leader if it is the new first event;
     * a task due at once waits while its shard's due work is far behind ([4]).
     */
    void enqueue(WheelTask task) {
        enqueue(task, null);
    }

    /**
     * As {@link #enqueue(WheelTask)}, counting a new task as scheduled in {@code counts}, in
     * place or in the calling thread's cell, before any other thread can see it (WheelShard
     * [8]); {@code counts} null counts nothing (a periodic task queued again).
     */
    void enqueue(WheelTask task, TaskCounters counts) {
        WheelShard shard = shards.submit(task, true, counts);
        roles.wakeLeaderFor(shard);
        long madeAt = task.sequence() >>> WheelShard.SHARD_BITS; // the stamp: the clock when made (WheelShards [6])
        if (task.deadline() <= madeAt && madeAt - shard.wheelEvent() > BACKLOG_LAG_NANOS
                && shard.pendingRacy() > BACKLOG_TASKS) {
            awaitWorkers(shard);
        }
    }

    /**
     * Backpressure ([4]): waits while the shard's earliest due work is more than
     * BACKLOG_LAG_NANOS late, for at most BACKLOG_WAIT_NANOS; never on a worker of this queue.
     */
    private void awaitWorkers(WheelShard shard) {
        if (roles.calledByWorker()) {
            return; // a body that submits: waiting for the workers would wait for itself
        }
        // Bounded by a count of parks, not by the queue's clock: a manual clock that stands
        // still must not keep a producer here.
        for (long parks = 0; parks < BACKLOG_WAIT_NANOS / BACKLOG_PARK_NANOS; parks++) {
            if (shards.wheelTime(clock.nanoTime()) - shard.wheelEvent() <= BACKLOG_LAG_NANOS) {
                return;
            }
            roles.unparkLeader();
            LockSupport.parkNanos(this, BACKLOG_PARK_NANOS);
        }
    }

    /** Unlinks a task that was just cancelled, at once or through its shard's inbox ([1], [2]). */
    void cancelled(WheelTask task) {
        cancelled(task, null);
    }

    /**
     * As {@link #cancelled(WheelTask)}, counting the cancel in {@code counts}, in place or in
     * the calling thread's cell (WheelShard [8]); {@code counts} null counts nothing.
     */
    void cancelled(WheelTask task, TaskCounters counts) {
        if (task.inInbox()) {
            if (counts != null) {
                counts.cancelled();
            }
            return; // the drain that takes it out of the inbox reads its new state ([2])
        }
        roles.wakeLeaderFor(shards.submit(task, false, counts));
    }

    /**
     * Moves a re-armable task whose deadline moved earlier ([3]), at once or through its shard's
     * inbox, and wakes the leader if it is now the first event; any thread.
     */
    void movedEarlier(WheelTask task) {
        roles.wakeLeaderFor(shards.submit(task, false));
    }

    // ---------------------------------------------------------------------------------------
    // Consumers: the workers' protocol, in WorkerRoles.

    @Override
    public Runnable take() throws InterruptedException {
        return roles.await(false, 0L);
    }

    @Override
    public Runnable poll(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return roles.await(true, unit.toNanos(timeout));
    }

    @Override
    public Runnable poll() {
        return roles.poll();
    }

    // ---------------------------------------------------------------------------------------
    // The rest of BlockingQueue: views under the worker lock and every shard lock.

    @Override
    public Runnable peek() {
        return underViewLocks(() -> {
            WheelTask[] first = new WheelTask[1];
            roles.forEachReady(task -> {
                if (first[0] == null) {
                    first[0] = task;
                }
            });
            WheelTask task = first[0] != null ? first[0] : shards.peekEarliest();
            return task == null ? null : task.outer();
        });
    }

    /**
     * Runs a view with the worker lock held (no harvest is half done, WorkerRoles [1]) and
     * every shard locked with its inbox drained (the wheels show every task).
     */
    private <T> T underViewLocks(Supplier<T> view) {
        return roles.underWorkerLock(() -> {
            shards.lockAllForView();
            try {
                return view.get();
            } finally {
                shards.unlockAll();
            }
        });
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
            return roles.removeReady(o);
        });
    }

    @Override
    public boolean contains(Object o) {
        return underViewLocks(() -> {
            if (find(o) != null) {
                return true;
            }
            boolean[] found = new boolean[1];
            roles.forEachReady(task -> found[0] |= task == o || task.outer() == o);
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
            roles.forEachReady(task -> readyTasks[0]++);
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
            roles.clearReady();
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
            roles.forEachReady(task -> tasks.add(task.outer()));
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
        return roles.drainDue(sink, maxElements);
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

    /** Lazy re-arms of re-armable tasks so far (WheelShards [5]); any thread, no lock. */
    long relinks() {
        return shards.relinks();
    }

    /** New tasks counted as scheduled in the shards so far (WheelShard [8]); any thread, no lock. */
    long scheduledInShards() {
        return shards.scheduledHere();
    }

    /** Cancels counted in the shards so far (WheelShard [8]); any thread, no lock. */
    long cancelledInShards() {
        return shards.cancelledHere();
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
        return roles.leaderParked();
    }

    /** Times the leader or the stand-in woke from a park; any thread, an opaque read, no lock (WorkerRoles' field). */
    long leaderWakeUps() {
        return roles.leaderWakeUps();
    }

    /** Times a worker began to wait as the stand-in; any thread, an opaque read, no lock. */
    long standInLooks() {
        return roles.standInLooks();
    }
}
