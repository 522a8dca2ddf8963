package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimeSource;
import io.github.timingwheel.core.TimingWheel;
import io.github.timingwheel.core.WheelShape;
import java.util.AbstractQueue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jctools.queues.atomic.MpscChunkedAtomicArrayQueue;

/**
 * The work queue of a {@link WheelScheduledExecutor}: a timing wheel offered as a
 * {@code BlockingQueue<Runnable>} whose {@code take} and {@code poll} run the leader/follower
 * protocol, as the JDK's {@code DelayedWorkQueue} does over its heap.
 *
 * <p>Elements are the executor's tasks (or what {@code decorateTask} made of them). Views
 * ({@link #iterator()}, {@link #toArray()}) are snapshots in no particular order;
 * {@link #drainTo} moves only tasks that are due, as {@code DelayedWorkQueue}'s does. Due tasks
 * that the wheel has handed out in a batch, and no worker has taken yet, are still counted and
 * shown, and {@code drainTo} takes them; {@link #remove} cannot take them back (a worker is
 * about to run them, as if it had already taken them).
 *
 * <p>Limits: the inbox holds at most {@link #INBOX_CAPACITY} tasks, after which producers do the
 * insertion themselves; a lock holder moves at most {@link #DRAIN_BATCH} tasks from the inbox
 * and at most {@link #READY_BATCH} due tasks out of the wheel before it lets go.
 */
final class WheelWorkQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {

    /*
     * Implementation notes
     *
     * [1] Ownership. The wheel, 'leader' and 'followersWaiting' are guarded by 'lock'. Any
     *     thread may hold it; the leader holds it only between parks, never while parked. Work
     *     is bounded between two looks at what is due: a worker drains at most DRAIN_BATCH inbox
     *     tasks, then takes what is due, and while the inbox stays non-empty it goes on in that
     *     rhythm instead of waiting (only its last drain before parking can add a second batch),
     *     so no flood of producers keeps due tasks waiting for more than two batches. Producers
     *     drain at most a batch, views at most the inbox's capacity.
     * [2] Producers do not take the lock. schedule and cancel push the task into 'inbox', a
     *     bounded lock-free multi-producer queue (JCTools), and every lock holder drains a batch
     *     of it into the wheel: a NEW task not in the wheel is inserted, a cancelled task in the
     *     wheel is unlinked. A producer that sees the inbox hold DRAIN_BATCH or more (it looks on
     *     a random 1 in DRAIN_CHECK_ODDS calls) wakes the parked leader to drain it, so that the
     *     wheel's work runs on an idle worker's core; if no leader is parked, or the inbox has
     *     grown past DRAIN_BACKLOG because the woken leader gets no CPU, the producer drains a
     *     batch itself if tryLock succeeds. Cancelled tasks are thus released within a batch or
     *     so even while the leader would otherwise sleep for a long time.
     * [3] Leader/followers (Schmidt et al.; DelayedWorkQueue's 'leader'). One waiting worker is
     *     the leader: it parks (LockSupport, without the lock) until the wheel's next event.
     *     The others wait untimed on 'followers'. A worker that leaves the lock while no one
     *     leads signals a follower, which becomes the next leader, so while any worker waits
     *     there is a leader to wake. A worker that finds a due task takes it whether or not it
     *     leads.
     * [4] Waking the leader. Before parking, the leader publishes 'parkedLeader' and then
     *     'parkedUntil' (volatile), and then drains the inbox once more. A producer pushes to
     *     the inbox (a volatile write of its producer index) and then reads 'parkedUntil'. Both
     *     are volatile accesses in opposite order (Dekker), so a task pushed before the leader's
     *     publication is seen by that last drain, and a producer that pushes after it sees the
     *     deadline and unparks the leader if its task is earlier. So the leader parks unless the
     *     last drain brought a task due before 'parkedUntil', or left the inbox non-empty (then
     *     it plans again): a steady stream of later tasks does not keep it awake. Only such a
     *     producer wakes anyone; a stale read can at most unpark a thread that has moved on,
     *     which every LockSupport user tolerates as a spurious wake-up.
     * [5] Batched hand-off. A lock holder that finds tasks due moves up to READY_BATCH of them
     *     out of the wheel at once, in deadline-then-sequence order: it keeps the first and
     *     publishes the rest as 'ready', a ReadyBatch that any worker claims from with one
     *     getAndAdd and no lock. A worker asks 'ready' first, before the lock, so that while due
     *     tasks last it goes from one to the next without parking and without the lock; the
     *     lock holder then signals as many waiting followers as there are ready tasks (and one
     *     more to lead if no one does), not one per task. 'ready' is written only under the lock
     *     and only replaced once exhausted; ReadyBatch explains why a slow claimer of an old
     *     batch is safe. The cost: a task that becomes due while a batch is out (a fixed-rate
     *     run that is already late) starts after that batch, so order is exact across at most
     *     READY_BATCH tasks.
     * [6] A task cancelled while it still waits in the inbox is not pushed again: the producer
     *     marks it (WheelTask.markInInbox) before the push, the drain clears the mark with a
     *     volatile write before it reads the task's state, and a cancel reads the mark after
     *     its CAS on the state (Dekker again). Either the cancel sees the mark and the drain
     *     sees the task cancelled, or the cancel sees it cleared and pushes the task again; a
     *     task pushed twice is harmless, since a drain only brings the wheel in line with the
     *     task's state. Schedule-then-cancel, the common case of network timeouts, thus costs
     *     one push and one cheap drain, and never touches the wheel when the cancel comes first.
     * [7] Backpressure. The inbox is bounded at INBOX_CAPACITY. A producer whose push fails
     *     drains a batch itself under the lock (the JDK's producers always insert under theirs)
     *     and pushes again; if another thread holds the lock, that thread is draining, so the
     *     producer yields and tries again. The inbox, and the memory it holds, stay bounded
     *     under any flood, and each producer's tasks still enter the wheel in the order it
     *     pushed them, which keeps FIFO among equal deadlines.
     */

