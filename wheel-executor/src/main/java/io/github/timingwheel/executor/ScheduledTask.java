package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * A one-shot task of a {@link WheelScheduledExecutor}: the wheel node, the future and the task
 * body in one object, with no {@code FutureTask} or adapter behind it.
 *
 * <p>Its future behaves as {@link java.util.concurrent.FutureTask}'s does: {@code cancel}
 * succeeds only while the task is {@code NEW} (which includes while it runs), {@code isDone}
 * is true once it has completed in any way, and {@code get} reports the outcome.
 *
 * @param <V> the result type
 */
class ScheduledTask<V> extends WheelTask implements RunnableScheduledFuture<V> {

    /*
     * Implementation notes
     *
     * [1] The state machine is FutureTask's (JDK 8+): NEW -> COMPLETING -> NORMAL | EXCEPTIONAL,
     *     NEW -> CANCELLED, NEW -> INTERRUPTING -> INTERRUPTED. Only a CAS from NEW leaves NEW,
     *     so exactly one of "completed" and "cancelled" wins.
     * [2] 'payload' holds the body (Runnable or Callable) while NEW and the outcome once
     *     NORMAL or EXCEPTIONAL: one field instead of two keeps a task at 64 bytes. The write of
     *     the outcome happens before the release store of the final state; readers read the
     *     state first (volatile), then the payload.
     * [3] Wheel fields (TimerNode) are touched only by the holder of the shard's lock, or by
     *     the producer that makes the task (WheelWorkQueue.place) and publishes it through the
     *     shard's lock or inbox (whose release/acquire orders those writes). 'deadline' is also
     *     read racily by getDelay and compareTo, as ScheduledThreadPoolExecutor reads its 'time'
     *     field: a stale read gives the previous period's deadline, never a torn value on a
     *     64-bit JVM.
     * [4] Metrics (TaskCounters): a run is counted on the thread that ran it, and its outcome
     *     (completed, failed) in the window between the CAS to COMPLETING and the release store
     *     of the final state, so whoever sees the future done also sees the counts. A cancel is
     *     counted once its CAS won, before its waiters are woken: in the task's shard when the
     *     cancelling thread unlinks it there in place (TaskCounters [7]), else in its cell.
     * [5] The inbox mark (WheelTask [1]) lives in 'runner', so that the task stays at 64
     *     bytes: IN_INBOX while the task waits in the inbox, where it cannot be running (a new
     *     task has never run; a periodic task is re-queued after its run released 'runner').
     *     A run's claim (CAS from null) cannot succeed while the mark is set: a caller that
     *     runs the future itself in the instant between its submission and the drain finds
     *     nothing to run, and the task runs at its deadline instead.
     * [6] Frames. A body runs two frames below the worker's runWorker (run, runBody), as a
     *     Callable does in ScheduledThreadPoolExecutor (a Runnable there runs three below). It
     *     matters to bodies that build an exception, as timeouts do: filling in a stack trace
     *     costs per frame, so no helper or hook wrapper sits between runBody and the body.
     * [7] Cancelled and still held. With the remove-on-cancel policy off (the JDK's default),
     *     a cancelled task stays in the queue until its deadline, as in the JDK's executor: it
     *     has ended (counted in 'cancelled', not in 'pending') but the queue holds it and its
     *     memory. The cancel's CAS sets HELD beside the cancelled state, in the same word, so
     *     that exactly one party later clears it (leftQueue, a CAS) and counts the task as
     *     gone: the worker that takes it from the queue (runBody's early return, or the run it
     *     interrupted, at its end), a refusal of its body, a check that cancels it before a run,
     *     or the executor when it takes it out of the queue (remove, purge, shutdown,
     *     shutdownNow). A cancel of a task the executor took back itself (cancelUnqueued), and
     *     of a re-armable task (released at once: heldAfterCancel), never sets it. The count of
     *     held tasks is added before the CAS that sets HELD, so it is never below the count of
     *     those that left.
     */

    private static final int NEW = 0;
    private static final int COMPLETING = 1;
    private static final int NORMAL = 2;
    private static final int EXCEPTIONAL = 3;
    private static final int CANCELLED = 4;
    private static final int INTERRUPTING = 5;
    private static final int INTERRUPTED = 6;
    /** Beside CANCELLED or INTERRUPTED: cancelled, and still held by the queue ([7]). */
    private static final int HELD = 8;

    /** See [1]; written by CAS (run, cancel), read by anyone. */
    private volatile int state;
    /** See [2]. */
    private Object payload;
    /**
     * The thread running the body; CAS from null claims the run, so a task never runs twice at
     * once. IN_INBOX while the task waits in the queue's inbox ([5]).
     */
    private volatile Thread runner;
    /** Threads blocked in get(), a Treiber stack; swapped to null and released on completion. */
    private volatile Waiter waiters;

