package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimeSource;
import io.github.timingwheel.core.WheelShape;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link ScheduledExecutorService} on a hierarchical timing wheel, built as the JDK builds
 * {@link ScheduledThreadPoolExecutor}: a {@link ThreadPoolExecutor} whose work queue is the
 * wheel. It is a drop-in replacement: the constructors, the contract of every method, the
 * shutdown policies, the {@link RejectedExecutionHandler}s, the hooks and the statistics are
 * those of {@code ScheduledThreadPoolExecutor}. What differs is the cost:
 *
 * <ul>
 *   <li>schedule and cancel are O(1) whatever the number pending (the JDK's queue is a heap
 *       under one lock: O(log n)), and the calling thread does the wheel work itself without
 *       waiting, in one of several wheels: it tries the lock of its thread's home wheel
 *       ({@code tryLock}), and if another thread holds it, leaves the task in that wheel's
 *       bounded inbox for the holder to apply. It waits for the lock only when that inbox is
 *       full, so a flood slows its producers instead of growing memory without bound;
 *   <li>with the {@linkplain #setRemoveOnCancelPolicy remove-on-cancel policy} on, a
 *       cancelled task is unlinked at once (within a small batch) at O(1). The constructors
 *       leave it off, as the JDK's do; the {@linkplain #builder() builder} turns it on by
 *       default;
 *   <li>a one-shot task is one 64-byte object: no {@code FutureTask} or adapter behind it.
 * </ul>
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Never early: a task does not start before its delay has elapsed, as measured by the
 *       {@linkplain Builder#timeSource time source} ({@link System#nanoTime()} by default).
 *   <li>Order: among tasks that are due, the earlier deadline starts first, and tasks with the
 *       same deadline start in submission order (for submissions from one thread, or ordered by
 *       happens-before). With several workers, "start" means "is taken by a worker". Due
 *       tasks leave the wheel in batches of up to 64, so a task that becomes due while a batch
 *       is out (a fixed-rate run that is already late) starts after that batch.
 *   <li>Fixed-rate runs are due at {@code initialDelay + n * period} (after missed runs, as
 *       the task's {@link MissedRunPolicy} says; by default they all run, late, as in the JDK);
 *       fixed-delay runs {@code delay} after the previous run ended. Runs of one task never
 *       overlap and each happens-before the next. An exception ends a periodic task: its future completes with it.
 *   <li>Any delay from {@link Long#MIN_VALUE} (now) to {@link Long#MAX_VALUE} in any unit,
 *       without overflow.
 * </ul>
 *
 * <h2>Caveats</h2>
 * <ul>
 *   <li>Like the JDK's, the pool has exactly {@code corePoolSize} threads; the maximum pool
 *       size has no effect.
 *   <li>{@link #getQueue()} views are snapshots in no particular order, and
 *       {@code getQueue().drainTo} moves only tasks that are due (as the JDK's does).
 *   <li>With a {@linkplain Builder#taskExecutor task executor}, bodies run there: the
 *       {@code beforeExecute}/{@code afterExecute} hooks then bracket the hand-over, not the body.
 *   <li>A due task handed out in a batch that no worker has taken yet still shows in the queue's
 *       views and is returned by {@link #shutdownNow()}, but {@link #remove} cannot take it back:
 *       a worker is about to run it (it runs the executor's state check first, as every task
 *       does).
 *   <li>On time is not at the nanosecond: a due task is handed to a worker at its deadline,
 *       not at the next tick, but the worker's wake-up and the hand-over take time, and more
 *       in the tail when the CPU is busy or every worker is running a task. Never early holds
 *       regardless.
 *   <li>A thread's home wheel's inbox holds at most 16,384 tasks; a producer that finds it
 *       full waits for the wheel's lock and applies the inbox itself. The wheels hold every
 *       accepted task: bound them with {@link Builder#maxPendingTasks}.
 * </ul>
 *
 * <h2>Metrics and events</h2>
 * {@link #metrics()} returns totals (scheduled, ran, failed, cancelled, rejected), the tasks
 * pending and running, and a histogram of how late runs started, without taking a lock; they
 * are always on (a plain add or two per task, each thread in a counter cell of its own). JDK
 * Flight Recorder events for runs that start late, runs that take long and refused tasks are
 * off unless the builder sets them
 * ({@link Builder#lateTaskEventThreshold}, {@link Builder#longTaskEventThreshold},
 * {@link Builder#rejectionEvents}); then a recording captures them as
 * {@code io.github.timingwheel.TaskLate}, {@code io.github.timingwheel.TaskRanLong} and
 * {@code io.github.timingwheel.TaskRejected}.
 */
public class WheelScheduledExecutor extends ThreadPoolExecutor
        implements ScheduledExecutorService, AutoCloseable {

    /*
     * Implementation notes
     *
     * [1] Shape. As ScheduledThreadPoolExecutor: a ThreadPoolExecutor whose work queue is the
     *     wheel (WheelWorkQueue, whose take and poll run the leader/follower protocol of
     *     WorkerRoles). This class makes the tasks and decides, around the queue, whether the
     *     run state lets a task in and lets it run. The JDK's own hooks for that (onShutdown, isStopped,
     *     ensurePrestart) are package-private, so [4] to [6] reach the same ends from outside.
     * [2] Shutdown re-checks. A producer checks isShutdown() and then enqueues; a shutdown may
     *     come in between, and its pass over the queue ([5]) may miss the task. So every path
     *     that queues (delayedExecute, offerTask, offerContinuation, reExecutePeriodic) checks
     *     again after the enqueue, as the JDK's delayedExecute and reExecutePeriodic do: if the
     *     run state no longer allows the task (canRunInCurrentRunState), or no worker runs and
     *     none can start (ensureWorker), the producer takes the task back with remove(task) and
     *     cancels it. remove succeeds for at most one caller, and not once a worker or the drain
     *     of shutdownNow has taken the task, so each task ends exactly one way: it runs, is
     *     returned by shutdownNow, or is cancelled. What the queue handed out just before a
     *     shutdown meets the same test when its run begins (ScheduledTask.mayRunElseCancel).
     * [3] Pending accounting. Two counts. The metrics' pending figure is TaskCounters' scheduled
     *     minus ended, each written by the thread that saw the event, with no shared write per
     *     task. The bound (maxPendingTasks) needs an exact shared count, so 'pendingTasks' is
     *     kept only when a bound is set: reservePending adds one before the task is published
     *     and throws past the bound (not through the rejection handler: CallerRunsPolicy would
     *     run a delayed task at once, early); taskFinished takes it away when the task
     *     completes, fails or is cancelled, which ScheduledTask.finishCompletion reports exactly
     *     once per task (a periodic task: when it is cancelled or fails, not after each run). A
     *     task refused after shutdown is counted before the handler runs and uncounted only if
     *     the handler throws: a discarding handler leaves the caller a live future, which ends,
     *     and is uncounted, like any other.
     * [4] WORKER_START. With a core size of 0, prestartCoreThread starts nothing, and the JDK's
     *     ensurePrestart, which starts one worker anyway, is package-private. Given the marker,
     *     ThreadPoolExecutor.execute queues it, finds no thread, and starts one; the queue's
     *     offer accepts the marker and drops it, so no worker ever runs it. If the pool shut down
     *     in between, execute hands the marker to the rejection handler instead: the abort policy
     *     throws (caught in ensureWorker), the JDK's other policies drop it after shutdown.
     * [5] TERMINATION_PROBE. shutdown() calls super.shutdown(), which checks for termination
     *     while the tasks the policies forbid are still queued, and only then cancels and unlinks
     *     them (cancelTasksNotAllowedAfterShutdown: the JDK's onShutdown, which the JDK runs
     *     inside shutdown, before that check). So the check must run again. ThreadPoolExecutor's
     *     remove runs it after any removal attempt, and the probe is never queued, so
     *     remove(TERMINATION_PROBE) is that check alone. For the same reason releaseCancelled()
     *     unlinks a cancelled task through remove once the executor is shut down.
     * [6] 'stopped' stands for the JDK's package-private isStopped(). shutdownNow writes it
     *     (volatile) before super.shutdownNow moves the pool to STOP and interrupts the workers.
     *     Once the pool is shut down, canRunInCurrentRunState reads it, so that no run begins
     *     after shutdownNow whatever the policies say. A task group reads it after clearing its
     *     worker's interrupt (TaskGroup.afterRun): the write comes before the interrupt, so an
     *     interrupt from shutdownNow is always seen with 'stopped' true, and is kept.
     */

    /** Keep-alive of threads above the core size, as in ScheduledThreadPoolExecutor. */
    private static final long DEFAULT_KEEPALIVE_MILLIS = 10L;

    /**
     * Passed to {@link ThreadPoolExecutor#execute} only to make it start a worker when the core
     * size is 0 ([4]); the queue accepts and drops it.
     */
    static final Runnable WORKER_START = () -> { };

    /** Never queued: removing it only makes {@link ThreadPoolExecutor#remove} check termination ([5]). */
    private static final Runnable TERMINATION_PROBE = () -> { };

    private final WheelWorkQueue queue;
    /** Where task bodies run; null for the worker thread itself. */
    private final Executor taskExecutor;
    /** The threads of the task executor in a body now, which shutdownNow interrupts. */
    private final BodiesElsewhere bodiesElsewhere = new BodiesElsewhere();

    private volatile boolean continueExistingPeriodicTasksAfterShutdown;
    private volatile boolean executeExistingDelayedTasksAfterShutdown = true;
    private volatile boolean removeOnCancel = true;
    /** Set by shutdownNow before the pool reaches STOP; the JDK's isStopped is not public ([6]). */
    private volatile boolean stopped;
    /** Bound on accepted tasks not yet finished, or 0 for none ([3]). */
    private final long maxPendingTasks;
    /** Accepted tasks not yet finished; counted only when bounded (a shared write per task; [3]). */
    private final AtomicLong pendingTasks = new AtomicLong();
    /** The name in metrics, and the default prefix of worker names. */
    private final String name;
    /** What fixed-rate tasks scheduled through the ScheduledExecutorService interface do after missed runs. */
    private final MissedRunPolicy missedRunPolicy;
    /** What tasks did, for {@link #metrics()}; each counter is written by the thread that saw it. */
    private final TaskCounters counters = new TaskCounters();
    /** The flight recorder events that are on, or null if none is (then no jdk.jfr class loads). */
    private final TaskEvents events;

    /**
     * Creates an executor with {@code corePoolSize} workers, the default thread factory and the
     * abort policy, as {@link ScheduledThreadPoolExecutor#ScheduledThreadPoolExecutor(int)}.
     * The four constructors have the JDK's defaults, policies included: a cancelled task stays
     * in the wheel until its deadline unless {@link #setRemoveOnCancelPolicy
     * setRemoveOnCancelPolicy(true)} is called; the {@linkplain #builder() builder} turns that
     * on by default.
     *
     * @param corePoolSize the number of worker threads
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     */
    public WheelScheduledExecutor(int corePoolSize) {
        this(jdkDefaults(corePoolSize));
    }

    /**
     * As {@link ScheduledThreadPoolExecutor#ScheduledThreadPoolExecutor(int, ThreadFactory)}.
     *
     * @param corePoolSize the number of worker threads
     * @param threadFactory makes the worker threads
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     * @throws NullPointerException if {@code threadFactory} is null
     */
    public WheelScheduledExecutor(int corePoolSize, ThreadFactory threadFactory) {
        this(jdkDefaults(corePoolSize).threadFactory(threadFactory));
    }

    /**
     * As {@link ScheduledThreadPoolExecutor#ScheduledThreadPoolExecutor(int, RejectedExecutionHandler)}.
     *
     * @param corePoolSize the number of worker threads
     * @param handler what to do with a task submitted after shutdown
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     * @throws NullPointerException if {@code handler} is null
     */
    public WheelScheduledExecutor(int corePoolSize, RejectedExecutionHandler handler) {
        this(jdkDefaults(corePoolSize).rejectedExecutionHandler(handler));
    }

    /**
     * As {@link ScheduledThreadPoolExecutor#ScheduledThreadPoolExecutor(int, ThreadFactory,
     * RejectedExecutionHandler)}.
     *
     * @param corePoolSize the number of worker threads
     * @param threadFactory makes the worker threads
     * @param handler what to do with a task submitted after shutdown
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     * @throws NullPointerException if {@code threadFactory} or {@code handler} is null
     */
    public WheelScheduledExecutor(int corePoolSize, ThreadFactory threadFactory,
            RejectedExecutionHandler handler) {
        this(jdkDefaults(corePoolSize).threadFactory(threadFactory).rejectedExecutionHandler(handler));
    }

    /**
     * What the four constructors start from: the builder's defaults, with the JDK's where they
     * differ, so that a constructor gives what {@code ScheduledThreadPoolExecutor}'s gives
     * (the remove-on-cancel policy is off).
     */
    private static Builder jdkDefaults(int corePoolSize) {
        return builder().workers(corePoolSize).removeOnCancel(false);
    }

    /**
     * Creates an executor from a builder; subclasses may use it too.
     *
     * @param builder the settings; later changes to it do not reach this executor
     */
    protected WheelScheduledExecutor(Builder builder) {
        this(builder, builder.nameOrDefault());
    }

    private WheelScheduledExecutor(Builder builder, String name) {
        this(builder, name, new WheelWorkQueue(builder.shape, builder.timeSource, builder.shards,
                builder.toleranceNanos));
    }

    /**
     * Takes the queue as an argument, so that the constructor does not read it back from the
     * pool: a call on the object before it is constructed (javac's "this-escape" lint).
     */
    private WheelScheduledExecutor(Builder builder, String name, WheelWorkQueue queue) {
        super(builder.workers, Integer.MAX_VALUE, DEFAULT_KEEPALIVE_MILLIS, TimeUnit.MILLISECONDS,
                queue, builder.threadFactory(name), builder.handler);
        this.name = name;
        this.queue = queue;
        this.taskExecutor = builder.taskExecutor;
        this.removeOnCancel = builder.removeOnCancel;
        this.maxPendingTasks = builder.maxPendingTasks;
        this.missedRunPolicy = builder.missedRunPolicy;
        this.events = TaskEvents.of(name, builder.lateTaskEventThresholdNanos,
                builder.longTaskEventThresholdNanos, builder.rejectionEvents);
    }

    /**
     * The shortest way to one: {@code corePoolSize} workers and every other setting at its
     * default, as {@link Executors#newScheduledThreadPool(int)}.
     *
     * @param corePoolSize the number of worker threads
     * @return a new executor with the JDK's defaults
     * @throws IllegalArgumentException if {@code corePoolSize < 0}
     */
    public static WheelScheduledExecutor newScheduledThreadPool(int corePoolSize) {
        return new WheelScheduledExecutor(corePoolSize);
    }

    /**
     * Starts a builder for the settings beyond the constructors'.
     *
     * @return a new builder, every setting at its default
     */
    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------------------------------
    // Scheduling.

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        ScheduledTask<Void> task = queue.place(new ScheduledTask<>(this, command), unit.toNanos(delay));
        return delayedExecute(task, decorateTask(command, task));
    }

    /**
     * Schedules {@code command} to run once when {@code timeout} passes without a
     * {@link Rearmable#touch() touch}: an idle or read timeout that every event pushes back.
     * A touch costs one CAS on the returned handle; see {@link Rearmable} for what it
     * guarantees and what moving the deadline earlier costs. The task is counted once as
     * scheduled in {@link #metrics()}; its lazy re-arms are counted apart, in
     * {@link SchedulerMetrics#rearms()}. Not passed through {@code decorateTask}.
     *
     * @param command the action to run when the timeout passes
     * @param timeout the time without a touch after which it runs; negative means 0
     * @param unit the unit of {@code timeout}
     * @return the handle, a {@link java.util.concurrent.ScheduledFuture} too
     * @throws RejectedExecutionException if the task cannot be accepted
     * @throws NullPointerException if {@code command} or {@code unit} is null
     */
    public RearmableFuture<Void> scheduleRearmable(Runnable command, long timeout, TimeUnit unit) {
        return scheduleRearmable(command, timeout, 0L, unit);
    }

    /**
     * As {@link #scheduleRearmable(Runnable, long, TimeUnit)}, with a tolerance of its own: how
     * much later than its deadline the action may start, on top of the executor's
     * {@link Builder#tolerance(long, TimeUnit) tolerance}. The handle is placed in the wheel at
     * its deadline rounded up to the largest power of two of nanoseconds not above
     * {@code tolerance}, so that handles whose deadlines fall within one such grain share a
     * wake-up (idle timeouts of many connections, where a millisecond does not matter, then
     * wake the scheduler once per grain instead of once per deadline). It never starts before
     * its deadline, and the rounding makes it at most {@code tolerance} late; lateness is still
     * reported against the exact deadline. Among handles sharing a position, those scheduled
     * first run first. A tolerance of 0 is the method above.
     *
     * @param command the action to run when the timeout passes
     * @param timeout the time without a touch after which it runs; negative means 0
     * @param tolerance how late it may start, in {@code unit}; not negative
     * @param unit the unit of {@code timeout} and {@code tolerance}
     * @return the handle, a {@link java.util.concurrent.ScheduledFuture} too
     * @throws RejectedExecutionException if the task cannot be accepted
     * @throws NullPointerException if {@code command} or {@code unit} is null
     * @throws IllegalArgumentException if {@code tolerance} is negative
     */
    public RearmableFuture<Void> scheduleRearmable(Runnable command, long timeout, long tolerance,
            TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        long timeoutNanos = Math.max(0L, unit.toNanos(timeout));
        RearmableTask task = queue.place(new RearmableTask(this, command, timeoutNanos,
                WheelWorkQueue.toleranceNanos(tolerance, unit)), timeoutNanos);
        delayedExecute(task, task);
        return task;
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        Objects.requireNonNull(callable, "callable");
        Objects.requireNonNull(unit, "unit");
        ScheduledTask<V> task = queue.place(new ScheduledTask<>(this, callable), unit.toNanos(delay));
        return delayedExecute(task, decorateTask(callable, task));
    }

    /**
     * As {@link ScheduledThreadPoolExecutor#scheduleAtFixedRate}; missed runs are handled by the
     * executor's {@linkplain Builder#missedRunPolicy missed-run policy} ({@link
     * MissedRunPolicy#CATCH_UP}, the JDK's behaviour, unless the builder set another).
     *
     * @param command the task to run
     * @param initialDelay the delay before the first run
     * @param period the time from the start of one run to the deadline of the next
     * @param unit the unit of {@code initialDelay} and {@code period}
     * @return a future that is cancelled to stop the task, or completes with the exception a
     *     run threw
     * @throws RejectedExecutionException if the task cannot be accepted
     * @throws NullPointerException if {@code command} or {@code unit} is null
     * @throws IllegalArgumentException if {@code period <= 0}
     */
    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
            TimeUnit unit) {
        return scheduleAtFixedRate(command, initialDelay, period, unit, missedRunPolicy);
    }

    /**
     * As {@link #scheduleAtFixedRate(Runnable, long, long, TimeUnit)}, with {@code policy}
     * deciding what the task does after missed runs (a long pause, or a run longer than the
     * period); see {@link MissedRunPolicy} for a timeline of each.
     *
     * @param command the task to run
     * @param initialDelay the delay before the first run
     * @param period the time from the start of one run to the deadline of the next
     * @param unit the unit of {@code initialDelay} and {@code period}
     * @param policy what the task does after missed runs
     * @return a future that is cancelled to stop the task, or completes with the exception a
     *     run threw
     * @throws RejectedExecutionException if the task cannot be accepted
     * @throws NullPointerException if {@code command}, {@code unit} or {@code policy} is null
     * @throws IllegalArgumentException if {@code period <= 0}
     */
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
            TimeUnit unit, MissedRunPolicy policy) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(policy, "policy");
        if (period <= 0L) {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        PeriodicTask task = queue.place(PeriodicTask.fixedRate(this, command, unit.toNanos(period), policy),
                unit.toNanos(initialDelay));
        return delayedExecute(task, decorateTask(command, task));
    }

    /**
     * As {@link ScheduledThreadPoolExecutor#scheduleWithFixedDelay}.
     *
     * @param command the task to run
     * @param initialDelay the delay before the first run
     * @param delay the time from the end of one run to the deadline of the next
     * @param unit the unit of {@code initialDelay} and {@code delay}
     * @return a future that is cancelled to stop the task, or completes with the exception a
     *     run threw
     * @throws RejectedExecutionException if the task cannot be accepted
     * @throws NullPointerException if {@code command} or {@code unit} is null
     * @throws IllegalArgumentException if {@code delay <= 0}
     */
    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
            TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        if (delay <= 0L) {
            throw new IllegalArgumentException("delay must be positive: " + delay);
        }
        PeriodicTask task = queue.place(PeriodicTask.fixedDelay(this, command, unit.toNanos(delay)),
                unit.toNanos(initialDelay));
        return delayedExecute(task, decorateTask(command, task));
    }

    /**
     * Runs {@code command} now: a schedule with zero delay, as in the JDK.
     *
     * @param command the task to run
     * @throws RejectedExecutionException if the task cannot be accepted (as the rejection
     *     handler decides)
     * @throws NullPointerException if {@code command} is null
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

    /**
     * A new group of tasks on this executor's workers and wheel, which tracks its own pending
     * tasks and cancels them all in one {@link TaskGroup#close()}; see {@link TaskGroup}.
     *
     * @return a new, open group
     * @throws RejectedExecutionException if the executor is shut down, as {@code schedule} then
     *     throws (a group made then could run nothing)
     */
    public TaskGroup newGroup() {
        return new TaskGroup(requireNotShutdown(), false);
    }

    /**
     * A new serial group: as {@link #newGroup()}, and its tasks never run at the same time and
     * run in deadline-then-submission order, as a reactive scheduler's worker does; see
     * {@link TaskGroup}.
     *
     * @return a new, open serial group
     * @throws RejectedExecutionException if the executor is shut down, as {@code schedule} then
     *     throws
     */
    public TaskGroup newSerialGroup() {
        return new TaskGroup(requireNotShutdown(), true);
    }

    private WheelScheduledExecutor requireNotShutdown() {
        if (isShutdown()) {
            throw new RejectedExecutionException("cannot make a group: " + this + " is shut down");
        }
        return this;
    }

    /**
     * Lets a subclass replace or wrap the task that is queued and returned, as
     * {@link ScheduledThreadPoolExecutor#decorateTask(Runnable, RunnableScheduledFuture)}. The
     * default returns {@code task}. A replacement's {@code run} and {@code cancel} should
     * delegate to {@code task}'s.
     *
     * @param <V> the result type of the task
     * @param runnable the submitted runnable
     * @param task the task made for it
     * @return the task to queue and return to the caller; not null
     */
    protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable,
            RunnableScheduledFuture<V> task) {
        return task;
    }

    /**
     * As {@link #decorateTask(Runnable, RunnableScheduledFuture)}, for callables.
     *
     * @param <V> the result type of the task
     * @param callable the submitted callable
     * @param task the task made for it
     * @return the task to queue and return to the caller; not null
     */
    protected <V> RunnableScheduledFuture<V> decorateTask(Callable<V> callable,
            RunnableScheduledFuture<V> task) {
        return task;
    }

    /** Queues a new task, or hands it to the rejection handler; task groups use it too. */
    <V> RunnableScheduledFuture<V> delayedExecute(ScheduledTask<V> task,
            RunnableScheduledFuture<V> decorated) {
        Objects.requireNonNull(decorated, "decorateTask returned null");
        if (decorated != task) {
            task.decorated = decorated;
        }
        if (isShutdown()) {
            rejectAfterShutdown(task, decorated);
            return decorated;
        }
        reservePending(task);
        queue.enqueue(task, counters); // counted as scheduled before it is published: TaskCounters [2]
        // Re-check ([2]): a shutdown may have come between the check above and the enqueue; then
        // a task that no worker can take is cancelled rather than stranded.
        if ((!canRunInCurrentRunState(task) || !ensureWorker()) && remove(task)) {
            task.cancelUnqueued();
        }
        return decorated;
    }

    /**
     * Queues a task of the {@code Timer} adapter, which has no future to cancel or handler to
     * reject through.
     *
     * @return false, with the task not queued, if the executor is shut down
     */
    boolean offerTask(WheelTask task) {
        if (isShutdown()) {
            return false;
        }
        queue.enqueue(task, counters); // counted as scheduled before it is published: TaskCounters [2]
        // As in delayedExecute; a task that shutdownNow already took is in its list: accepted.
        if ((isShutdown() || !ensureWorker()) && remove(task)) {
            counters.unscheduled();
            return false;
        }
        return true;
    }

    /**
     * Queues the rest of a serial group's drain as a zero-delay task (SerialRunQueue, note
     * [4]). Unlike {@link #execute}, it never reaches the rejection handler, which may drop a
     * task without a word: it answers instead, and the caller goes on with the drain itself.
     *
     * @return false, with nothing queued, if the executor is shut down or full
     */
    boolean offerContinuation(Runnable drain) {
        if (isShutdown()) {
            return false;
        }
        ScheduledTask<Void> task = queue.place(new ScheduledTask<>(this, drain), 0L);
        try {
            reservePending(task);
        } catch (RejectedExecutionException full) {
            return false;
        }
        queue.enqueue(task, counters); // counted as in delayedExecute
        // As in delayedExecute; a continuation that shutdownNow already took is in its list.
        if ((!canRunInCurrentRunState(task) || !ensureWorker()) && remove(task)) {
            task.cancelUnqueued();
            return false;
        }
        return true;
    }

    /**
     * Counts an accepted task against the bound ([3]). Past it, throws rather than asking the
     * rejection handler: CallerRunsPolicy would run a delayed task early.
     */
    private void reservePending(ScheduledTask<?> task) {
        if (maxPendingTasks > 0L && pendingTasks.incrementAndGet() > maxPendingTasks) {
            pendingTasks.decrementAndGet();
            counters.refused();
            eventRejected(task.body(), "maxPendingTasks");
            throw new RejectedExecutionException("Number of pending tasks is greater than the "
                    + "maximum allowed (" + maxPendingTasks + ")");
        }
    }

    /**
     * Hands a task submitted after shutdown to the rejection handler. A handler that returns
     * (a discarding policy) leaves the caller a future that is still NEW and may be cancelled
     * later, which ends it like any task; so the task is counted as scheduled and pending
     * before the handler runs, and uncounted only if the handler throws. That keeps the pending
     * count and the maxPendingTasks bound exact.
     */
    private void rejectAfterShutdown(ScheduledTask<?> task, RunnableScheduledFuture<?> decorated) {
        counters.refused();
        eventRejected(task.body(), "shutdown");
        if (maxPendingTasks > 0L) {
            pendingTasks.incrementAndGet();
        }
        counters.scheduled();
        boolean handlerReturned = false;
        try {
            getRejectedExecutionHandler().rejectedExecution(decorated, this);
            handlerReturned = true;
        } finally {
            if (!handlerReturned) {
                counters.unscheduled();
                if (maxPendingTasks > 0L) {
                    pendingTasks.decrementAndGet();
                }
            }
        }
    }

    /** Called once by each task when it completes, fails or is cancelled ([3]). */
    void taskFinished() {
        if (maxPendingTasks > 0L) {
            pendingTasks.decrementAndGet();
        }
    }

    /** Puts a periodic task back after a run, unless the executor's state forbids it ([2]). */
    void reExecutePeriodic(ScheduledTask<?> task) {
        if (canRunInCurrentRunState(task)) {
            queue.enqueue(task);
            if (canRunInCurrentRunState(task) || !remove(task)) {
                ensureWorker();
                return;
            }
        }
        task.cancelUnqueued();
    }

    /**
     * Puts a re-armable task back into its wheel when a touch moved its deadline after it was
     * handed out (ArmedDeadline [8]), unless the executor's state forbids it, as
     * {@link #reExecutePeriodic} does.
     */
    void relinkRearmed(RearmableTask task) {
        if (canRunInCurrentRunState(task)) {
            queue.movedEarlier(task);
            if (canRunInCurrentRunState(task) || !remove(task)) {
                ensureWorker();
                return;
            }
        }
        task.cancel(false);
    }

    /**
     * Starts a worker for a queued task unless one runs, as the JDK's ensurePrestart does ([4]).
     *
     * @return false if no worker runs and none can start: the pool is shut down and terminating,
     *     or has no core threads (after shutdown, ThreadPoolExecutor starts a worker without a
     *     first task only through prestartCoreThread, which is bounded by the core size)
     */
    private boolean ensureWorker() {
        if (prestartCoreThread()) {
            return true;
        }
        if (getCorePoolSize() == 0 && getPoolSize() == 0 && !isShutdown()) {
            try {
                super.execute(WORKER_START);
            } catch (RejectedExecutionException shutDownMeanwhile) {
                // The abort policy saw the marker: the pool was shut down since the check above.
            }
        }
        return !isShutdown() || getPoolSize() > 0;
    }

    /** Whether task bodies run on the worker that took the task: no task executor was configured. */
    boolean runsBodiesOnWorkers() {
        return taskExecutor == null;
    }

    /** Runs a task's body on the task executor; call only if {@link #runsBodiesOnWorkers} is false. */
    void runBodyElsewhere(ScheduledTask<?> task) {
        try {
            taskExecutor.execute(() -> bodiesElsewhere.run(task));
        } catch (RejectedExecutionException rejected) {
            eventRejected(task.body(), "taskExecutor");
            task.refuse(rejected); // the task's future says why; the worker lives on
        }
    }

    /**
     * Called on the thread that runs a body, just before it: counts the run and how late it
     * started against its deadline, in {@code cell} ({@link TaskCounters#runCell}).
     *
     * @return the wheel time the run started
     */
    long runStarted(WheelTask task, Object body, long[] cell) {
        long now = wheelNow();
        long lateness = now - task.firedDeadline();
        counters.runStarted(cell, lateness);
        TaskEvents on = events;
        if (on != null) {
            on.started(body, lateness);
        }
        return now;
    }

    /**
     * Called on the thread that ran a body, after it returned or threw, before its outcome is
     * published (so that whoever sees the outcome sees the run counted as ended).
     */
    void runEnded(WheelTask task, Object body, long startedAt, boolean failed, long[] cell) {
        counters.runEnded(cell, failed);
        TaskEvents on = events;
        if (on != null && on.timesRuns()) {
            on.ended(body, wheelNow() - startedAt, failed);
        }
    }

    /** Records a refused task as a flight recorder event, if those are on. */
    void eventRejected(Object body, String reason) {
        TaskEvents on = events;
        if (on != null) {
            on.rejected(body, reason);
        }
    }

    TaskCounters counters() {
        return counters;
    }

    /**
     * Whether the run state lets {@code task} run now: always before shutdown; never once
     * stopped ([6]) or terminated; in between, as the two shutdown policies say.
     */
    boolean canRunInCurrentRunState(RunnableScheduledFuture<?> task) {
        if (!isShutdown()) {
            return true;
        }
        if (stopped || isTerminated()) {
            return false;
        }
        return task.isPeriodic()
                ? continueExistingPeriodicTasksAfterShutdown
                : (executeExistingDelayedTasksAfterShutdown || task.getDelay(TimeUnit.NANOSECONDS) <= 0);
    }

    /**
     * Counts a cancel that won and unlinks its task: at once or within a batch, or now if shut
     * down ([5]). The count is made in the task's shard when the unlink is made in place
     * (TaskCounters [7]).
     */
    void releaseCancelled(WheelTask task) {
        if (isShutdown()) {
            counters.cancelled();
            remove(task); // through ThreadPoolExecutor.remove, which then checks for termination
        } else {
            queue.cancelled(task, counters);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Time.

    long wheelNow() {
        return queue.wheelNow();
    }

    long deadlineAfter(long delayNanos) {
        return queue.deadlineAfter(delayNanos);
    }

    WheelWorkQueue queue() {
        return queue;
    }

    // ---------------------------------------------------------------------------------------
    // Metrics.

    /**
     * What this executor's tasks did so far, read without a lock and without stopping it; see
     * {@link SchedulerMetrics} for what each figure counts.
     *
     * @return a snapshot of the counts, the pending and running tasks, and the lateness histogram
     */
    public SchedulerMetrics metrics() {
        return counters.snapshot(name, getCorePoolSize(), queue, queue.leaderWakeUps());
    }

    /**
     * As {@link ThreadPoolExecutor#toString()}, with the executor's {@linkplain #name() name}
     * first inside the brackets, so that a rejection's message ("rejected from ...") and a log
     * line say which executor it was.
     */
    @Override
    public String toString() {
        String pool = super.toString(); // Class@hash[Running, pool size = 1, ...]
        int open = pool.indexOf('[');
        return open < 0
                ? pool + "[" + name + "]"
                : pool.substring(0, open + 1) + name + ", " + pool.substring(open + 1);
    }

    /**
     * The name in metrics and events.
     *
     * @return the name given to the builder, or {@code timingwheel-N} (as in the default worker
     *     names)
     */
    public String name() {
        return name;
    }

    // ---------------------------------------------------------------------------------------
    // Lifecycle and policies.

    /**
     * Starts an orderly shutdown, as {@link ScheduledThreadPoolExecutor#shutdown()}: new tasks
     * are rejected; delayed tasks still run unless
     * {@link #setExecuteExistingDelayedTasksAfterShutdownPolicy} was set to false; periodic
     * tasks stop unless {@link #setContinueExistingPeriodicTasksAfterShutdownPolicy} was set to
     * true.
     */
    @Override
    public void shutdown() {
        super.shutdown();
        cancelTasksNotAllowedAfterShutdown();
    }

    /**
     * Stops at once, as {@link ScheduledThreadPoolExecutor#shutdownNow()}: running tasks are
     * interrupted, and every task that never started is returned (the futures returned by
     * {@code schedule}, or zero-delay futures for tasks given to {@code execute}).
     *
     * @return the tasks that never started, in no particular order
     */
    @Override
    public List<Runnable> shutdownNow() {
        stopped = true;
        List<Runnable> neverRun = super.shutdownNow();
        bodiesElsewhere.stop(); // as super.shutdownNow interrupts the workers
        for (Runnable task : neverRun) {
            if (task instanceof ScheduledTask<?> ours) {
                ours.leftQueue(); // a cancelled one the queue held (ScheduledTask [7])
            }
        }
        return neverRun;
    }

    /**
     * As {@link ThreadPoolExecutor#remove}: takes {@code task} out of the queue if it is there.
     *
     * @return true if it was removed
     */
    @Override
    public boolean remove(Runnable task) {
        boolean removed = super.remove(task);
        if (removed && task instanceof ScheduledTask<?> ours) {
            ours.leftQueue(); // ScheduledTask [7]
        }
        return removed;
    }

    /**
     * As {@link ThreadPoolExecutor#purge}: removes the cancelled tasks the queue holds (with the
     * remove-on-cancel policy off, they stay until their deadline).
     */
    @Override
    public void purge() {
        for (Object element : queue.toArray()) {
            if (element instanceof ScheduledTask<?> task && task.isCancelled() && queue.remove(task)) {
                task.leftQueue(); // ScheduledTask [7]
            }
        }
        super.purge(); // decorated tasks, and the check for termination
    }

    /** Whether {@link #shutdownNow()} was called: the JDK's (package-private) STOP state. */
    boolean isStopping() {
        return stopped;
    }

    /** What ScheduledThreadPoolExecutor does in its (package-private) onShutdown hook. */
    private void cancelTasksNotAllowedAfterShutdown() {
        boolean keepDelayed = executeExistingDelayedTasksAfterShutdown;
        boolean keepPeriodic = continueExistingPeriodicTasksAfterShutdown;
        for (Object element : queue.toArray()) {
            if (element instanceof RunnableScheduledFuture<?> task) {
                boolean drop = task.isPeriodic()
                        ? !keepPeriodic
                        : !keepDelayed && task.getDelay(TimeUnit.NANOSECONDS) > 0;
                if ((drop || task.isCancelled()) && queue.remove(task)) {
                    if (task instanceof ScheduledTask<?> ours) {
                        ours.cancelUnqueued();
                        ours.leftQueue(); // one cancelled before, and held (ScheduledTask [7])
                    } else {
                        task.cancel(false);
                    }
                }
            }
        }
        remove(TERMINATION_PROBE); // [5]
    }

    /**
     * Shuts down and waits for termination, as Java 19's {@code ExecutorService.close()}: no
     * new task is accepted, the tasks already submitted run or are dropped as the shutdown
     * policies say ({@link #shutdown()}), and the call returns when every worker has ended. As
     * with the JDK's executor, a delayed task still runs after shutdown by default, at its
     * deadline, so {@code close()} waits for it: cancel it first, or set
     * {@link #setExecuteExistingDelayedTasksAfterShutdownPolicy} to false. If interrupted while
     * waiting, it calls {@link #shutdownNow()} and keeps waiting, then restores the interrupt.
     * Does nothing if the executor has terminated.
     *
     * <p>The executor is {@link AutoCloseable} on Java 17 too, so
     * {@code try (WheelScheduledExecutor timers = WheelScheduledExecutor.builder().build())}
     * shuts it down when the block ends. Called from one of its own tasks, it waits for
     * itself: shut down from a task with {@link #shutdown()} instead.
     */
    @Override
    public void close() {
        boolean terminated = isTerminated();
        if (terminated) {
            return;
        }
        shutdown();
        boolean interrupted = false;
        while (!terminated) {
            try {
                terminated = awaitTermination(1L, TimeUnit.DAYS);
            } catch (InterruptedException e) {
                if (!interrupted) {
                    shutdownNow();
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The queue of pending tasks.
     *
     * @return a view of the wheel whose iterator and {@code toArray} are snapshots in no
     *     particular order; see the class caveats
     */
    @Override
    public BlockingQueue<Runnable> getQueue() {
        return super.getQueue();
    }

    /**
     * As {@link ScheduledThreadPoolExecutor#setContinueExistingPeriodicTasksAfterShutdownPolicy}:
     * whether periodic tasks go on after {@link #shutdown()} (default false). Setting it to false
     * after shutdown cancels them at once.
     *
     * @param value true to keep periodic tasks running after shutdown
     */
    public void setContinueExistingPeriodicTasksAfterShutdownPolicy(boolean value) {
        continueExistingPeriodicTasksAfterShutdown = value;
        if (!value && isShutdown()) {
            cancelTasksNotAllowedAfterShutdown();
        }
    }

    /**
     * See {@link #setContinueExistingPeriodicTasksAfterShutdownPolicy}.
     *
     * @return true if periodic tasks go on after shutdown
     */
    public boolean getContinueExistingPeriodicTasksAfterShutdownPolicy() {
        return continueExistingPeriodicTasksAfterShutdown;
    }

    /**
     * As {@link ScheduledThreadPoolExecutor#setExecuteExistingDelayedTasksAfterShutdownPolicy}:
     * whether one-shot tasks still run after {@link #shutdown()} when their delay ends (default
     * true). Setting it to false after shutdown cancels those not yet due at once.
     *
     * @param value true to run delayed tasks after shutdown
     */
    public void setExecuteExistingDelayedTasksAfterShutdownPolicy(boolean value) {
        executeExistingDelayedTasksAfterShutdown = value;
        if (!value && isShutdown()) {
            cancelTasksNotAllowedAfterShutdown();
        }
    }

    /**
     * See {@link #setExecuteExistingDelayedTasksAfterShutdownPolicy}.
     *
     * @return true if delayed tasks still run after shutdown
     */
    public boolean getExecuteExistingDelayedTasksAfterShutdownPolicy() {
        return executeExistingDelayedTasksAfterShutdown;
    }

    /**
     * Whether a cancelled task is unlinked from the wheel at once (true) or stays until its
     * deadline, or a {@link #purge()}, and is then discarded (false). The default is the
     * JDK's, false, for an executor made by a constructor, and true for one made by the
     * {@linkplain #builder() builder} unless {@link Builder#removeOnCancel} says otherwise.
     *
     * @param value true to unlink cancelled tasks at once
     */
    public void setRemoveOnCancelPolicy(boolean value) {
        removeOnCancel = value;
    }

    /**
     * See {@link #setRemoveOnCancelPolicy}.
     *
     * @return true if cancelled tasks are unlinked at once
     */
    public boolean getRemoveOnCancelPolicy() {
        return removeOnCancel;
    }

    /**
     * What fixed-rate tasks scheduled with {@link #scheduleAtFixedRate(Runnable, long, long,
     * TimeUnit)} do after missed runs; set in the {@linkplain Builder#missedRunPolicy builder}.
     *
     * @return the executor's missed-run policy
     */
    public MissedRunPolicy getMissedRunPolicy() {
        return missedRunPolicy;
    }

    /**
     * Settings beyond the constructors'. Every setter checks its argument at once; everything
     * has a default: one worker per available processor, the default {@link WheelShape}
     * (1 ms tick), {@link System#nanoTime()}, non-daemon threads of normal priority named
     * {@code timingwheel-N-worker-M}, the abort policy, bodies run on the workers, cancelled
     * tasks released at once (unlike the constructors, which keep the JDK's default).
     */
    public static final class Builder {
        private static final AtomicInteger POOLS =
                new AtomicInteger();

        private int workers = Runtime.getRuntime().availableProcessors();
        private WheelShape shape = WheelShape.defaults();
        private TimeSource timeSource = TimeSource.system();
        private ThreadFactory threadFactory;
        private boolean daemon;
        private String threadNamePrefix;
        private RejectedExecutionHandler handler = new AbortPolicy();
        private Executor taskExecutor;
        private boolean removeOnCancel = true;
        private int shards = WheelWorkQueue.defaultShardCount();
        private long maxPendingTasks;
        private String name;
        private MissedRunPolicy missedRunPolicy = MissedRunPolicy.CATCH_UP;
        private long lateTaskEventThresholdNanos = -1L;
        private long longTaskEventThresholdNanos = -1L;
        private boolean rejectionEvents;
        private long toleranceNanos;

        private Builder() {
        }

        /**
         * How late a task may start, so that the workers may wake once for tasks due close
         * together (Linux's timer slack, {@code NSTimer.tolerance}): a task starts between a
         * quarter and a half of the tolerance after its deadline, and the tasks due within a
         * quarter of it share one wake-up; the other half is left for the machine's wake-up
         * latency. Tasks are never started early, whatever the tolerance; a busy machine may
         * still start them later than it. Default 0: as soon as a task is due, as
         * {@code ScheduledThreadPoolExecutor} does.
         *
         * @param tolerance how much later than its deadline a task may start
         * @param unit the unit of {@code tolerance}
         * @return this builder
         * @throws NullPointerException if {@code unit} is null
         * @throws IllegalArgumentException if {@code tolerance} is negative
         */
        public Builder tolerance(long tolerance, TimeUnit unit) {
            Objects.requireNonNull(unit, "unit");
            this.toleranceNanos = WheelWorkQueue.toleranceNanos(tolerance, unit);
            return this;
        }

        /**
         * A name for the executor, shown in its {@linkplain WheelScheduledExecutor#metrics()
         * metrics} and events; without a {@link #threadNamePrefix}, workers are named
         * {@code name-worker-M}. Default: {@code timingwheel-N}, N counting executors.
         *
         * @param name the executor's name
         * @return this builder
         * @throws NullPointerException if {@code name} is null
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * The number of worker threads, the core pool size (default: available processors).
         *
         * <p>One worker runs the due tasks while it makes progress; another takes over only when a
         * body has held it, or the operating system has descheduled it, for about 4 ms with work
         * waiting (see the package's design notes). So workers beyond the first keep
         * due tasks running while bodies block, and stay parked but for one, which looks about
         * every 4 ms while tasks are due. The default is sized as JDK pools usually are, for
         * bodies of any length, blocking ones included. On a 2-core machine, a million short
         * timers due within a second fired their last within 0.1 ms of the last deadline with
         * two workers as with one, in every round; at the 99th percentile one worker was as
         * prompt as two or more so, and two did better only where threads spinning beside
         * them oversubscribed the cores (docs/performance.md). {@code workers(1)} suits
         * timeouts, whose bodies are short, and spares the watching worker's wake-ups.
         *
         * @param workers the number of worker threads; with 0, one starts when a task is queued
         *     and leaves when idle, as in the JDK
         * @return this builder
         * @throws IllegalArgumentException if {@code workers < 0}
         */
        public Builder workers(int workers) {
            if (workers < 0) {
                throw new IllegalArgumentException("workers must not be negative: " + workers);
            }
            this.workers = workers;
            return this;
        }

        /**
         * The geometry of the wheel, including its tick (default {@link WheelShape#defaults()});
         * replaces {@link #tick}.
         *
         * @param shape the wheel's levels, slots and tick
         * @return this builder
         * @throws NullPointerException if {@code shape} is null
         */
        public Builder shape(WheelShape shape) {
            this.shape = Objects.requireNonNull(shape, "shape");
            return this;
        }

        /**
         * The width of a slot of the wheel's finest level (default 1 ms), the wheel otherwise of
         * the default geometry; replaces {@link #shape}. A bucketing unit, not a sleep unit: due
         * tasks are handed out at their deadline, not at a tick boundary.
         *
         * @param tick the width of a level-0 slot
         * @param unit the unit of {@code tick}
         * @return this builder
         * @throws NullPointerException if {@code unit} is null
         * @throws IllegalArgumentException if {@code tick} is not positive
         */
        public Builder tick(long tick, TimeUnit unit) {
            this.shape = WheelShape.builder().tick(tick, unit).build();
            return this;
        }

        /**
         * Where time comes from (default {@link TimeSource#system()}).
         *
         * @param timeSource the monotonic clock deadlines are measured on
         * @return this builder
         * @throws NullPointerException if {@code timeSource} is null
         */
        public Builder timeSource(TimeSource timeSource) {
            this.timeSource = Objects.requireNonNull(timeSource, "timeSource");
            return this;
        }

        /**
         * Makes the workers; replaces the name and daemon settings.
         *
         * @param threadFactory makes the worker threads
         * @return this builder
         * @throws NullPointerException if {@code threadFactory} is null
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            return this;
        }

        /**
         * Whether the default thread factory makes daemon threads (default false).
         *
         * @param daemon true for daemon workers
         * @return this builder
         */
        public Builder daemon(boolean daemon) {
            this.daemon = daemon;
            return this;
        }

        /**
         * The prefix of worker names from the default thread factory; a number follows it
         * (default: the executor's {@linkplain #name name} and {@code -worker-}). The name
         * names the executor, in metrics and events; this names its threads.
         *
         * @param threadNamePrefix the start of each worker's name
         * @return this builder
         * @throws NullPointerException if {@code threadNamePrefix} is null
         */
        public Builder threadNamePrefix(String threadNamePrefix) {
            this.threadNamePrefix = Objects.requireNonNull(threadNamePrefix, "threadNamePrefix");
            return this;
        }

        /**
         * What to do with tasks submitted after shutdown (default: throw, the abort policy).
         *
         * @param handler the rejection handler
         * @return this builder
         * @throws NullPointerException if {@code handler} is null
         */
        public Builder rejectedExecutionHandler(RejectedExecutionHandler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * Runs task bodies on {@code taskExecutor} instead of the worker (for example a
         * virtual-thread executor), so that a blocking task does not hold a worker. If it
         * rejects a body, that task completes exceptionally with the rejection.
         * {@code shutdownNow()} interrupts the bodies running there, as it interrupts the
         * workers, and a body that starts there afterwards starts interrupted; but the
         * executor terminates when its workers have ended, without waiting for bodies still
         * running there: wait for those through {@code taskExecutor} itself.
         *
         * @param taskExecutor where task bodies run
         * @return this builder
         * @throws NullPointerException if {@code taskExecutor} is null
         */
        public Builder taskExecutor(Executor taskExecutor) {
            this.taskExecutor = Objects.requireNonNull(taskExecutor, "taskExecutor");
            return this;
        }

        /**
         * See {@link WheelScheduledExecutor#setRemoveOnCancelPolicy} (default true here; the
         * constructors, as the JDK's, default to false).
         *
         * @param removeOnCancel true to unlink cancelled tasks at once
         * @return this builder
         */
        public Builder removeOnCancel(boolean removeOnCancel) {
            this.removeOnCancel = removeOnCancel;
            return this;
        }

        /**
         * How many timing wheels the executor spreads its tasks over. Each wheel has its own lock;
         * the thread that schedules or cancels a task links or unlinks it in its wheel itself,
         * and a thread keeps to one wheel until it meets another there, so more wheels let more
         * threads schedule and cancel at once without meeting. Due tasks come out of all wheels
         * in one deadline-then-submission order. The default is four per processor, rounded down
         * to a power of two (at most 64): twice the threads a server commonly schedules from, so
         * that a thread that moves finds a wheel of its own. Each wheel costs memory (its slots
         * and a staging ring of 2,048 references); 1 puts every task in one wheel.
         *
         * @param shards a power of two from 1 to 64
         * @return this builder
         * @throws IllegalArgumentException if {@code shards} is not a power of two from 1 to 64
         */
        public Builder shards(int shards) {
            if (shards <= 0 || shards > WheelShard.MAX_SHARDS || Integer.bitCount(shards) != 1) {
                throw new IllegalArgumentException("shards must be a power of two from 1 to "
                        + WheelShard.MAX_SHARDS + ": " + shards);
            }
            this.shards = shards;
            return this;
        }

        /**
         * The most tasks that may be accepted and not yet finished (a periodic task counts until
         * it is cancelled or fails); past it, {@code schedule}, {@code execute} and
         * {@code submit} throw {@link RejectedExecutionException}, so that a flood of timers
         * fails cleanly before the heap does. 0 or negative: no bound (the default).
         *
         * @param maxPendingTasks the bound, or 0 for none
         * @return this builder
         */
        public Builder maxPendingTasks(long maxPendingTasks) {
            this.maxPendingTasks = Math.max(0L, maxPendingTasks);
            return this;
        }

        /**
         * What fixed-rate tasks scheduled through the {@link ScheduledExecutorService} interface
         * do after missed runs (default {@link MissedRunPolicy#CATCH_UP}, the JDK's behaviour);
         * a task may choose its own with
         * {@link WheelScheduledExecutor#scheduleAtFixedRate(Runnable, long, long, TimeUnit, MissedRunPolicy)}.
         *
         * @param missedRunPolicy the executor's default missed-run policy
         * @return this builder
         * @throws NullPointerException if {@code missedRunPolicy} is null
         */
        public Builder missedRunPolicy(MissedRunPolicy missedRunPolicy) {
            this.missedRunPolicy = Objects.requireNonNull(missedRunPolicy, "missedRunPolicy");
            return this;
        }

        /**
         * Records a JDK Flight Recorder event {@code io.github.timingwheel.TaskLate} for every run
         * that starts {@code threshold} or more after its deadline, as measured on the time
         * source (0: every run). Off by default; when off it costs nothing. A recording must be
         * running for the events to be kept, for example
         * {@code jcmd <pid> JFR.start name=timers filename=timers.jfr}.
         *
         * @param threshold the lateness from which a run is recorded
         * @param unit the unit of {@code threshold}
         * @return this builder
         * @throws NullPointerException if {@code unit} is null
         * @throws IllegalArgumentException if {@code threshold} is negative
         */
        public Builder lateTaskEventThreshold(long threshold, TimeUnit unit) {
            this.lateTaskEventThresholdNanos = thresholdNanos(threshold, unit);
            return this;
        }

        /**
         * Records a JDK Flight Recorder event {@code io.github.timingwheel.TaskRanLong} for every
         * run that takes {@code threshold} or more, as measured on the time source (0: every
         * run). Off by default; when on, each run reads the clock once more.
         *
         * @param threshold the run time from which a run is recorded
         * @param unit the unit of {@code threshold}
         * @return this builder
         * @throws NullPointerException if {@code unit} is null
         * @throws IllegalArgumentException if {@code threshold} is negative
         */
        public Builder longTaskEventThreshold(long threshold, TimeUnit unit) {
            this.longTaskEventThresholdNanos = thresholdNanos(threshold, unit);
            return this;
        }

        /**
         * Whether refused tasks (after shutdown, past {@link #maxPendingTasks}, or refused by
         * the {@link #taskExecutor}) are recorded as JDK Flight Recorder events
         * {@code io.github.timingwheel.TaskRejected}, with the stack of the thread that submitted
         * them. Off by default.
         *
         * @param rejectionEvents true to record refused tasks
         * @return this builder
         */
        public Builder rejectionEvents(boolean rejectionEvents) {
            this.rejectionEvents = rejectionEvents;
            return this;
        }

        private static long thresholdNanos(long threshold, TimeUnit unit) {
            Objects.requireNonNull(unit, "unit");
            if (threshold < 0L) {
                throw new IllegalArgumentException("threshold must not be negative: " + threshold);
            }
            return unit.toNanos(threshold);
        }

        /**
         * Makes the executor; its workers start as tasks come, as the JDK's do. The builder may
         * be used again.
         *
         * @return a new executor with these settings
         */
        public WheelScheduledExecutor build() {
            return new WheelScheduledExecutor(this);
        }

        /** The name set, or a new default one (each call counts an executor). */
        String nameOrDefault() {
            return name != null ? name : "timingwheel-" + POOLS.incrementAndGet();
        }

        ThreadFactory threadFactory(String executorName) {
            if (threadFactory != null) {
                return threadFactory;
            }
            String prefix = threadNamePrefix != null ? threadNamePrefix : executorName + "-worker-";
            boolean makeDaemons = daemon;
            AtomicInteger threads = new AtomicInteger();
            return runnable -> {
                Thread thread = new Thread(runnable, prefix + threads.incrementAndGet());
                thread.setDaemon(makeDaemons);
                // As Executors.defaultThreadFactory: not the priority of whoever starts it.
                thread.setPriority(Thread.NORM_PRIORITY);
                return thread;
            };
        }
    }
}
