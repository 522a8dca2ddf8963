package io.github.timingwheel.executor;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.util.Collections;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A group of timeouts on a {@link WheelTimer}, itself a Netty {@link Timer}: give one to each
 * connection's handlers as their timer, and {@link #stop()} it when the connection closes.
 * Made by {@link WheelTimer#newGroup()} and {@link WheelTimer#newSerialGroup()}.
 *
 * <pre>{@code
 * TimeoutGroup timeouts = timer.newGroup();               // in channelActive
 * timeouts.newTimeout(t -> ctx.close(), 30, SECONDS);     // read timeout, idle, keep-alive...
 * timeouts.stop();                                        // in channelInactive: all cancelled
 * }</pre>
 *
 * <p>{@link #newTimeout} behaves as the timer's: the same engine, exact deadlines, the same
 * {@code maxPendingTimeouts} bound. What the group adds:
 * <ul>
 *   <li>It tracks its pending timeouts at O(1) each (the timeout carries the links: 72 bytes
 *       against 56 ungrouped) and drops each when it expires or is cancelled; nothing is
 *       retained.
 *   <li>{@link #stop()} cancels every pending timeout of the group (each one's
 *       {@link TimerTask#cancelled(Timeout)} runs on the stopping thread) and returns them;
 *       later {@code newTimeout} calls throw {@link IllegalStateException}, as a stopped
 *       timer's do. It does not stop the timer or touch other groups, does not wait, and may
 *       be called from a timer task (unlike {@link WheelTimer#stop()}).
 *   <li>A serial group fires its timeouts one at a time, in deadline-then-submission order,
 *       even with several workers; see {@link TaskGroup} for how.
 *   <li>{@link Timeout#timer()} of its timeouts is the group, so a task that re-arms itself
 *       through it stays in the group.
 * </ul>
 *
 * <p>Races: {@code stop()} vs {@code newTimeout}: the new timeout is refused, or is pending and
 * then cancelled by the stop, never left pending after {@code stop()} returned. {@code stop()}
 * vs expiry: each timeout either expired (its task ran or runs) or was cancelled and is in the
 * returned set, never both. {@code stop()} vs {@link Timeout#cancel()}: exactly one of them
 * cancels it.
 *
 * <p>Thread-safe. Stopping the timer itself does not stop its groups; their timeouts are among
 * those the timer's {@code stop()} returns.
 */
public final class TimeoutGroup implements Timer, AutoCloseable {

    private final WheelTimer timer;
    private final MemberTracker members = new MemberTracker();
    /** The run queue of a serial group; null for a plain one. */
    private final SerialRunQueue serial;
    /** serial.kick() as a task, for a timer that runs its tasks on a task executor. */
    private final Runnable kick;

    TimeoutGroup(WheelTimer timer, boolean serial) {
        this.timer = timer;
        this.serial = serial
                ? new SerialRunQueue(members,
                        work -> timer.engine().offerContinuation(() -> timer.runOnTaskThread(work, work)))
                : null;
        this.kick = serial ? this.serial::kick : null;
    }

    /**
     * @throws NullPointerException if {@code task} or {@code unit} is null
     * @throws IllegalStateException if the group or its timer was stopped
     * @throws RejectedExecutionException if the timer's {@code maxPendingTimeouts} is reached
     */
    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(unit, "unit");
        GroupedTimeout timeout = timer.engine().queue().place(new GroupedTimeout(timer, this, task),
                unit.toNanos(delay));
        try {
            members.admit(timeout);
        } catch (RejectedExecutionException stopped) {
            throw new IllegalStateException("cannot be started once stopped");
        }
        boolean accepted = false;
        try {
            timer.start(timeout);
            accepted = true;
            return timeout;
        } finally {
            members.admitted(timeout, accepted);
        }
    }

    /**
     * As {@link WheelTimer#newRearmableTimeout}, as a timeout of the group: stopping the group
     * cancels it, and a serial group fires it in its turn.
     *
     * @param task the task to run when the timeout passes without a touch
     * @param timeout the time without a touch after which it runs; negative means 0
     * @param unit the unit of {@code timeout}
     * @return the handle
     * @throws NullPointerException if {@code task} or {@code unit} is null
     * @throws IllegalStateException if the group or its timer was stopped
     * @throws RejectedExecutionException if the timer's {@code maxPendingTimeouts} is reached
     */
    public RearmableTimeout newRearmableTimeout(TimerTask task, long timeout, TimeUnit unit) {
        return newRearmableTimeout(task, timeout, 0L, unit);
    }

    /**
     * As {@link WheelTimer#newRearmableTimeout(TimerTask, long, long, TimeUnit)}, with a
     * tolerance of its own, as a timeout of the group.
     *
     * @param task the task to run when the timeout passes without a touch
     * @param timeout the time without a touch after which it runs; negative means 0
     * @param tolerance how late it may fire, in {@code unit}; not negative
     * @param unit the unit of {@code timeout} and {@code tolerance}
     * @return the handle
     * @throws NullPointerException if {@code task} or {@code unit} is null
     * @throws IllegalArgumentException if {@code tolerance} is negative
     * @throws IllegalStateException if the group or its timer was stopped
     * @throws RejectedExecutionException if the timer's {@code maxPendingTimeouts} is reached
     */
    public RearmableTimeout newRearmableTimeout(TimerTask task, long timeout, long tolerance, TimeUnit unit) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(unit, "unit");
        long timeoutNanos = Math.max(0L, unit.toNanos(timeout));
        long toleranceNanos = WheelWorkQueue.toleranceNanos(tolerance, unit);
        GroupedRearmableTimeout handle = timer.engine().queue().place(
                new GroupedRearmableTimeout(timer, this, task, timeoutNanos, toleranceNanos), timeoutNanos);
        try {
            members.admit(handle);
        } catch (RejectedExecutionException stopped) {
            throw new IllegalStateException("cannot be started once stopped");
        }
        boolean accepted = false;
        try {
            timer.start(handle);
            accepted = true;
            return handle;
        } finally {
            members.admitted(handle, accepted);
        }
    }

    /**
     * Cancels every pending timeout of the group and refuses new ones; the timer and other
     * groups go on. Returns at once.
     *
     * @return the timeouts this call cancelled; empty if the group was stopped already
     */
    @Override
    public Set<Timeout> stop() {
        GroupMember[] pending = members.close();
        if (pending.length == 0) {
            return Collections.emptySet();
        }
        Set<Timeout> cancelled = new HashSet<>();
        for (GroupMember member : pending) {
            if (member.cancelByGroup(false)) {
                cancelled.add((Timeout) member.handle());
            }
        }
        if (serial != null) {
            serial.clear();
        }
        return cancelled;
    }

    /**
     * {@link #stop()}, for try-with-resources: cancels the group's pending timeouts and returns
     * at once, as Netty's {@code Timer.stop()} does. Unlike {@link TaskGroup#close()}, which is
     * {@code ExecutorService.close()} and waits for its tasks, it waits for nothing: a
     * {@code TimeoutGroup} is a {@code Timer}, not an {@code ExecutorService}.
     */
    @Override
    public void close() {
        stop();
    }

    /** Whether {@link #stop()} was called. */
    public boolean isStopped() {
        return members.isShutdown();
    }

    /**
     * The number of pending timeouts: neither expired nor cancelled. O(1). A {@code long}, as
     * {@link WheelTimer#pendingTimeouts()} and Netty's {@code HashedWheelTimer.pendingTimeouts()}.
     */
    public long pendingTimeouts() {
        return members.size();
    }

    /** Whether the group's timeouts fire one at a time, in order. */
    public boolean isSerial() {
        return serial != null;
    }

    @Override
    public String toString() {
        return "TimeoutGroup[" + (isSerial() ? "serial, " : "") + (isStopped() ? "stopped" : "running")
                + ", pending=" + pendingTimeouts() + "]";
    }

    // ---------------------------------------------------------------------------------------
    // Called by the group's timeouts.

    void finished(GroupMember member) {
        members.finished(member);
    }

    /** The wheel hands a timeout of the group out; called under the wheel's lock. */
    void handedOut(GroupMember member) {
        if (serial != null) {
            serial.append(member);
        }
    }

    /** A worker found a timeout of this serial group due: drain the group where tasks run. */
    void kickOnTaskThread() {
        timer.runOnTaskThread(kick, kick);
    }
}