    /** The most inbox tasks one lock hold moves into the wheel ([1], [2]). */
    static final int DRAIN_BATCH = 1024;
    /** Inbox size beyond which a producer drains a batch itself even when a leader could ([2]). */
    static final int DRAIN_BACKLOG = 8 * DRAIN_BATCH;
    /** The most tasks the inbox holds; past it producers drain it themselves ([7]). */
    static final int INBOX_CAPACITY = 64 * DRAIN_BATCH;
    /** The most due tasks one lock hold moves out of the wheel for the workers ([5]). */
    static final int READY_BATCH = 64;
    /** A producer checks the inbox's size on about one call in this many (a power of two). */
    private static final int DRAIN_CHECK_ODDS = 32;
    private static final int INBOX_CHUNK = 1024;
    private static final long NOT_PARKED = Long.MIN_VALUE;

    private final TimeSource clock;
    /** Guarded by lock ([1]). */
    private final TimingWheel<WheelTask> wheel;
    /** Tasks to insert or unlink, from any thread to the lock holder ([2], [7]). */
    private final Queue<WheelTask> inbox = new MpscChunkedAtomicArrayQueue<>(INBOX_CHUNK, INBOX_CAPACITY);
    /** Whether producers insert under the lock themselves instead of through the inbox. */
    private final boolean lockedSubmission;

    private final ReentrantLock lock = new ReentrantLock();
    /** Followers wait here, untimed, until the leader leaves or ready tasks appear ([3], [5]). */
    private final Condition followers = lock.newCondition();
    /** The worker that leads, or null. Guarded by lock. */
    private Thread leader;
    /** Workers waiting on 'followers'. Guarded by lock. */
    private int followersWaiting;
    /** Due tasks handed out for workers to claim ([5]); replaced under the lock, read by anyone. */
    private volatile ReadyBatch ready = ReadyBatch.EMPTY;
    /** Where a lock holder gathers due tasks before publishing them; guarded by lock. */
    private final WheelTask[] gathered = new WheelTask[READY_BATCH];
    /** The leader while it parks, else null; written by it, read by producers ([4]). */
    private volatile Thread parkedLeader;
    /** Wheel time the parked leader wakes at; NOT_PARKED when none parks ([4]). */
    private volatile long parkedUntil = NOT_PARKED;
    /** Times a leader returned from a park; guarded by lock; for tests of idle behaviour. */
    private long leaderWakeUps;

