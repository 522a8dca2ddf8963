package io.github.timingwheel.executor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A group of tasks on a {@link WheelScheduledExecutor}'s workers and wheel, which tracks its own
 * pending tasks and cancels them all in one call: the timers of one connection, or the worker a
 * reactive library gives each subscriber. Made by {@link WheelScheduledExecutor#newGroup()} and
 * {@link WheelScheduledExecutor#newSerialGroup()}.
 *
 * <pre>{@code
 * TaskGroup timers = executor.newGroup();                 // one per connection
 * timers.schedule(this::readTimedOut, 30, SECONDS);
 * timers.scheduleWithFixedDelay(this::sendKeepAlive, 15, 15, SECONDS);
 * ...
 * timers.cancelAll();                                     // connection closed: every pending timer cancelled
 * }</pre>
 *
 * <p>It schedules as {@link ScheduledExecutorService} does (one-shot {@code Runnable} and
 * {@code Callable}, fixed rate, fixed delay; {@code execute} and {@code submit} mean a zero
 * delay), with the executor's guarantees (never early; deadline-then-submission order) and its
 * futures ({@code decorateTask} of the executor applies). What it adds:
 * <ul>
 *   <li><b>Tracking at O(1), nothing retained.</b> Each task is linked into the group's own
 *       list when scheduled and unlinked when it completes, fails or is cancelled, by anyone:
 *       the task carries the links (a grouped one-shot task is 80 bytes against 64 ungrouped),
 *       so tracking allocates nothing. A periodic task stays tracked across its runs.
 *   <li><b>{@link #cancelAll()}</b> cancels every task the group still tracks
 *       ({@code cancel(false)}) and rejects new work with {@link RejectedExecutionException}.
 *       It returns at once: it does not wait for a body that was already running. It does not
 *       affect other groups or the executor. ({@link #close()} is
 *       {@code ExecutorService.close()}: it waits for the tasks instead, see Lifecycle.)
 *   <li><b>Serial groups</b> ({@link #isSerial()}): tasks of the group never run at the same
 *       time, and due tasks run in the order the wheel hands them out: earlier deadline first,
 *       equal deadlines in submission order, even with several workers. Each run
 *       happens-before the next. A slow task holds up only its own group; the group's other
 *       due tasks wait in its queue, not on a worker. A group with many due tasks runs at most
 *       a batch of them on one worker before passing the rest to another worker task, so it
 *       does not hold a worker for all of them.
 * </ul>
 *
 * <h2>Races, and what holds</h2>
 * <ul>
 *   <li>{@code cancelAll()} vs {@code schedule}: the schedule is either rejected
 *       ({@code RejectedExecutionException}) or accepted and then cancelled by cancelAll; a
 *       task is never left pending after {@code cancelAll()} returned. (A submission in flight
 *       is a few instructions long; cancelAll waits for it.)
 *   <li>{@code cancelAll()} vs a task becoming due: the task either ran (its future is done,
 *       and cancelAll did not cancel it) or is cancelled and never starts; never both, never
 *       neither. As with {@link Future#cancel(boolean) cancel(false)}, a run that had already
 *       begun when cancelAll cancelled it goes on to its end, and its body's first line may
 *       come just after cancelAll returned; {@link #awaitTermination} waits for such runs,
 *       {@link #shutdownNow()} interrupts them.
 *   <li>{@code cancelAll()} vs the task's own {@code cancel}: exactly one of them cancels it,
 *       and it leaves the group once.
 *   <li>A periodic task: no run starts after {@code cancelAll()} returned (one in progress may
 *       finish), and it is not rescheduled.
 *   <li>{@link #shutdownNow()} is {@code cancelAll()} with {@code cancel(true)}: it interrupts
 *       the runs in progress too.
 * </ul>
 *
 * <h2>Lifecycle</h2>
 * {@link #cancelAll()} and {@link #shutdownNow()} cancel everything and return at once;
 * {@link #shutdown()} is the orderly form of {@link ScheduledExecutorService}: new work is
 * rejected, periodic tasks are cancelled (the default policy of
 * {@code ScheduledThreadPoolExecutor}) and one-shot tasks still run; {@link #close()} is
 * {@code shutdown()} and then a wait until the group has terminated, as
 * {@code ExecutorService.close()} is on Java 19 and later: a one-shot task scheduled in a
 * {@code try (TaskGroup g = ...)} block runs, at its deadline, before the block ends. None of
 * them shuts the executor down. The executor's own {@code shutdown()} lets the
 * group's accepted tasks run as its shutdown policies say, whatever its
 * {@code RejectedExecutionHandler} does, and it does not terminate before they have run. The group has terminated when it is shut down or
 * closed, no task is tracked, and no run is in progress.
 *
 * <h2>Caveats</h2>
 * <ul>
 *   <li>{@code close()} waits, as {@code ExecutorService.close()} does: called from one of the
 *       group's own tasks it waits for itself, and never returns. From an I/O thread, or from a
 *       task of the group, end the group with {@link #cancelAll()} (or {@link #shutdown()}),
 *       which do not wait.
 *   <li>Shutting the executor down does not end its groups. A task the executor rejects then
 *       goes to the executor's {@code RejectedExecutionHandler}; one that a discarding handler
 *       drops silently stays tracked until the group cancels it ({@code cancelAll()},
 *       {@code shutdownNow()}, or a {@code close()} once the executor has terminated). The
 *       tasks that {@code shutdownNow()} of the executor returns stay tracked until they are
 *       cancelled (a {@code close()} of the group cancels them).
 *   <li>Calling {@code run()} on a serial group's future runs the group's due tasks, not that
 *       task ahead of its deadline.
 *   <li>{@code cancelAll()}, {@code shutdown()} and {@code close()} wait for submissions to
 *       the group that are in flight (a few instructions each), so a
 *       {@code RejectedExecutionHandler} must not end the group whose submission it is
 *       handling.
 * </ul>
 *
 * <p>Thread-safe: every method may be called from any thread, including the group's own tasks.
 */
public final class TaskGroup extends AbstractExecutorService implements ScheduledExecutorService,
        AutoCloseable {

    /** How often a close() that waits checks whether the executor has stopped. */
    private static final long EXECUTOR_CHECK_MILLIS = 100L;

    private final WheelScheduledExecutor executor;
    private final MemberTracker members = new MemberTracker();
    /** The run queue of a serial group; null for a plain one. */
    private final SerialRunQueue serial;

    TaskGroup(WheelScheduledExecutor executor, boolean serial) {
        this.executor = executor;
        this.serial = serial ? new SerialRunQueue(members, executor::offerContinuation) : null;
    }

    // ---------------------------------------------------------------------------------------
    // Scheduling.

    /** @throws RejectedExecutionException if the group is shut down or closed */
    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        GroupedTask<Void> task = executor.queue().place(new GroupedTask<>(executor, this, command),
                unit.toNanos(delay));
        return submit(task, task, executor.decorateTask(command, task));
    }

    /** @throws RejectedExecutionException if the group is shut down or closed */
    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        Objects.requireNonNull(callable, "callable");
        Objects.requireNonNull(unit, "unit");
        GroupedTask<V> task = executor.queue().place(new GroupedTask<>(executor, this, callable),
                unit.toNanos(delay));
        return submit(task, task, executor.decorateTask(callable, task));
    }

    /**
     * As {@link WheelScheduledExecutor#scheduleRearmable}, as a task of the group: closing the
     * group cancels it, and a serial group runs its action in its turn.
     *
     * @param command the action to run when the timeout passes without a touch
     * @param timeout the time without a touch after which it runs; negative means 0
     * @param unit the unit of {@code timeout}
     * @return the handle
     * @throws RejectedExecutionException if the group is shut down or closed
     * @throws NullPointerException if {@code command} or {@code unit} is null
     */
    public RearmableFuture<Void> scheduleRearmable(Runnable command, long timeout, TimeUnit unit) {
        return scheduleRearmable(command, timeout, 0L, unit);
    }

    /**
     * As {@link WheelScheduledExecutor#scheduleRearmable(Runnable, long, long, TimeUnit)}, with
     * a tolerance of its own, as a task of the group.
     *
     * @param command the action to run when the timeout passes without a touch
     * @param timeout the time without a touch after which it runs; negative means 0
     * @param tolerance how late it may start, in {@code unit}; not negative
     * @param unit the unit of {@code timeout} and {@code tolerance}
     * @return the handle
     * @throws RejectedExecutionException if the group is shut down or closed
     * @throws NullPointerException if {@code command} or {@code unit} is null
     * @throws IllegalArgumentException if {@code tolerance} is negative
     */
    public RearmableFuture<Void> scheduleRearmable(Runnable command, long timeout, long tolerance,
            TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        long timeoutNanos = Math.max(0L, unit.toNanos(timeout));
        GroupedRearmableTask task = executor.queue().place(new GroupedRearmableTask(executor, this, command,
                timeoutNanos, WheelWorkQueue.toleranceNanos(tolerance, unit)), timeoutNanos);
        submit(task, task, task);
        return task;
    }

    /**
     * @throws IllegalArgumentException if {@code period <= 0}
     * @throws RejectedExecutionException if the group is shut down or closed
     */
    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
            TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        if (period <= 0L) {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        return schedulePeriodic(command, unit.toNanos(initialDelay), unit.toNanos(period),
                executor.getMissedRunPolicy());
    }

    /**
     * @throws IllegalArgumentException if {@code delay <= 0}
     * @throws RejectedExecutionException if the group is shut down or closed
     */
    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
            TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        if (delay <= 0L) {
            throw new IllegalArgumentException("delay must be positive: " + delay);
        }
        return schedulePeriodic(command, unit.toNanos(initialDelay), unit.toNanos(delay), null);
    }

    /** @param policy the missed-run policy of a fixed-rate task; null for a fixed delay */
    private ScheduledFuture<?> schedulePeriodic(Runnable command, long initialDelayNanos, long periodNanos,
            MissedRunPolicy policy) {
        GroupedPeriodicTask task = executor.queue().place(
                new GroupedPeriodicTask(executor, this, command, periodNanos, policy), initialDelayNanos);
        return submit(task, task, executor.decorateTask(command, task));
    }

    /** Links the task, then hands it to the executor (MemberTracker, note [3]). */
    private <V> RunnableScheduledFuture<V> submit(ScheduledTask<V> task, GroupMember member,
            RunnableScheduledFuture<V> decorated) {
        members.admit(member);
        boolean accepted = false;
        try {
            RunnableScheduledFuture<V> future = executor.delayedExecute(task, decorated);
            accepted = true;
            return future;
        } finally {
            members.admitted(member, accepted);
        }
    }

    /**
     * Runs {@code command} now (a zero delay), as a task of the group.
     *
     * @throws RejectedExecutionException if the group is shut down or closed
     */
    @Override
    public void execute(Runnable command) {
        schedule(command, 0L, TimeUnit.NANOSECONDS);
    }

    @Override
    public Future<?> submit(Runnable task) {
        return schedule(task, 0L, TimeUnit.NANOSECONDS);
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        Objects.requireNonNull(task, "task");
        return schedule(Executors.callable(task, result), 0L, TimeUnit.NANOSECONDS);
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return schedule(task, 0L, TimeUnit.NANOSECONDS);
    }

    // ---------------------------------------------------------------------------------------
    // Lifecycle.

    /**
     * Cancels every task the group tracks ({@code cancel(false)}: a run in progress goes on to
     * its end) and rejects new work from now on: what a connection's code calls when the
     * connection closes. Returns without waiting; later calls cancel nothing. The executor and
     * other groups are not affected.
     *
     * @return the futures this call cancelled
     */
    public List<Runnable> cancelAll() {
        return cancelEach(members.close(), false);
    }

    /**
     * Shuts the group down and waits until it has terminated, as Java 19's
     * {@code ExecutorService.close()} does: new work is rejected, periodic tasks are cancelled
     * and one-shot tasks run at their deadline ({@link #shutdown()}), and the call returns once
     * every task of the group has finished and no run is in progress. If interrupted while
     * waiting, it calls {@link #shutdownNow()} and keeps waiting, then restores the interrupt.
     * Does nothing if the group has terminated. The executor and other groups are not
     * affected.
     *
     * <p>It waits for delayed tasks too: to end a group without waiting (when a connection
     * closes), call {@link #cancelAll()}. Called from one of the group's own tasks, it waits for
     * itself. Once the executor has stopped ({@code shutdownNow}) or terminated, no task of the
     * group can run any more: then close cancels what is left, as {@link #shutdownNow()}, rather
     * than wait for it forever.
     */
    @Override
    public void close() {
        boolean terminated = isTerminated();
        if (terminated) {
            return;
        }
        shutdown();
        boolean cancelled = false;
        boolean interrupted = false;
        while (!terminated) {
            if (!cancelled && (executor.isStopping() || executor.isTerminated())) {
                shutdownNow(); // what is left never runs: see the javadoc
                cancelled = true;
            }
            try {
                // in slices: the group's termination is not signalled by the executor's
                terminated = awaitTermination(EXECUTOR_CHECK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                if (!interrupted) {
                    shutdownNow();
                    interrupted = true;
                    cancelled = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Rejects new work and cancels the group's periodic tasks; its one-shot tasks still run.
     * The executor is not affected.
     */
    @Override
    public void shutdown() {
        cancelEach(members.shutdown(), false);
    }

    /**
     * As {@link #cancelAll()}, but interrupts runs in progress ({@code cancel(true)}).
     *
     * @return the futures this call cancelled (those of tasks that were pending, and those of
     *     runs it interrupted)
     */
    @Override
    public List<Runnable> shutdownNow() {
        return cancelEach(members.close(), true);
    }

    private List<Runnable> cancelEach(GroupMember[] victims, boolean mayInterruptIfRunning) {
        List<Runnable> cancelled = victims.length == 0 ? Collections.emptyList() : new ArrayList<>(victims.length);
        for (GroupMember member : victims) {
            if (member.cancelByGroup(mayInterruptIfRunning)) {
                cancelled.add((Runnable) member.handle());
            }
        }
        if (serial != null && members.isClosed()) {
            serial.clear();
        }
        return cancelled;
    }

    /** Whether {@link #cancelAll()}, {@link #shutdown()}, {@link #shutdownNow()} or {@link #close()} was called. */
    @Override
    public boolean isShutdown() {
        return members.isShutdown();
    }

    /** Whether the group is shut down, tracks no task and runs none. */
    @Override
    public boolean isTerminated() {
        return members.isTerminated();
    }

    /**
     * Waits until the group has terminated: shut down (by any of the calls that end it), every
     * task finished (run, failed or cancelled) and no run in progress.
     */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return members.awaitTermination(timeout, unit);
    }

    /**
     * The number of tasks the group tracks: scheduled and not yet completed, failed or
     * cancelled (a periodic task counts until it ends). O(1).
     */
    public int pendingTasks() {
        return members.size();
    }

    /** Whether the group's tasks run one at a time, in order ({@link WheelScheduledExecutor#newSerialGroup()}). */
    public boolean isSerial() {
        return serial != null;
    }

    /** The executor whose workers and wheel the group uses. */
    public WheelScheduledExecutor executor() {
        return executor;
    }

    @Override
    public String toString() {
        return "TaskGroup[" + (isSerial() ? "serial, " : "")
                + (isTerminated() ? "terminated" : isShutdown() ? "shut down" : "open")
                + ", pending=" + pendingTasks() + "]";
    }

    // ---------------------------------------------------------------------------------------
    // Called by the group's tasks.

    /** A worker (or the task executor) runs a task of the group. */
    void run(GroupMember member) {
        if (serial != null) {
            serial.kick();
            return;
        }
        members.enterRun();
        try {
            member.runInGroup();
        } finally {
            members.exitRun();
        }
    }

    /**
     * After each run: clears an interrupt the run left (its own, or a {@code cancel(true)}'s),
     * so that it does not reach the next task a serial drain runs on this thread, as the pool
     * clears it between tasks; only a stopping pool ({@code shutdownNow}) keeps it set, as
     * {@code ThreadPoolExecutor.runWorker} does. Clear first, then read: shutdownNow sets the
     * stopping flag before it interrupts the workers, so an interrupt this clears is restored.
     */
    void afterRun() {
        if (Thread.interrupted() && executor.isStopping()) {
            Thread.currentThread().interrupt();
        }
    }

    void finished(GroupMember member) {
        members.finished(member);
    }

    /** The wheel hands a task of the group out; called under the wheel's lock. */
    void handedOut(GroupMember member) {
        if (serial != null) {
            serial.append(member);
        }
    }
}
