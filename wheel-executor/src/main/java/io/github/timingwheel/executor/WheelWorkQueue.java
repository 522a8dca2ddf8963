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
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * The work queue of a {@link WheelScheduledExecutor}: a timing wheel offered as a
 * {@code BlockingQueue<Runnable>} whose {@code take} and {@code poll} run the leader/follower
 * protocol, as the JDK's {@code DelayedWorkQueue} does over its heap.
 *
 * <p>Elements are the executor's tasks (or what {@code decorateTask} made of them). Views
 * ({@link #iterator()}, {@link #toArray()}) are snapshots in no particular order;
 * {@link #drainTo} moves only tasks that are due, as {@code DelayedWorkQueue}'s does.
 */
final class WheelWorkQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {

    /*
     * Implementation notes
     *
     * [1] Ownership. The wheel and 'leader' are guarded by 'lock'. Any thread may hold it; the
     *     leader holds it only between parks, never while parked, so the lock is nearly always
     *     free for the short critical sections of workers, views and batch drains.
     * [2] Producers do not take the lock. schedule and cancel push the task into 'inbox', a
     *     lock-free multi-producer queue (JCTools). Every lock holder first drains the inbox
     *     into the wheel: a NEW task not in the wheel is inserted, a cancelled task in the wheel
     *     is unlinked. A producer that sees the inbox hold DRAIN_BATCH or more tasks (it looks
     *     on a random 1 in DRAIN_CHECK_ODDS calls) wakes the parked leader to drain it, so that
     *     the wheel's work runs on an idle worker's core rather than on the producer's; if no
     *     leader is parked, or the inbox has grown past DRAIN_BACKLOG because the woken leader
     *     gets no CPU, the producer drains it itself if tryLock succeeds. Cancelled tasks are
     *     thus released within a batch of about DRAIN_BATCH even while the leader would
     *     otherwise sleep for a long time.
     * [3] Leader/followers (Schmidt et al.; DelayedWorkQueue's 'leader'). One waiting worker is
     *     the leader: it parks (LockSupport, without the lock) until the wheel's next event.
     *     The others wait untimed on 'followers'. A worker that leaves take() while no one
     *     leads signals one follower, which becomes the next leader, so while any worker waits
     *     there is a leader to wake. A worker that finds a due task takes it whether or not it
     *     leads.
     * [4] Waking the leader. Before parking, the leader publishes 'parkedLeader' and then
     *     'parkedUntil' (volatile), and then drains the inbox once more. A producer pushes to
     *     the inbox (a volatile write of its producer index) and then reads 'parkedUntil'. Both
     *     are volatile accesses in opposite order (Dekker), so a task pushed before the leader's
     *     publication is seen by that last drain, and a producer that pushes after it sees the
     *     deadline and unparks the leader if its task is earlier. So the leader parks unless the
     *     last drain brought a task due before 'parkedUntil' (then it plans again): a steady
     *     stream of later tasks does not keep it awake. Only such a producer wakes anyone; a
     *     stale read can at most unpark a thread that has moved on, which every LockSupport
     *     user tolerates as a spurious wake-up.
     */

    /** Inbox size at which a producer has it drained: by the parked leader, or itself ([2]). */
    static final int DRAIN_BATCH = 1024;
    /** Inbox size beyond which a producer drains it itself even when a leader could ([2]). */
    static final int DRAIN_BACKLOG = 8 * DRAIN_BATCH;
    /** A producer checks the inbox's size on about one call in this many (a power of two). */
    private static final int DRAIN_CHECK_ODDS = 32;
    private static final int INBOX_CHUNK = 1024;
    private static final long NOT_PARKED = Long.MIN_VALUE;

    private final TimeSource clock;
    /** Guarded by lock ([1]). */
    private final TimingWheel<WheelTask> wheel;
    /** Tasks to insert or unlink, from any thread to the lock holder ([2]). */
    private final Queue<WheelTask> inbox = new MpscUnboundedAtomicArrayQueue<>(INBOX_CHUNK);
    /** Whether producers insert under the lock themselves instead of through the inbox. */
    private final boolean lockedSubmission;

    private final ReentrantLock lock = new ReentrantLock();
    /** Followers wait here, untimed, until the leader leaves ([3]). */
    private final Condition followers = lock.newCondition();
    /** The worker that leads, or null. Guarded by lock. */
    private Thread leader;
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
        submit(task);
        if (task.deadline() < parkedUntil) {
            LockSupport.unpark(parkedLeader);
        }
        maybeDrainBatch();
    }

    /** Unlinks a task that was just cancelled, at once or within a batch ([2]). */
    void cancelled(WheelTask task) {
        submit(task);
        maybeDrainBatch();
    }

    /** Passes a task whose state changed to the wheel: through the inbox, or under the lock. */
    private void submit(WheelTask task) {
        if (!lockedSubmission) {
            inbox.offer(task);
            return;
        }
        lock.lock();
        try {
            drainInbox();
            apply(task);
        } finally {
            lock.unlock();
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
                drainInbox();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Call only when holding lock. */
    private void drainInbox() {
        WheelTask task;
        while ((task = inbox.poll()) != null) {
            apply(task);
        }
    }

    /**
     * Drains the inbox; call only when holding lock.
     *
     * @return whether a task it put into the wheel is due before {@code until}
     */
    private boolean drainInboxFindingEarlier(long until) {
        boolean earlier = false;
        WheelTask task;
        while ((task = inbox.poll()) != null) {
            apply(task);
            earlier |= task.isScheduled() && task.deadline() < until;
        }
        return earlier;
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
    // Consumers: the leader/follower protocol ([3]).

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
        long giveUpAt = timed ? clock.nanoTime() + timeoutNanos : 0L;
        lock.lockInterruptibly();
        try {
            for (;;) {
                drainInbox();
                long now = clock.nanoTime();
                WheelTask task = wheel.poll(now);
                if (task != null) {
                    return handOut(task);
                }
                long waitNanos = timed ? giveUpAt - now : Long.MAX_VALUE;
                if (timed && waitNanos <= 0) {
                    return null;
                }
                if (leader != null) {
                    if (timed) {
                        followers.awaitNanos(waitNanos);
                    } else {
                        followers.await();
                    }
                } else {
                    lead(Math.min(waitNanos, wheel.nanosUntilNextEvent(now)), now);
                }
            }
        } finally {
            if (leader == null) {
                followers.signal(); // promote a follower, so that someone leads ([3])
            }
            lock.unlock();
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
            if (drainInboxFindingEarlier(until)) {
                return; // a task pushed before our parkedUntil is due sooner: plan again ([4])
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

    /** A due task leaves the wheel for a worker or a sink. Call only when holding lock. */
    private static Runnable handOut(WheelTask task) {
        task.handedOut();
        return task.outer();
    }

    // ---------------------------------------------------------------------------------------
    // The rest of BlockingQueue: under the lock, after draining the inbox.

    @Override
    public Runnable poll() {
        lock.lock();
        try {
            drainInbox();
            WheelTask task = wheel.poll(clock.nanoTime());
            return task == null ? null : handOut(task);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Runnable peek() {
        lock.lock();
        try {
            drainInbox();
            WheelTask task = wheel.peekEarliest();
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

    @Override
    public boolean remove(Object o) {
        lock.lock();
        try {
            drainInbox();
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
            drainInbox();
            return find(o) != null;
        } finally {
            lock.unlock();
        }
    }

    /** The pending task that is, or is decorated as, {@code o}. Call only when holding lock. */
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
            drainInbox();
            return (int) Math.min(Integer.MAX_VALUE, wheel.size());
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
            drainInbox();
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
            drainInbox();
            List<Runnable> tasks = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, wheel.size()));
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
            drainInbox();
            int moved = 0;
            long now = clock.nanoTime();
            WheelTask task;
            while (moved < maxElements && (task = wheel.poll(now)) != null) {
                sink.add(handOut(task));
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