    WheelWorkQueue(WheelShape shape, TimeSource clock, boolean lockedSubmission) {
        this.clock = clock;
        this.wheel = new TimingWheel<>(shape, clock.nanoTime());
        this.lockedSubmission = lockedSubmission;
    }

    // ---------------------------------------------------------------------------------------
    // Time: final fields only, any thread.

    long wheelNow() {
        return wheel.wheelTime(clock.nanoTime());
    }

    long deadlineAfter(long delayNanos) {
        return wheel.deadlineAfter(clock.nanoTime(), delayNanos);
    }

    // ---------------------------------------------------------------------------------------
    // Producers: any thread, no lock on the common path.

    /** Hands a NEW task to the wheel and wakes the leader if the task is its new first event. */
    void enqueue(WheelTask task) {
        submit(task, true);
        if (task.deadline() < parkedUntil) {
            LockSupport.unpark(parkedLeader);
        }
        maybeDrainBatch();
    }

    /** Unlinks a task that was just cancelled, at once or within a batch ([2], [6]). */
    void cancelled(WheelTask task) {
        if (task.inInbox()) {
            return; // the drain that takes it out of the inbox reads its new state ([6])
        }
        submit(task, false);
        maybeDrainBatch();
    }

    /**
     * Passes a task whose state changed to the wheel: through the inbox, or under the lock.
     *
     * @param mark whether to mark the task as in the inbox ([6]): for a task being queued, whose
     *     push no cancel can race with yet
     */
    private void submit(WheelTask task, boolean mark) {
        if (lockedSubmission) {
            lock.lock();
            try {
                drainInbox(DRAIN_BATCH);
                apply(task);
            } finally {
                lock.unlock();
            }
            return;
        }
        if (mark) {
            task.markInInbox();
        }
        while (!inbox.offer(task)) {
            relieveFullInbox(); // [7]
        }
    }

    /** A producer's turn at the insertion work when the inbox is full ([7]). */
    private void relieveFullInbox() {
        if (lock.tryLock()) {
            try {
                drainInbox(DRAIN_BATCH);
            } finally {
                lock.unlock();
            }
        } else {
            Thread.yield(); // the holder drains: let it run
        }
    }