    final WheelScheduledExecutor owner;
    /** What the queue hands to workers and what views show: a decorated task, or null for this. */
    RunnableScheduledFuture<V> decorated;

    /** A task to place with {@link WheelWorkQueue#place} before it is queued. */
    ScheduledTask(WheelScheduledExecutor owner, Object body) {
        this.owner = owner;
        this.payload = body;
    }

    /** The runnable a worker runs and that the queue shows: the decorated task if any. */
    @Override
    final RunnableScheduledFuture<?> outer() {
        RunnableScheduledFuture<V> d = decorated;
        return d != null ? d : this;
    }

    /** Pending, or cancelled and held ([7]: the policy was off; kept until due, as the JDK does). */
    @Override
    final boolean wantsWheel() {
        int s = state;
        return s == NEW || (s & HELD) != 0;
    }

    @Override
    final boolean belongsTo(WheelWorkQueue queue) {
        return owner.queue() == queue;
    }

    @Override
    final void markInInbox() {
        RUNNER.setRelease(this, IN_INBOX); // WheelTask [1]: published by the push that follows
    }

    @Override
    final void clearInInbox() {
        RUNNER.compareAndSet(this, IN_INBOX, null); // WheelTask [1]: a full fence before the state is read
    }

    @Override
    final boolean inInbox() {
        return runner == IN_INBOX;
    }

    // ---------------------------------------------------------------------------------------
    // RunnableScheduledFuture

    @Override
    public boolean isPeriodic() {
        return false;
    }

