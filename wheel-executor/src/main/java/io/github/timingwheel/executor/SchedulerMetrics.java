package io.github.timingwheel.executor;

import io.github.timingwheel.core.LatencyDistribution;

/**
 * What a {@link WheelScheduledExecutor} or a {@link WheelTimer} had done when
 * {@code metrics()} was called: task totals since it was built, the tasks pending and running,
 * and how late runs started. Immutable; {@link #toString()} is one line for a log.
 *
 * <p>Reading them costs a sum over one counter cell per thread that counted and a copy of 32
 * buckets, takes no lock and does not stop the scheduler. Totals read while tasks come and go
 * are each exact at some moment during the read, not all at the same one.
 *
 * <p>How the totals add up, once nothing moves: every accepted task ends once, by completing,
 * failing, being cancelled or being refused by the task executor, and {@link #pending()} is
 * {@link #scheduled()} less those endings. Runs are counted apart from endings: every run that
 * started and ended counts once in {@link #ran()} or {@link #failed()}, whatever became of its
 * task's future meanwhile, so {@code ran + failed} plus {@link #running()} is the number of
 * lateness values. A periodic task's runs all count, but only a failure or a cancel ends it. So
 * for one-shot tasks and timeouts, {@code scheduled = pending + ran + failed + cancelled +
 * (rejected runs)}, except that a task cancelled while its body ran counts both a run and a
 * cancel (a body that cancels its own future, as a deadline task does, is one).
 */
public final class SchedulerMetrics {

    private final String name;
    private final int workers;
    private final long pending;
    private final long scheduled;
    private final long cancelled;
    private final long ran;
    private final long failed;
    private final long rejected;
    private final long running;
    private final long cancelledHeld;
    private final long rearms;
    private final long wakeUps;
    private final LatencyDistribution lateness;

    SchedulerMetrics(String name, int workers, long pending, long scheduled, long cancelled, long ran,
            long failed, long rejected, long running, long cancelledHeld, long rearms, long wakeUps,
            LatencyDistribution lateness) {
        this.name = name;
        this.workers = workers;
        this.pending = pending;
        this.scheduled = scheduled;
        this.cancelled = cancelled;
        this.ran = ran;
        this.failed = failed;
        this.rejected = rejected;
        this.running = running;
        this.cancelledHeld = cancelledHeld;
        this.rearms = rearms;
        this.wakeUps = wakeUps;
        this.lateness = lateness;
    }

    /** The name of the executor or timer, as set in its builder. */
    public String name() {
        return name;
    }

    /** The number of worker threads it is configured with (its core pool size). */
    public int workers() {
        return workers;
    }

    /**
     * Tasks accepted and not yet ended: {@link #scheduled()} less the tasks that completed,
     * failed, were cancelled or were refused by the task executor. So it counts the tasks
     * waiting for their deadline, due, or running; a periodic task counts until it is cancelled
     * or fails. Approximate while tasks come and go (it may still count one that has just
     * ended), exact once they stop. Unlike {@code getQueue().size()} and
     * {@link WheelTimer#pendingTimeouts()}, reading it takes no lock. Tasks that
     * {@code shutdownNow} returned count until they are cancelled or run.
     *
     * <p>It is not what the executor holds: a task cancelled while the executor's
     * remove-on-cancel policy is off (the JDK-style constructors set it off, as the JDK's
     * executor has it; the builder sets it on) has ended, and counts in {@link #cancelled()},
     * not here, but stays in the queue, with its body, until its deadline comes, as in the JDK's
     * executor. {@code getQueue().size()} counts it; this does not; {@link #cancelledHeld()}
     * counts those.
     */
    public long pending() {
        return pending;
    }

