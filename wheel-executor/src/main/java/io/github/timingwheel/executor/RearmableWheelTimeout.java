package io.github.timingwheel.executor;

import io.netty.util.TimerTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The timer's re-armable timeout ({@link WheelTimer#newRearmableTimeout}): a
 * {@link WheelTimeout} whose deadline a touch pushes back in place. The same protocol as the
 * executor's {@link RearmableTask} (its notes [1] to [4]): {@link ArmedDeadline} decides, the
 * wheel position only says when to look again.
 */
class RearmableWheelTimeout extends WheelTimeout implements RearmableTimeout {

    /** Wheel time armed for, or FIRED or CANCELLED: CAS only, read by anyone (ArmedDeadline [1]). */
    private volatile long armed;
    /** The timeout a touch adds to now; volatile, written by rearm (a racing touch uses either). */
    private volatile long timeoutNanos;
    /** The deadline the claim fired at: written by the claim's winner, read by the thread that fires. */
    private long firedAt = -1L;
    /** The grain of the timeout's tolerance, a power of two; 1 for none (RearmableTask [5]). */
    private final long grainNanos;

    /**
     * @param timeoutNanos not negative
     * @param toleranceNanos how late the timeout may fire besides the timer's tolerance; not negative
     */
    RearmableWheelTimeout(WheelTimer timer, TimerTask task, long timeoutNanos, long toleranceNanos) {
        super(timer, task, timeoutNanos);
        this.armed = deadline();
        this.timeoutNanos = timeoutNanos;
        this.grainNanos = ArmedDeadline.grainOf(toleranceNanos);
    }

    @Override
    long positionOf(long armedDeadline) {
        return ArmedDeadline.position(armedDeadline, grainNanos);
    }

    @Override
    long armedDeadline() {
        long d = armed;
        return d >= 0L ? d : -1L;
    }

    @Override
    long firedDeadline() {
        long d = firedAt;
        return d >= 0L ? d : deadline();
    }

    @Override
    public boolean touch() {
        // only later (ArmedDeadline [5]): never before what a racing touch with a later clock
        // reading promised; moving later needs no wheel work (ArmedDeadline [2])
        return ArmedDeadline.moveLater(ARMED, this, wheelTimer().deadlineAfter(timeoutNanos)) >= 0L
                && !wheelTimer().isStopped();
    }

    @Override
    public boolean rearm(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        long timeoutNanos = Math.max(0L, unit.toNanos(timeout));
        if (!isArmed()) {
            return false;
        }
        this.timeoutNanos = timeoutNanos;
        return moveTo(wheelTimer().deadlineAfter(timeoutNanos));
    }

    /** Only a move to before the previous deadline needs the wheel (RearmableTask [2]). */
    private boolean moveTo(long target) {
        long before = ArmedDeadline.moveTo(ARMED, this, target);
        if (before < 0L) {
            return false;
        }
        if (target < before) {
            wheelTimer().movedEarlier(this);
        }
        return !wheelTimer().isStopped();
    }

    @Override
    public long timeout(TimeUnit unit) {
        return unit.convert(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public long remaining(TimeUnit unit) {
        long d = armed;
        return d < 0L ? 0L : unit.convert(wheelTimer().nanosUntil(d), TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean isArmed() {
        // a stopped timer never fires it, whether or not its stop found it to cancel (RearmableTask [6])
        return armed >= 0L && !wheelTimer().isStopped();
    }

    /** Claims first (RearmableTask [3]): fires only for the claim's winner. */
    @Override
    public void run() {
        if (claimElseRelink()) {
            super.run();
        }
    }

    /**
     * Claims the firing: true for the one caller that should now fire the timeout; one touched
     * since the harvest goes back to its wheel instead.
     */
    final boolean claimElseRelink() {
        long now = wheelTimer().wheelNow();
        long claimed = ArmedDeadline.claim(ARMED, this, now);
        if (claimed >= 0L && claimed <= now) {
            firedAt = claimed;
            return true;
        }
        if (claimed >= 0L) {
            wheelTimer().movedEarlier(this); // touched since the harvest: back to the wheel
        }
        return false;
    }

    /**
     * Ends the arming, then cancels as any timeout: true only for the call that cancelled an
     * armed timeout; false once its task started.
     */
    @Override
    public boolean cancel() {
        return ArmedDeadline.cancel(ARMED, this) && super.cancel();
    }

    @Override
    public String toString() {
        long d = armed;
        String status = d == ArmedDeadline.CANCELLED ? "cancelled"
                : d == ArmedDeadline.FIRED ? "expired"
                : "deadline in " + wheelTimer().nanosUntil(d) + " ns, timeout " + timeoutNanos + " ns";
        return "RearmableTimeout(" + status + ", task: " + task() + ")";
    }

    private static final VarHandle ARMED;

    static {
        try {
            ARMED = MethodHandles.lookup().findVarHandle(RearmableWheelTimeout.class, "armed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