    @Override
    public long getDelay(TimeUnit unit) {
        return unit.convert(deadline() - owner.wheelNow(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
        if (other == this) {
            return 0;
        }
        if (other instanceof ScheduledTask<?> that) {
            long diff = deadline() - that.deadline(); // wheel times are never negative: no overflow
            if (diff != 0) {
                return diff < 0 ? -1 : 1;
            }
            return sequence() < that.sequence() ? -1 : 1; // FIFO among equal deadlines
        }
        long diff = getDelay(TimeUnit.NANOSECONDS) - other.getDelay(TimeUnit.NANOSECONDS);
        return diff < 0 ? -1 : diff > 0 ? 1 : 0;
    }

    /**
     * Runs the task unless the executor's state forbids it (then it is cancelled): here, or on
     * the task executor if one was configured.
     */
    @Override
    public void run() {
        if (mayRunElseCancel()) {
            if (owner.runsBodiesOnWorkers()) {
                runBody(); // [6]
            } else {
                owner.runBodyElsewhere(this);
            }
        }
    }

    /**
     * The check before every run, as {@code ScheduledThreadPoolExecutor}'s task makes it: after
     * a shutdown, the executor's policies may forbid this run (or {@code shutdownNow} stopped
     * everything); then the task is cancelled instead. Task groups call it too, when their turn
     * to run a task comes.
     *
     * @return true if the caller should run the task now; false if the executor's state forbids
     *     the run, and the task is then cancelled (unless it had completed already)
     */
    final boolean mayRunElseCancel() {
        if (owner.canRunInCurrentRunState(this)) {
            return true;
        }
        cancel(false);
        leftQueue(); // [7]: the caller took it from the queue and drops it
        return false;
    }

    /**
     * Runs the body once on the calling thread, between the owner's run hooks ([4]), and
     * records the outcome; a failure completes the task exceptionally, after the end hook, so
     * whoever sees the outcome sees the run counted. A periodic task records no result: after a
     * normal run that left it NEW, it goes on ({@link #runAgain}). The body is called here, not
     * in a helper, so that it runs as few frames below the worker as the JDK's tasks do ([6]).
     */
    @SuppressWarnings("unchecked")
    void runBody() {
        if (state != NEW || !RUNNER.compareAndSet(this, null, Thread.currentThread())) {
            leftQueue(); // [7]: a cancelled task the worker took from the queue
            return;
        }
        boolean again = false;
        try {
            Object body = payload;
            if (body != null && state == NEW) {
                long[] cell = owner.counters().runCell(); // one look-up for the run's counts
                long startedAt = owner.runStarted(this, body, cell);
                Object result = null;
                Throwable failure = null;
                try {
                    if (body instanceof Runnable runnable) {
                        runnable.run();
                    } else {
                        result = ((Callable<V>) body).call();
                    }
                } catch (Throwable thrown) {
                    failure = thrown;
                }
                owner.runEnded(this, body, startedAt, failure != null, cell);
                if (failure != null) {
                    setException(failure, false);
                } else if (isPeriodic()) {
                    again = true;
                } else {
                    set((V) result, cell);
                }
            }
        } finally {
            finishRun();
        }
        if (again && state == NEW) {
            runAgain();
        }
    }

    /**
     * Called after a periodic run that completed normally and left the task NEW, on the thread
     * that ran it; a one-shot task never gets here.
     */
    void runAgain() {
        throw new AssertionError("a one-shot task runs once");
    }

    /**
     * The body (Runnable or Callable) while the task is pending, else null; only to name its
     * class in events, so a racy read that sees the outcome instead costs only a wrong name.
     */
    final Object body() {
        return state == NEW ? payload : null;
    }

    private void finishRun() {
        // runner must stay non-null until the state is settled, so that no second run starts.
        runner = null;
        int s = state;
        if (s >= INTERRUPTING) {
            awaitCancelInterrupt(s);
        }
        leftQueue(); // [7]: cancelled while it ran, it was not in the queue
    }

    /** Waits out a cancel(true) in progress, so that its interrupt hits this run, not the next task. */
    private void awaitCancelInterrupt(int s) {
        if (s == INTERRUPTING) {
            while (state == INTERRUPTING) {
                Thread.yield();
            }
        }
    }

    /** @param cell the running thread's counter cell ({@link TaskCounters#runCell}) */
    private void set(V result, long[] cell) {
        if (STATE.compareAndSet(this, NEW, COMPLETING)) {
            payload = result;
            owner.counters().completed(cell); // [4]
            STATE.setRelease(this, NORMAL);
            finishCompletion();
        }
    }

    /**
     * Completes the task with {@code rejection}, the task executor's refusal of its body, unless
     * it has completed already.
     */
    final void refuse(Throwable rejection) {
        setException(rejection, true);
        leftQueue(); // [7]: cancelled after the hand-off, its body never runs
    }

    /** @param refused whether the body never ran because the task executor refused it */
    private void setException(Throwable failure, boolean refused) {
        if (STATE.compareAndSet(this, NEW, COMPLETING)) {
            payload = failure;
            if (refused) { // [4]
                owner.counters().refusedRun();
            } else {
                owner.counters().failed();
            }
            STATE.setRelease(this, EXCEPTIONAL);
            finishCompletion();
        }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean held = heldAfterCancel() && !owner.getRemoveOnCancelPolicy() && !owner.isStopping();
        return cancel(mayInterruptIfRunning, held);
    }

    /**
     * Cancels a task that the queue does not hold (the executor took it back, or never queued
     * it), so that it is not counted as held ([7]).
     */
    boolean cancelUnqueued() {
        return cancel(false, false);
    }

    /** @param held whether the queue keeps the cancelled task until its deadline ([7]) */
    private boolean cancel(boolean mayInterruptIfRunning, boolean held) {
        if (state != NEW) {
            return false;
        }
        int cancelled = held ? CANCELLED | HELD : CANCELLED;
        if (held) {
            owner.counters().heldAfterCancel(1); // before the CAS ([7])
        }
        if (!STATE.compareAndSet(this, NEW, mayInterruptIfRunning ? INTERRUPTING : cancelled)) {
            if (held) {
                owner.counters().heldAfterCancel(-1);
            }
            return false;
        }
        payload = null; // release the body at once; a run that reads null afterwards does nothing
        if (mayInterruptIfRunning) {
            try {
                Thread t = runner;
                if (t != null && t != IN_INBOX) {
                    t.interrupt();
                }
            } finally {
                STATE.setRelease(this, held ? INTERRUPTED | HELD : INTERRUPTED);
            }
        }
        if (owner.getRemoveOnCancelPolicy() || !heldAfterCancel()) {
            owner.releaseCancelled(this); // unlinks it and counts the cancel, in its shard if in place ([4])
        } else {
            owner.counters().cancelled(); // [4]
        }
        finishCompletion();
        return true;
    }

    /**
     * Whether a cancel may leave this task in the queue until its deadline when the
     * remove-on-cancel policy is off ([7]); a re-armable task is released at once instead.
     */
    boolean heldAfterCancel() {
        return true;
    }

    /**
     * Counts a cancelled task that the queue held as gone, once, if it was held ([7]): called
     * by whoever takes it out of the queue.
     */
    final void leftQueue() {
        for (;;) {
            int s = state;
            if ((s & HELD) == 0) {
                return;
            }
            if (STATE.compareAndSet(this, s, s & ~HELD)) {
                owner.counters().heldLeft();
                return;
            }
        }
    }

    @Override
    public boolean isCancelled() {
        return state >= CANCELLED;
    }

    @Override
    public boolean isDone() {
        return state != NEW;
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
        int s = state;
        if (s <= COMPLETING) {
            s = awaitDone(false, 0L);
        }
        return report(s);
    }

    @Override
    public V get(long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (unit == null) {
            throw new NullPointerException("unit");
        }
        int s = state;
        if (s <= COMPLETING && (s = awaitDone(true, unit.toNanos(timeout))) <= COMPLETING) {
            throw new TimeoutException();
        }
        return report(s);
    }

    @SuppressWarnings("unchecked")
    private V report(int s) throws ExecutionException {
        Object outcome = payload;
        if (s == NORMAL) {
            return (V) outcome;
        }
        if (s >= CANCELLED) {
            throw new CancellationException();
        }
        throw new ExecutionException((Throwable) outcome);
    }

    /**
     * Called once, by the thread that completed or cancelled the task, after its final state is
     * set: grouped tasks leave their group here. Nothing by default.
     */
    void completed() {
    }

    // ---------------------------------------------------------------------------------------
    // Waiting: a Treiber stack of parked threads, released once on completion.

    private static final class Waiter {
        volatile Thread thread = Thread.currentThread();
        volatile Waiter next;
    }

    /** Runs once per task, when it completes in any way (normal, failed or cancelled). */
    private void finishCompletion() {
        completed();
        owner.taskFinished();
        for (Waiter q; (q = waiters) != null; ) {
            if (WAITERS.weakCompareAndSet(this, q, null)) {
                for (; q != null; q = q.next) {
                    Thread t = q.thread;
                    if (t != null) {
                        q.thread = null;
                        LockSupport.unpark(t);
                    }
                }
                break;
            }
        }
    }

    private int awaitDone(boolean timed, long nanos) throws InterruptedException {
        long startTime = 0L;
        Waiter q = null;
        boolean queued = false;
        for (;;) {
            int s = state;
            if (s > COMPLETING) {
                if (q != null) {
                    q.thread = null;
                }
                return s;
            } else if (s == COMPLETING) {
                Thread.yield(); // the outcome is a few instructions away
            } else if (Thread.interrupted()) {
                removeWaiter(q);
                throw new InterruptedException();
            } else if (q == null) {
                if (timed && nanos <= 0L) {
                    return s;
                }
                q = new Waiter();
            } else if (!queued) {
                Waiter head = waiters;
                q.next = head;
                queued = WAITERS.weakCompareAndSet(this, head, q);
            } else if (timed) {
                long parkNanos;
                if (startTime == 0L) {
                    startTime = System.nanoTime();
                    if (startTime == 0L) {
                        startTime = 1L;
                    }
                    parkNanos = nanos;
                } else {
                    long elapsed = System.nanoTime() - startTime;
                    if (elapsed >= nanos) {
                        removeWaiter(q);
                        return state;
                    }
                    parkNanos = nanos - elapsed;
                }
                if (state < COMPLETING) {
                    LockSupport.parkNanos(this, parkNanos);
                }
            } else {
                LockSupport.park(this);
            }
        }
    }

    /** The waiters in the list now, those whose thread has left included; for tests. */
    int waiterCount() {
        int count = 0;
        for (Waiter q = waiters; q != null; q = q.next) {
            count++;
        }
        return count;
    }

    /** Unlinks waiters whose thread has left (timed out or interrupted), so none accumulate. */
    private void removeWaiter(Waiter node) {
        if (node == null) {
            return;
        }
        node.thread = null;
        retry:
        for (;;) {
            for (Waiter pred = null, q = waiters, next; q != null; q = next) {
                next = q.next;
                if (q.thread != null) {
                    pred = q;
                } else if (pred != null) {
                    pred.next = next;
                    if (pred.thread == null) {
                        continue retry; // pred left too: start over
                    }
                } else if (!WAITERS.compareAndSet(this, q, next)) {
                    continue retry;
                }
            }
            break;
        }
    }

    @Override
    public String toString() {
        String status;
        switch (state) {
            case NORMAL -> status = "[Completed normally]";
            case EXCEPTIONAL -> status = "[Completed exceptionally: " + payload + "]";
            case CANCELLED, INTERRUPTING, INTERRUPTED, CANCELLED | HELD, INTERRUPTED | HELD -> status = "[Cancelled]";
            default -> status = "[Not completed, delay " + getDelay(TimeUnit.NANOSECONDS) + " ns]";
        }
        return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + status;
    }

    private static final VarHandle STATE;
    private static final VarHandle RUNNER;
    private static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(ScheduledTask.class, "state", int.class);
            RUNNER = lookup.findVarHandle(ScheduledTask.class, "runner", Thread.class);
            WAITERS = lookup.findVarHandle(ScheduledTask.class, "waiters", Waiter.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