    /**
     * Cancelled tasks the executor still holds: cancelled while the remove-on-cancel policy was
     * off, and not yet out of its queue (they leave when their deadline comes and a worker
     * discards them, or through {@code purge()}, {@code remove}, a shutdown policy or
     * {@code shutdownNow()}). Each holds its body until then. Always 0 for a {@link WheelTimer},
     * whose cancelled timeouts leave at once, and for an executor whose policy is on. So the
     * queue holds {@code pending() + cancelledHeld()} tasks, less the ones running. Read without
     * a lock; approximate while tasks come and go, exact once they stop, except for tasks of a
     * subclass's {@code decorateTask} that the executor takes out of its queue itself
     * ({@code remove}, {@code purge}, a shutdown policy, {@code shutdownNow}): those stay
     * counted.
     */
    public long cancelledHeld() {
        return cancelledHeld;
    }

    /** Tasks accepted: one-shot and periodic tasks (once each, not per run), or timeouts. */
    public long scheduled() {
        return scheduled;
    }

    /**
     * Tasks cancelled: their future's (or timeout's) {@code cancel} returned true, including the
     * cancels of shutdown policies and of {@link WheelTimer#stop()}.
     */
    public long cancelled() {
        return cancelled;
    }

    /**
     * Runs whose body returned normally, whatever became of the task's future meanwhile: each run
     * of a periodic task counts, and so does a run whose future was cancelled while it ran.
     */
    public long ran() {
        return ran;
    }

    /**
     * Runs whose body threw; the task's future completed with the exception unless it was
     * cancelled first (a timer logs it).
     */
    public long failed() {
        return failed;
    }

    /**
     * Tasks refused: submitted after shutdown (whatever the rejection handler then did), past
     * the bound on pending tasks, or handed to a task executor that refused the body.
     */
    public long rejected() {
        return rejected;
    }

    /**
     * Bodies running now: the workers busy with a task, or with a task executor, the bodies
     * running there.
     */
    public long running() {
        return running;
    }

    /**
     * Lazy re-arms of re-armable timeouts ({@link Rearmable}): the times a timeout whose old
     * deadline came due had been touched since, and was linked again for its new deadline
     * instead of firing. Not counted in {@link #scheduled()}, which counts each timeout once;
     * touches themselves are not counted (each is one CAS, and a count would be a second
     * shared write). So {@code rearms / scheduled} is how often a re-armable timeout's wheel
     * work was redone, against one cancel and one schedule per touch without it.
     */
    public long rearms() {
        return rearms;
    }

    /**
     * Times the waiting workers woke up: the leader (the one worker that waits for the next
     * deadline) at that deadline, when a producer's earlier task woke it, or spuriously; and, on
     * an executor of two workers or more, the stand-in, which checks about every 4 ms while
     * tasks are due that the leader is not held in a body or late. Workers woken only to
     * take tasks already handed out are not counted, and a scheduler with nothing pending adds
     * none (unless its idle workers time out, {@code allowCoreThreadTimeOut}).
     * Each is a thread wake-up that costs CPU and power, so {@code wakeUps} per second against
     * runs per second shows how well deadlines share them:
     * a {@linkplain WheelScheduledExecutor.Builder#tolerance tolerance} lets the tasks due
     * within a quarter of it share one. Read without a lock, and exact at some moment during
     * the read, as the other totals are.
     */
    public long wakeUps() {
        return wakeUps;
    }

    /**
     * How late runs started: the time a body started minus its deadline, measured with the
     * scheduler's time source, one value per run (every run of a periodic task).
     */
    public LatencyDistribution lateness() {
        return lateness;
    }

    /**
     * One line, for example: {@code timers: pending=3 scheduled=10 ran=5 failed=1 cancelled=1
     * rejected=2 running=0/2 workers, rearms=4, late n=6 p50<=1us p99<=2.05ms max=1.5ms}.
     */
    @Override
    public String toString() {
        return name + ": pending=" + pending + " scheduled=" + scheduled + " ran=" + ran
                + " failed=" + failed + " cancelled=" + cancelled + " rejected=" + rejected
                + " running=" + running + "/" + workers + " workers, "
                + (cancelledHeld > 0 ? "cancelled-held=" + cancelledHeld + ", " : "") + "rearms=" + rearms
                + ", late " + lateness;
    }
}
