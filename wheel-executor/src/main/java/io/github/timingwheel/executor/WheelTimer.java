package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimeSource;
import io.github.timingwheel.core.WheelShape;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.Collections;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Netty {@link Timer} on the same engine as {@link WheelScheduledExecutor}: a drop-in
 * replacement for {@code HashedWheelTimer} whose timeouts fire within a set
 * {@linkplain Builder#tolerance tolerance} of their deadline, never early (by default 2 ms: a
 * timeout is handed out no sooner than 0.5 ms after its deadline and its wake-up is planned for
 * no later than 1 ms after it, so it is at least as late as a 1 ms tick would make it, which
 * clients written for {@code HashedWheelTimer} expect; the machine's wake-up latency comes on
 * top), in deadline order, from one or more workers, and whose cancelled
 * timeouts are unlinked at once instead of at their deadline.
 *
 * <p>Behaviour, as {@code HashedWheelTimer} defines it:
 * <ul>
 *   <li>{@link #newTimeout}: null task or unit throws {@link NullPointerException}; after
 *       {@link #stop()} it throws {@link IllegalStateException}; past
 *       {@linkplain Builder#maxPendingTimeouts the bound} it throws
 *       {@link RejectedExecutionException}. Any delay, up to {@link Long#MAX_VALUE} in any unit,
 *       without overflow; a negative delay means now.
 *   <li>{@link Timeout#cancel()} returns true once, only for a pending timeout, and calls
 *       {@link TimerTask#cancelled(Timeout)} on the cancelling thread (Netty 4.2; with Netty
 *       4.1, which has no such method, nothing is called).
 *   <li>A task that throws is logged, and the timer goes on.
 *   <li>{@link #stop()} releases the threads and returns the timeouts that never ran, each
 *       already cancelled; called from a timer task it throws {@link IllegalStateException}.
 * </ul>
 *
 * <p>Unlike {@code HashedWheelTimer}, nothing ticks: an idle timer's threads park untimed, so a
 * 1 ms tick costs no CPU while nothing is due. And it can be watched: {@link #metrics()} says
 * how many timeouts are pending, how many fired, failed or were cancelled, and how late they
 * fired.
 */
public final class WheelTimer implements Timer, AutoCloseable {

    static final InternalLogger LOGGER = InternalLoggerFactory.getInstance(WheelTimer.class);
    /** Numbers the default names of timers. */
    private static final AtomicInteger TIMERS = new AtomicInteger();

    private final WheelScheduledExecutor engine;
    /** Bound on pending timeouts, or 0 for none. */
    private final long maxPendingTimeouts;
    /** Pending timeouts, counted only when bounded (the count is a shared write per timeout). */
    private final AtomicLong pendingCount = new AtomicLong();
    /** Where task bodies run; null for the worker. */
    private final Executor taskExecutor;
    /** The engine's worker threads, so that stop() can refuse to be called from one. */
    private final Set<Thread> workers = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean stopped = new AtomicBoolean();

    /**
     * A timer with one worker, a 1 ms tick and the default {@linkplain Builder#tolerance
     * tolerance} of {@value Builder#DEFAULT_TOLERANCE_MILLIS} ms, as {@code new HashedWheelTimer()}
     * has one thread and a 1 ms tick.
     */
    public WheelTimer() {
        this(builder());
    }

    private WheelTimer(Builder builder) {
        String name = builder.name != null ? builder.name : "wheel-timer-" + TIMERS.incrementAndGet();
        ThreadFactory factory = builder.engine.threadFactory(name);
        this.engine = builder.engine
                .name(name)
                .threadFactory(runnable -> {
                    Thread thread = factory.newThread(runnable);
                    if (thread != null) {
                        workers.add(thread);
                    }
                    return thread;
                })
                .build();
        this.maxPendingTimeouts = builder.maxPendingTimeouts;
        this.taskExecutor = builder.taskExecutor;
    }

    /**
     * Settings for a timer beyond {@code new WheelTimer()}'s: workers, tick, a bound on pending
     * timeouts, thread naming, flight recorder events. For example:
     *
     * <pre>{@code
     * WheelTimer timer = WheelTimer.builder()
     *         .name("client-timeouts")
     *         .maxPendingTimeouts(1_000_000)
     *         .build();
     * }</pre>
     *
     * @return a new builder with every setting at its default (see {@link Builder})
     */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(unit, "unit");
        return start(engine.queue().place(new WheelTimeout(this, task), unit.toNanos(delay)));
    }

    /**
     * A timeout that runs {@code task} once {@code timeout} passes without a
     * {@link Rearmable#touch() touch}: an idle or read timeout that every event pushes back, at
     * the cost of one CAS per touch and no new timeout. See {@link Rearmable} for what it
     * guarantees and what moving the deadline earlier costs.
     *
     * @param task the task to run when the timeout passes
     * @param timeout the time without a touch after which it runs; negative means 0
     * @param unit the unit of {@code timeout}
     * @return the handle, a Netty {@link Timeout} too
     * @throws NullPointerException if {@code task} or {@code unit} is null
     * @throws IllegalStateException if the timer was stopped
     * @throws RejectedExecutionException past {@link Builder#maxPendingTimeouts}
     */
    public RearmableTimeout newRearmableTimeout(TimerTask task, long timeout, TimeUnit unit) {
        return newRearmableTimeout(task, timeout, 0L, unit);
    }

    /**
     * As {@link #newRearmableTimeout(TimerTask, long, TimeUnit)}, with a tolerance of its own:
     * how much later than its deadline the timeout may fire, on top of the timer's
     * {@link Builder#tolerance(long, TimeUnit) tolerance}. It is placed in the wheel at its
     * deadline rounded up to the largest power of two of nanoseconds not above
     * {@code tolerance}, so that timeouts whose deadlines fall within one such grain share a
     * wake-up; it never fires before its deadline, and the rounding makes it at most
     * {@code tolerance} late. See {@link WheelScheduledExecutor#scheduleRearmable(Runnable, long,
     * long, TimeUnit)}.
     *
     * @param task the task to run when the timeout passes
     * @param timeout the time without a touch after which it runs; negative means 0
     * @param tolerance how late it may fire, in {@code unit}; not negative
     * @param unit the unit of {@code timeout} and {@code tolerance}
     * @return the handle, a Netty {@link Timeout} too
     * @throws NullPointerException if {@code task} or {@code unit} is null
     * @throws IllegalArgumentException if {@code tolerance} is negative
     * @throws IllegalStateException if the timer was stopped
     * @throws RejectedExecutionException past {@link Builder#maxPendingTimeouts}
     */
    public RearmableTimeout newRearmableTimeout(TimerTask task, long timeout, long tolerance, TimeUnit unit) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(unit, "unit");
        long timeoutNanos = Math.max(0L, unit.toNanos(timeout));
        long toleranceNanos = WheelWorkQueue.toleranceNanos(tolerance, unit);
        return start(engine.queue().place(new RearmableWheelTimeout(this, task, timeoutNanos, toleranceNanos),
                timeoutNanos));
    }

    /**
     * A new group of timeouts on this timer, which tracks its pending timeouts and cancels them
     * all in one {@link TimeoutGroup#stop()}: the timeouts of one connection. See
     * {@link TimeoutGroup}.
     *
     * @throws IllegalStateException if the timer was stopped, as {@link #newTimeout} then throws
     */
    public TimeoutGroup newGroup() {
        return new TimeoutGroup(requireNotStopped(), false);
    }

    /**
     * A new serial group: as {@link #newGroup()}, and its timeouts never fire at the same time
     * and fire in deadline-then-submission order. See {@link TimeoutGroup}.
     *
     * @throws IllegalStateException if the timer was stopped, as {@link #newTimeout} then throws
     */
    public TimeoutGroup newSerialGroup() {
        return new TimeoutGroup(requireNotStopped(), true);
    }

    /** A group made on a stopped timer could start nothing: refused as a timeout would be. */
    private WheelTimer requireNotStopped() {
        if (stopped.get()) {
            throw new IllegalStateException("cannot be started once stopped");
        }
        return this;
    }

    /**
     * Whether {@link #stop()} (or {@link #close()}) was called: from then on no timeout fires
     * and {@link #newTimeout} throws {@link IllegalStateException}.
     */
    public boolean isStopped() {
        return stopped.get();
    }

    /** Counts and queues a new timeout; groups call it too. */
    <T extends WheelTimeout> T start(T timeout) {
        TaskCounters counters = engine.counters();
        reserve(timeout.task(), counters);
        if (!engine.offerTask(timeout)) { // counts it as scheduled, or not at all if it refuses
            uncount();
            counters.refused();
            engine.eventRejected(timeout.task(), "stopped");
            throw new IllegalStateException("cannot be started once stopped");
        }
        return timeout;
    }

    private void reserve(TimerTask task, TaskCounters counters) {
        if (maxPendingTimeouts > 0) {
            long pending = pendingCount.incrementAndGet();
            if (pending > maxPendingTimeouts) {
                pendingCount.decrementAndGet();
                counters.refused();
                engine.eventRejected(task, "maxPendingTimeouts");
                throw new RejectedExecutionException("Number of pending timeouts (" + pending
                        + ") is greater than or equal to maximum allowed pending timeouts ("
                        + maxPendingTimeouts + ")");
            }
        }
    }

    /**
     * Stops the timer: interrupts the workers, waits for them to end, and returns the timeouts
     * that never ran, each cancelled by this call. Later calls return an empty set.
     *
     * @throws IllegalStateException if called from a worker of this timer
     */
    @Override
    public Set<Timeout> stop() {
        if (workers.contains(Thread.currentThread())) {
            throw new IllegalStateException(
                    WheelTimer.class.getSimpleName() + ".stop() cannot be called from " + TimerTask.class.getSimpleName());
        }
        if (!stopped.compareAndSet(false, true)) {
            return Collections.emptySet();
        }
        Set<Timeout> cancelled = new HashSet<>();
        for (Runnable unprocessed : engine.shutdownNow()) {
            if (unprocessed instanceof WheelTimeout timeout && timeout.cancel()) {
                cancelled.add(timeout);
            }
        }
        awaitWorkers();
        return cancelled;
    }

    /**
     * Stops the timer as {@link #stop()} does, so that {@code try (WheelTimer timer = ...)}
     * releases its threads when the block ends: the timeouts that never ran are cancelled (and
     * not returned; call {@link #stop()} to have them). Does nothing if the timer has stopped.
     *
     * @throws IllegalStateException if called from a worker of this timer
     */
    @Override
    public void close() {
        stop();
    }

    private void awaitWorkers() {
        boolean interrupted = false;
        while (!engine.isTerminated()) {
            try {
                engine.awaitTermination(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The number of timeouts that are pending: scheduled, and neither fired nor cancelled. Exact
     * when a bound is set; otherwise read from the wheel (which takes its lock briefly). For a
     * reading that takes no lock, see {@link #metrics()}.
     */
    public long pendingTimeouts() {
        return maxPendingTimeouts > 0 ? pendingCount.get() : engine.getQueue().size();
    }

    /**
     * What this timer's timeouts did so far, read without a lock: pending (scheduled, not yet
     * fired to the end or cancelled), scheduled, ran, failed (the task threw; it was logged),
     * cancelled, rejected, running, and how late they fired; see {@link SchedulerMetrics}.
     */
    public SchedulerMetrics metrics() {
        return engine.metrics();
    }

    /** The engine; for tests of its idle behaviour. */
    WheelScheduledExecutor engine() {
        return engine;
    }

    // ---------------------------------------------------------------------------------------
    // Called by WheelTimeout.

    void expired(WheelTimeout timeout) {
        uncount();
        if (taskExecutor == null) {
            timeout.fire();
        } else {
            runOnTaskThread(timeout::fire, timeout.task());
        }
    }

    /** A serial group fires a timeout it claimed, on the thread that drains the group. */
    void expiredHere(WheelTimeout timeout) {
        uncount();
        timeout.fire();
    }

    /**
     * Runs {@code work} where timer tasks run: here, or on the task executor.
     *
     * @param named what a rejection event names: the timer task, or the work itself
     */
    void runOnTaskThread(Runnable work, Object named) {
        Executor executor = taskExecutor;
        if (executor == null) {
            work.run();
            return;
        }
        try {
            executor.execute(work);
        } catch (Throwable failure) {
            engine.counters().refusedRun();
            engine.eventRejected(named, "taskExecutor");
            LOGGER.warn("An exception was thrown while submitting TimerTask for execution.", failure);
        }
    }

    /** The running thread's counter cell, looked up once for the counts of one run. */
    long[] runCell() {
        return engine.counters().runCell();
    }

    /** Called on the thread that runs a timeout's task, just before it; see the engine's. */
    long runStarted(WheelTimeout timeout, TimerTask task, long[] cell) {
        return engine.runStarted(timeout, task, cell);
    }

    /** Called after a timeout's task returned ({@code failure} null) or threw. */
    void runEnded(WheelTimeout timeout, TimerTask task, long startedAt, Throwable failure, long[] cell) {
        engine.runEnded(timeout, task, startedAt, failure != null, cell);
        if (failure == null) {
            engine.counters().completed(cell);
        } else {
            engine.counters().failed();
        }
    }

    /** Called once for a timeout whose cancel won. */
    void released(WheelTimeout timeout) {
        uncount();
        engine.releaseCancelled(timeout); // counts the cancel
    }

    /**
     * Moves a re-armable timeout whose deadline moved earlier, or links one again that was
     * touched after it was handed out (WheelWorkQueue [3]). A timer that has stopped never fires
     * it: it is cancelled instead.
     */
    void movedEarlier(RearmableWheelTimeout timeout) {
        engine.queue().movedEarlier(timeout);
        if (engine.isShutdown()) {
            timeout.cancel();
        }
    }

    long wheelNow() {
        return engine.wheelNow();
    }

    long deadlineAfter(long delayNanos) {
        return engine.deadlineAfter(delayNanos);
    }

    boolean usesQueue(WheelWorkQueue queue) {
        return engine.queue() == queue;
    }

    long nanosUntil(long deadline) {
        return deadline - engine.wheelNow();
    }

    private void uncount() {
        if (maxPendingTimeouts > 0) {
            pendingCount.decrementAndGet();
        }
    }

    @Override
    public String toString() {
        return "WheelTimer[" + engine.name() + ", " + (stopped.get() ? "stopped" : "running") + ", workers="
                + engine.getCorePoolSize() + "]";
    }

    /**
     * Settings for a {@link WheelTimer}. Defaults: one worker, a tolerance of
     * {@value #DEFAULT_TOLERANCE_MILLIS} ms, a 1 ms tick in the default {@link WheelShape},
     * {@link System#nanoTime()}, non-daemon threads named after the timer, no bound on pending
     * timeouts, tasks run on the worker.
     */
    public static final class Builder {
        /** The default {@link #tolerance}, in milliseconds. */
        public static final long DEFAULT_TOLERANCE_MILLIS = 2L;

        private final WheelScheduledExecutor.Builder engine = WheelScheduledExecutor.builder().workers(1);
        private long maxPendingTimeouts;
        private Executor taskExecutor;
        private String name;

        private Builder() {
            engine.tolerance(DEFAULT_TOLERANCE_MILLIS, TimeUnit.MILLISECONDS);
        }

        /**
         * How late a timeout may fire, so that the worker wakes once for timeouts due close
         * together (see {@link WheelScheduledExecutor.Builder#tolerance}); never early.
         * Default {@value #DEFAULT_TOLERANCE_MILLIS} ms: the worker takes a timeout no sooner
         * than 0.5 ms after its deadline and plans to wake for it by 1 ms (a quarter and a half
         * of the tolerance), besides the machine's wake-up latency. That is what a drop-in for {@code HashedWheelTimer} needs: clients that
         * compare a millisecond clock with their last activity when a timeout fires, and arm a
         * new timeout for the whole period if any millisecond is left (AsyncHttpClient's read
         * timeout does), re-arm for a whole period when a timer fires within the millisecond
         * of its deadline, which an exact timer often does and one that fires a tick late
         * never does. 0 fires as soon as a timeout is due.
         *
         * @param tolerance how much later than its deadline a timeout may fire
         * @param unit the unit of {@code tolerance}
         * @return this builder
         * @throws NullPointerException if {@code unit} is null
         * @throws IllegalArgumentException if {@code tolerance} is negative
         */
        public Builder tolerance(long tolerance, TimeUnit unit) {
            engine.tolerance(tolerance, unit);
            return this;
        }

        /**
         * A name for the timer, shown in its {@linkplain WheelTimer#metrics() metrics} and events
         * (default: {@code wheel-timer-N}, N counting timers).
         *
         * @param name the timer's name
         * @return this builder
         * @throws NullPointerException if {@code name} is null
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * The number of worker threads (default 1, as {@code HashedWheelTimer} has one). The
         * wheel work of {@code newTimeout} and {@code cancel} is done on the calling threads,
         * so workers only run timer tasks: more than one helps only when tasks take long.
         *
         * <p>0 is refused. The executor's builder takes 0, with the meaning of the JDK's
         * {@code ScheduledThreadPoolExecutor(0)} (a worker starts when a task is queued and leaves
         * when idle); a Netty {@code Timer} has no such mode, and a timer's worker would then
         * start and stop with every burst of timeouts.
         *
         * @param workers the number of worker threads
         * @return this builder
         * @throws IllegalArgumentException if {@code workers < 1}
         */
        public Builder workers(int workers) {
            if (workers < 1) {
                throw new IllegalArgumentException("workers must be positive: " + workers);
            }
            engine.workers(workers);
            return this;
        }

        /**
         * How many timing wheels the timer spreads its timeouts over, each with its own lock, so
         * that threads that arm and cancel timeouts at once rarely meet (default: four per
         * processor, rounded down to a power of two, at most 64).
         *
         * @param shards a power of two from 1 to 64
         * @return this builder
         * @throws IllegalArgumentException if {@code shards} is not a power of two from 1 to 64
         * @see WheelScheduledExecutor.Builder#shards
         */
        public Builder shards(int shards) {
            engine.shards(shards);
            return this;
        }

        /**
         * The width of a slot of the wheel's finest level (default 1 ms): a bucketing unit, not
         * a sleep unit. Timeouts fire at their deadline, not at a tick boundary, and an idle
         * timer does not tick, so unlike {@code HashedWheelTimer}'s tick it sets neither
         * precision nor idle cost. Replaces {@link #shape} with the default geometry at this
         * tick.
         *
         * @param tick the width of a level-0 slot
         * @param unit the unit of {@code tick}
         * @return this builder
         * @throws NullPointerException if {@code unit} is null
         * @throws IllegalArgumentException if {@code tick} is not positive
         * @see WheelScheduledExecutor.Builder#tick
         */
        public Builder tick(long tick, TimeUnit unit) {
            engine.tick(tick, unit);
            return this;
        }

        /**
         * The geometry of the wheel: levels, slots per level and tick (default
         * {@link WheelShape#defaults()}); replaces {@link #tick}.
         *
         * @param shape the wheel's levels, slots and tick
         * @return this builder
         * @throws NullPointerException if {@code shape} is null
         */
        public Builder shape(WheelShape shape) {
            engine.shape(shape);
            return this;
        }

        /**
         * The monotonic clock deadlines are measured on (default {@link TimeSource#system()},
         * {@link System#nanoTime()}); tests pass a {@link io.github.timingwheel.core.ManualTimeSource}.
         *
         * @param timeSource the clock
         * @return this builder
         * @throws NullPointerException if {@code timeSource} is null
         */
        public Builder timeSource(TimeSource timeSource) {
            engine.timeSource(timeSource);
            return this;
        }

        /**
         * Makes the worker threads; replaces the {@link #daemon} and {@link #threadNamePrefix}
         * settings.
         *
         * @param threadFactory makes the worker threads
         * @return this builder
         * @throws NullPointerException if {@code threadFactory} is null
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            engine.threadFactory(threadFactory);
            return this;
        }

        /**
         * Whether the workers are daemon threads (default false: as with
         * {@code HashedWheelTimer}, a timer that is not stopped keeps the JVM alive).
         *
         * @param daemon true for daemon workers
         * @return this builder
         */
        public Builder daemon(boolean daemon) {
            engine.daemon(daemon);
            return this;
        }

        /**
         * The start of each worker's name, a number follows it (default: the timer's
         * {@linkplain #name name} and {@code -worker-}, as in {@code wheel-timer-1-worker-1}).
         *
         * @param threadNamePrefix the start of each worker's name
         * @return this builder
         * @throws NullPointerException if {@code threadNamePrefix} is null
         */
        public Builder threadNamePrefix(String threadNamePrefix) {
            engine.threadNamePrefix(threadNamePrefix);
            return this;
        }

        /**
         * The most timeouts that may be pending; {@code newTimeout} beyond it throws
         * {@link RejectedExecutionException}, as {@code HashedWheelTimer}'s does.
         *
         * @param maxPendingTimeouts the bound; 0 or negative: no bound (the default)
         * @return this builder
         */
        public Builder maxPendingTimeouts(long maxPendingTimeouts) {
            this.maxPendingTimeouts = Math.max(0L, maxPendingTimeouts);
            return this;
        }

        /**
         * Records a JDK Flight Recorder event {@code io.github.timingwheel.TaskLate} for every
         * timeout whose task starts {@code threshold} or more after its deadline (0: every
         * one). Off by default, and free when off.
         *
         * @param threshold the lateness from which a start is recorded
         * @param unit the unit of {@code threshold}
         * @return this builder
         * @throws NullPointerException if {@code unit} is null
         * @throws IllegalArgumentException if {@code threshold} is negative
         * @see WheelScheduledExecutor.Builder#lateTaskEventThreshold
         */
        public Builder lateTaskEventThreshold(long threshold, TimeUnit unit) {
            engine.lateTaskEventThreshold(threshold, unit);
            return this;
        }

        /**
         * Records a JDK Flight Recorder event {@code io.github.timingwheel.TaskRanLong} for every
         * timer task that runs {@code threshold} or more (0: every one). Off by default; when
         * on, each run reads the clock once more.
         *
         * @param threshold the run time from which a run is recorded
         * @param unit the unit of {@code threshold}
         * @return this builder
         * @throws NullPointerException if {@code unit} is null
         * @throws IllegalArgumentException if {@code threshold} is negative
         * @see WheelScheduledExecutor.Builder#longTaskEventThreshold
         */
        public Builder longTaskEventThreshold(long threshold, TimeUnit unit) {
            engine.longTaskEventThreshold(threshold, unit);
            return this;
        }

        /**
         * Whether refused timeouts (past {@link #maxPendingTimeouts}, after {@link #stop()}, or
         * refused by the task executor) are recorded as {@code io.github.timingwheel.TaskRejected}
         * events; see {@link WheelScheduledExecutor.Builder#rejectionEvents}. Off by default.
         *
         * @param rejectionEvents true to record refused timeouts
         * @return this builder
         */
        public Builder rejectionEvents(boolean rejectionEvents) {
            engine.rejectionEvents(rejectionEvents);
            return this;
        }

        /**
         * Runs timer tasks on {@code taskExecutor} instead of the worker (for example a
         * virtual-thread executor), so that a task that blocks does not hold up the timeouts
         * behind it.
         *
         * @param taskExecutor where timer tasks run
         * @return this builder
         * @throws NullPointerException if {@code taskExecutor} is null
         */
        public Builder taskExecutor(Executor taskExecutor) {
            this.taskExecutor = Objects.requireNonNull(taskExecutor, "taskExecutor");
            return this;
        }

        /**
         * Makes a timer with these settings. Stop it with {@link WheelTimer#stop()} or
         * {@link WheelTimer#close()}: its workers are not daemon threads unless {@link #daemon}
         * says so.
         *
         * @return a new, running timer
         */
        public WheelTimer build() {
            return new WheelTimer(this);
        }
    }
}
