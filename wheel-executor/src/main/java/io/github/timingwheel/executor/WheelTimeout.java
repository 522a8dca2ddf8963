package io.github.timingwheel.executor;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The handle of a {@link TimerTask} in a {@link WheelTimer}: the wheel node itself, with a
 * state and two references. 56 bytes on a 64-bit JVM with compressed references, as much as
 * Netty's {@code HashedWheelTimeout}, and no future behind it.
 *
 * <p>States: {@code INIT} until exactly one of {@link #run} (to {@code EXPIRED}) and
 * {@link #cancel} (to {@code CANCELLED}) wins a CAS; neither changes after. Not final: a
 * {@link GroupedTimeout} adds its group's links.
 */
class WheelTimeout extends WheelTask implements Timeout {

    /*
     * Implementation notes
     *
     * [1] Netty 4.1 and 4.2. TimerTask.cancelled(Timeout) exists only in 4.2 (a default
     *     method). This class is compiled against 4.2; on 4.1 the call would fail to link with
     *     a NoSuchMethodError on every cancel (the JVM does not remember a failed resolution
     *     of an interface method as a success, so each cancel pays for the error and its log
     *     line). Whether the method exists is found once, when the class initialises, and the
     *     call site is never reached on 4.1, so it never links there.
     */

    /** Whether the Netty on the class path has TimerTask.cancelled(Timeout) ([1]). */
    static final boolean TASK_HAS_CANCELLED = hasCancelledCallback();

    private static final int INIT = 0;
    private static final int CANCELLED = 1;
    private static final int EXPIRED = 2;

    /** Written by CAS only (run, cancel); read by anyone. */
    private volatile int state;
    private final TimerTask task;
    private final WheelTimer timer;
    /**
     * The inbox mark (WheelTask [1]): IN_INBOX while the timeout waits in its shard's inbox,
     * else null. A reference takes the 4 bytes a boolean and its padding took: the timeout stays
     * 56 bytes. Written as every task's mark is: the set is a release store, not a volatile
     * one, since the push that follows publishes the mark and a cancel that does not see it yet
     * only pushes the timeout again; the clear is a CAS, a full fence before the drain reads the
     * state; a cancel reads it volatile, after its CAS on the state.
     */
    private volatile Object inbox;

    /** A timeout to place with {@link WheelWorkQueue#place} before it is started. */
    WheelTimeout(WheelTimer timer, TimerTask task) {
        this.timer = timer;
        this.task = task;
    }

    @Override
    public Timer timer() {
        return timer;
    }

    /** The timer whose engine runs this timeout. */
    final WheelTimer wheelTimer() {
        return timer;
    }

    @Override
    public TimerTask task() {
        return task;
    }

    @Override
    public boolean isExpired() {
        return state == EXPIRED;
    }

    @Override
    public boolean isCancelled() {
        return state == CANCELLED;
    }

    /**
     * Cancels the timeout if it is still pending: it is unlinked from the wheel (at once, or
     * within a small batch), and {@link TimerTask#cancelled(Timeout)} is called on this thread
     * (with Netty 4.2; 4.1 has no such method, and nothing is called).
     *
     * @return true only for the call that cancelled a pending timeout
     */
    @Override
    public boolean cancel() {
        if (!STATE.compareAndSet(this, INIT, CANCELLED)) {
            return false;
        }
        finished();
        timer.released(this);
        if (!TASK_HAS_CANCELLED) {
            return true; // Netty 4.1 ([1])
        }
        try {
            task.cancelled(this);
        } catch (Throwable failure) {
            WheelTimer.LOGGER.warn("An exception was thrown by TimerTask.cancelled().", failure);
        }
        return true;
    }

    /** Called by a worker when the deadline has come: fires the task unless it was cancelled. */
    @Override
    public void run() {
        if (claim()) {
            timer.expired(this);
        }
    }

    /** Moves the timeout from INIT to EXPIRED: true for the one caller that does. */
    final boolean claim() {
        if (!STATE.compareAndSet(this, INIT, EXPIRED)) {
            return false;
        }
        finished();
        return true;
    }

    /**
     * Called once, by the thread that expired or cancelled the timeout, right after its state
     * changed: grouped timeouts leave their group here. Nothing by default.
     */
    void finished() {
    }

    /** Runs the task; a failure is logged and goes no further, as in {@code HashedWheelTimer}. */
    void fire() {
        long[] cell = timer.runCell(); // one look-up for the run's counts
        long startedAt = timer.runStarted(this, task, cell);
        Throwable failure = null;
        try {
            task.run(this);
        } catch (Throwable thrown) {
            failure = thrown;
            WheelTimer.LOGGER.warn("An exception was thrown by TimerTask.", thrown);
        } finally {
            timer.runEnded(this, task, startedAt, failure, cell);
        }
    }

    @Override
    boolean wantsWheel() {
        return state == INIT;
    }

    @Override
    Runnable outer() {
        return this;
    }

    @Override
    final void markInInbox() {
        INBOX.setRelease(this, IN_INBOX); // WheelTask [1]: published by the push that follows
    }

    @Override
    final void clearInInbox() {
        INBOX.compareAndSet(this, IN_INBOX, null); // WheelTask [1]: a full fence before the state is read
    }

    @Override
    final boolean inInbox() {
        return inbox == IN_INBOX;
    }

    @Override
    boolean belongsTo(WheelWorkQueue queue) {
        return timer.usesQueue(queue);
    }

    @Override
    public String toString() {
        String status = switch (state) {
            case CANCELLED -> "cancelled";
            case EXPIRED -> "expired";
            default -> "deadline in " + timer.nanosUntil(deadline()) + " ns";
        };
        return "WheelTimeout(" + status + ", task: " + task + ")";
    }

    /** Netty 4.2 has TimerTask.cancelled(Timeout), as a default method; 4.1 has none ([1]). */
    private static boolean hasCancelledCallback() {
        try {
            TimerTask.class.getMethod("cancelled", Timeout.class);
            return true;
        } catch (NoSuchMethodException netty41) {
            return false;
        }
    }

    private static final VarHandle STATE;
    private static final VarHandle INBOX;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(WheelTimeout.class, "state", int.class);
            INBOX = lookup.findVarHandle(WheelTimeout.class, "inbox", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