    private void maybeDrainBatch() {
        // Looking at the inbox's size costs two volatile reads and a loop, so a producer looks
        // on one call in DRAIN_CHECK_ODDS, drawn from its own ThreadLocalRandom: no shared write,
        // and the inbox overshoots DRAIN_BATCH by about DRAIN_CHECK_ODDS tasks on average.
        if ((ThreadLocalRandom.current().nextInt() & (DRAIN_CHECK_ODDS - 1)) != 0) {
            return;
        }
        int backlog = inbox.size();
        if (backlog < DRAIN_BATCH) {
            return;
        }
        Thread idle = parkedLeader;
        if (idle != null && backlog < DRAIN_BACKLOG) {
            LockSupport.unpark(idle); // it drains on waking, then parks again ([2])
        } else if (lock.tryLock()) {
            try {
                drainInbox(DRAIN_BATCH);
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Moves at most {@code limit} tasks from the inbox into the wheel ([1]). Call only when
     * holding lock.
     *
     * @return true if it stopped at the limit, so the inbox may hold more
     */
    private boolean drainInbox(int limit) {
        for (int i = 0; i < limit; i++) {
            if (drainOne() == null) {
                return false;
            }
        }
        return true;
    }

    /**
     * Moves one task from the inbox into the wheel. Call only when holding lock.
     *
     * @return the task, or null if the inbox was empty
     */
    private WheelTask drainOne() {
        WheelTask task = inbox.poll();
        if (task != null) {
            task.clearInInbox(); // before apply reads the state ([6])
            apply(task);
        }
        return task;
    }

    /** Drains the inbox for the views: at most its capacity, however fast producers add ([1]). */
    private void drainInboxForView() {
        drainInbox(INBOX_CAPACITY);
    }

    /**
     * The last drain before the leader parks ([4]): at most a batch. Call only when holding lock.
     *
     * @return true if the leader must plan again instead of parking: the drain brought a task due
     *     before {@code until}, or stopped at its limit with more in the inbox
     */
    private boolean lastDrainBeforePark(long until) {
        for (int i = 0; i < DRAIN_BATCH; i++) {
            WheelTask task = drainOne();
            if (task == null) {
                return false;
            }
            if (task.isScheduled() && task.deadline() < until) {
                return true;
            }
        }
        return true;
    }

    /** Brings the wheel in line with the task's state. Call only when holding lock. */
    private void apply(WheelTask task) {
        boolean wanted = task.wantsWheel();
        if (wanted != task.isScheduled()) {
            if (wanted) {
                wheel.schedule(task, task.deadline());
            } else {
                wheel.cancel(task);
            }
        }
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
        WheelTask claimed = ready.claim();
        if (claimed != null) {
            return claimed.outer(); // no lock while ready tasks last ([5])
        }
        long giveUpAt = timed ? clock.nanoTime() + timeoutNanos : 0L;
        lock.lockInterruptibly();
        try {
            for (;;) {
                boolean inboxLeft = drainInbox(DRAIN_BATCH);
                long now = clock.nanoTime();
                WheelTask task = takeDue(now);
                if (task != null) {
                    return task.outer();
                }
                long waitNanos = timed ? giveUpAt - now : Long.MAX_VALUE;
                if (timed && waitNanos <= 0) {
                    return null;
                }
                if (inboxLeft) {
                    continue; // a flood: look at what is due between batches, do not wait ([1])
                }
                if (leader != null) {
                    follow(timed, waitNanos);
                } else {
                    lead(Math.min(waitNanos, wheel.nanosUntilNextEvent(now)), now);
                }
            }
        } finally {
            signalFollowers();
            lock.unlock();
        }
    }

    /**
     * Takes a due task: a ready one, or the first of a new batch out of the wheel ([5]). Call
     * only when holding lock, after draining the inbox.
     *
     * @return a due task for the caller, or null if none is due
     */
    private WheelTask takeDue(long now) {
        WheelTask task = ready.claim();
        return task != null ? task : handOutDue(now);
    }

    /**
     * Moves up to READY_BATCH due tasks out of the wheel, in order; the first is returned, the
     * rest become the ready batch ([5]). Call only when holding lock, with 'ready' exhausted.
     */
    private WheelTask handOutDue(long now) {
        int count = 0;
        WheelTask task;
        while (count < READY_BATCH && (task = wheel.poll(now)) != null) {
            task.handedOut();
            gathered[count++] = task;
        }
        if (count == 0) {
            return null;
        }
        WheelTask first = gathered[0];
        if (count > 1) {
            ready = ReadyBatch.of(Arrays.copyOfRange(gathered, 1, count), count - 1);
        }
        Arrays.fill(gathered, 0, count, null); // hold no task longer than the batch does
        return first;
    }

    /**
     * Wakes as many waiting followers as there are ready tasks, and one to lead if no one does
     * ([3], [5]). Call only when holding lock.
     */
    private void signalFollowers() {
        int wanted = ready.remaining();
        if (leader == null) {
            wanted = Math.max(wanted, 1);
        }
        for (int i = Math.min(wanted, followersWaiting); i > 0; i--) {
            followers.signal();
        }
    }

    /** Waits as a follower. Call only when holding lock; it is released while waiting. */
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
     * Parks as the leader for at most {@code parkNanos} ({@link Long#MAX_VALUE}: until woken).
     * Call only when holding lock; the lock is released while parked and held again on return.
     */
    private void lead(long parkNanos, long now) throws InterruptedException {
        Thread me = Thread.currentThread();
        leader = me;
        try {
            parkedLeader = me;
            long until = parkNanos == Long.MAX_VALUE
                    ? Long.MAX_VALUE
                    : TimingWheel.addSaturated(wheel.wheelTime(now), parkNanos);
            parkedUntil = until;
            if (lastDrainBeforePark(until)) {
                return; // more in the inbox, or a task due sooner: plan again ([4])
            }
            lock.unlock();
            try {
                if (parkNanos == Long.MAX_VALUE) {
                    LockSupport.park(this);
                } else {
                    LockSupport.parkNanos(this, parkNanos);
                }
            } finally {
                lock.lock();
            }
            leaderWakeUps++;
        } finally {
            parkedUntil = NOT_PARKED;
            parkedLeader = null;
            leader = null;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    // ---------------------------------------------------------------------------------------
    // The rest of BlockingQueue: under the lock, after draining the inbox.

    @Override
    public Runnable poll() {
        WheelTask claimed = ready.claim();
        if (claimed != null) {
            return claimed.outer();
        }
        lock.lock();
        try {
            drainInbox(DRAIN_BATCH);
            WheelTask task = takeDue(clock.nanoTime());
            return task == null ? null : task.outer();
        } finally {
            signalFollowers();
            lock.unlock();
        }
    }

    @Override
    public Runnable peek() {
        lock.lock();
        try {
            drainInboxForView();
            WheelTask[] first = new WheelTask[1];
            forEachReady(task -> {
                if (first[0] == null) {
                    first[0] = task;
                }
            });
            WheelTask task = first[0] != null ? first[0] : wheel.peekEarliest();
            return task == null ? null : task.outer();
        } finally {
            lock.unlock();
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

    /** Removes a pending task; a due task already handed out in a batch cannot be removed ([5]). */
    @Override
    public boolean remove(Object o) {
        lock.lock();
        try {
            drainInboxForView();
            WheelTask task = find(o);
            return task != null && wheel.cancel(task);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean contains(Object o) {
        lock.lock();
        try {
            drainInboxForView();
            if (find(o) != null) {
                return true;
            }
            boolean[] found = new boolean[1];
            forEachReady(task -> found[0] |= task == o || task.outer() == o);
            return found[0];
        } finally {
            lock.unlock();
        }
    }

    /**
     * The task in the wheel that is, or is decorated as, {@code o}; not one handed out in a
     * batch. Call only when holding lock.
     */
    private WheelTask find(Object o) {
        if (o instanceof WheelTask task && task.belongsTo(this)) {
            return task.isScheduled() ? task : null;
        }
        if (!(o instanceof RunnableScheduledFuture<?>)) {
            return null;
        }
        WheelTask[] found = new WheelTask[1];
        wheel.forEach(task -> {
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
        lock.lock();
        try {
            drainInboxForView();
            int[] readyTasks = new int[1];
            forEachReady(task -> readyTasks[0]++);
            return (int) Math.min(Integer.MAX_VALUE, wheel.size() + readyTasks[0]);
        } finally {
            lock.unlock();
        }
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
        lock.lock();
        try {
            drainInboxForView();
            ready.claimAll(READY_BATCH, task -> { });
            wheel.drain(task -> { });
        } finally {
            lock.unlock();
        }
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
        lock.lock();
        try {
            drainInboxForView();
            List<Runnable> tasks = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, wheel.size() + READY_BATCH));
            forEachReady(task -> tasks.add(task.outer()));
            wheel.forEach(task -> tasks.add(task.outer()));
            return tasks;
        } finally {
            lock.unlock();
        }
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
        lock.lock();
        try {
            drainInboxForView();
            int[] claimed = new int[1];
            ready.claimAll(maxElements, task -> {
                if (task.wantsWheel()) { // a task cancelled since its hand-off has left the queue
                    sink.add(task.outer());
                    claimed[0]++;
                }
            });
            int moved = claimed[0];
            long now = clock.nanoTime();
            WheelTask task;
            while (moved < maxElements && (task = wheel.poll(now)) != null) {
                task.handedOut();
                sink.add(task.outer());
                moved++;
            }
            return moved;
        } finally {
            lock.unlock();
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
     * would be from the wheel ([5]). Call only when holding lock.
     */
    private void forEachReady(Consumer<WheelTask> action) {
        ready.forEachRemaining(task -> {
            if (task.wantsWheel()) {
                action.accept(task);
            }
        });
    }

    /** Tasks in the inbox now, at most INBOX_CAPACITY ([7]); for tests of the bound. */
    int inboxSize() {
        return inbox.size();
    }

    /** Whether a leader is parked (or about to park); for tests of who drains the inbox. */
    boolean leaderParked() {
        return parkedLeader != null;
    }

    /** Times a leader woke from a park; for tests that check an idle executor stays quiet. */
    long leaderWakeUps() {
        lock.lock();
        try {
            return leaderWakeUps;
        } finally {
            lock.unlock();
        }
    }
}
