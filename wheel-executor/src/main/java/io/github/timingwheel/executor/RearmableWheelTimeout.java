package io.github.timingwheel.executor;

import io.netty.util.TimerTask;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The timer's re-armable timeout ({@link WheelTimer#newRearmableTimeout}): a
 * {@link WheelTimeout} whose deadline a touch pushes back in place. The same protocol as the
 * executor's {@link RearmableTask} (its notes [1] to [4]): {@link ArmedDeadline} decides, the
 * wheel position only says when to look again.
 */
class RearmableWheelTimeout extends WheelTimeout implements RearmableTimeout {

    /** Touch, fire and cancel agree on this word (ArmedDeadline [1]). */
    private final ArmedDeadline armed;

    RearmableWheelTimeout(WheelTimer timer, TimerTask task, long timeoutNanos, long deadline) {
        super(timer, task, deadline);
        this.armed = new ArmedDeadline(deadline, timeoutNanos);
    }

    @Override
    long armedDeadline() {
        long d = armed.get();
        return d >= 0L ? d : -1L;
    }

    @Override
    long firedDeadline() {
        long firedAt = armed.firedAt();
        return firedAt >= 0L ? firedAt : deadline();
    }

    @Override
    public boolean touch() {
        return moveTo(wheelTimer().deadlineAfter(armed.timeoutNanos()));
    }

    @Override
    public boolean rearm(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        long timeoutNanos = Math.max(0L, unit.toNanos(timeout));
        if (!isArmed()) {
            return false;
        }
        armed.setTimeoutNanos(timeoutNanos);
        return moveTo(wheelTimer().deadlineAfter(timeoutNanos));
    }

    /** Only a move to before the previous deadline needs the wheel (RearmableTask [2]). */
    private boolean moveTo(long target) {
        long before = armed.moveTo(target);
        if (before < 0L) {
            return false;
        }
        if (target < before) {
            wheelTimer().movedEarlier(this);
        }
        return true;
    }

    @Override
    public long timeout(TimeUnit unit) {
        return unit.convert(armed.timeoutNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public long remaining(TimeUnit unit) {
        long d = armed.get();
        return d < 0L ? 0L : unit.convert(wheelTimer().nanosUntil(d), TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean isArmed() {
        return armed.get() >= 0L;
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
        long claimed = armed.claim(wheelTimer().wheelNow());
        if (claimed == ArmedDeadline.CLAIMED) {
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
        return armed.cancel() && super.cancel();
    }

    @Override
    public String toString() {
        long d = armed.get();
        String status = d == ArmedDeadline.CANCELLED ? "cancelled"
                : d == ArmedDeadline.FIRED ? "expired"
                : "deadline in " + wheelTimer().nanosUntil(d) + " ns, timeout " + armed.timeoutNanos() + " ns";
        return "RearmableTimeout(" + status + ", task: " + task() + ")";
    }
}
