package io.github.timingwheel.executor;

import io.netty.util.TimerTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The timer's re-armable timeout ({@link WheelTimer#newRearmableTimeout}): a
 * {@link WheelTimeout} whose deadline a touch pushes back in place. The re-arm protocol is
 * {@link ArmedDeadline}'s, as for the executor's {@link RearmableTask}; this class keeps its
 * state and says what the timer does for it.
 */
class RearmableWheelTimeout extends WheelTimeout implements RearmableTimeout, ArmedDeadline {

    /** Wheel time armed for, or FIRED or CANCELLED: CAS only, read by anyone (ArmedDeadline [1]). */
    private volatile long armed;
    /** The timeout a touch adds to now; volatile, written by rearm (a racing touch uses either). */
    private volatile long timeoutNanos;
    /** The deadline the claim fired at (ArmedDeadline [9]); -1 until then. */
    private long firedAt = -1L;
    /** The grain of the timeout's tolerance, a power of two; 1 for none (ArmedDeadline [4]). */
    private final long grainNanos;

    /**
     * @param timeoutNanos not negative
     * @param toleranceNanos how late the timeout may fire besides the timer's tolerance; not negative
     */
    RearmableWheelTimeout(WheelTimer timer, TimerTask task, long timeoutNanos, long toleranceNanos) {
        super(timer, task);
        this.timeoutNanos = timeoutNanos;
        this.grainNanos = ArmedDeadline.grainOf(toleranceNanos);
    }

    /** Armed at the deadline it is placed at, timeoutNanos from now (ArmedDeadline [1]). */
    @Override
    void place(long deadline, long sequence) {
        super.place(deadline, sequence);
        armed = deadline;
    }

    // ---------------------------------------------------------------------------------------
    // ArmedDeadline: the state and the timer's part.

    @Override
    public long armed() {
        return armed;
    }

    @Override
    public boolean casArmed(long seen, long next) {
        return ARMED.compareAndSet(this, seen, next);
    }

    @Override
    public long timeoutNanos() {
        return timeoutNanos;
    }

    @Override
    public void timeoutNanos(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public void firedAt(long deadline) {
        firedAt = deadline;
    }

    @Override
    public WheelScheduledExecutor engine() {
        return wheelTimer().engine();
    }

    /**
     * False once the timer is stopped: a stopped timer never fires it, whether or not its stop
     * found it to cancel (ArmedDeadline [10]).
     */
    @Override
    public boolean mayRun() {
        return !wheelTimer().isStopped();
    }

    @Override
    public void moveEarlierInWheel() {
        wheelTimer().movedEarlier(this);
    }

    @Override
    public void relinkArmedLater() {
        wheelTimer().movedEarlier(this);
    }

    // ---------------------------------------------------------------------------------------
    // WheelTask and Timeout.

    @Override
    long positionOf(long armedDeadline) {
        return ArmedDeadline.position(armedDeadline, grainNanos); // ArmedDeadline [4]
    }

    @Override
    long armedDeadline() {
        return armedOrNone();
    }

    @Override
    long firedDeadline() {
        long d = firedAt; // ArmedDeadline [9]
        return d >= 0L ? d : deadline();
    }

    /** Claims first (ArmedDeadline [8]): fires only for the claim's winner. */
    @Override
    public void run() {
        if (claimElseRelink()) {
            super.run();
        }
    }

    /**
     * Ends the arming, then cancels as any timeout: true only for the call that cancelled an
     * armed timeout; false once its task started.
     */
    @Override
    public boolean cancel() {
        return disarm() && super.cancel();
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
