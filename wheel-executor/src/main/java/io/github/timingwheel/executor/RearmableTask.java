package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * The executor's re-armable timeout ({@link WheelScheduledExecutor#scheduleRearmable}): a
 * one-shot {@link ScheduledTask} whose deadline a touch pushes back in place. The re-arm
 * protocol is {@link ArmedDeadline}'s; this class keeps its state and says what the executor
 * does for it.
 */
class RearmableTask extends ScheduledTask<Void> implements RearmableFuture<Void>, ArmedDeadline {

    /** Wheel time armed for, or FIRED or CANCELLED: CAS only, read by anyone (ArmedDeadline [1]). */
    private volatile long armed;
    /** The timeout a touch adds to now; volatile, written by rearm (a racing touch uses either). */
    private volatile long timeoutNanos;
    /** The deadline the claim fired at (ArmedDeadline [9]); -1 until then. */
    private long firedAt = -1L;
    /** The grain of the task's tolerance, a power of two; 1 for none (ArmedDeadline [4]). */
    private final long grainNanos;

    /**
     * @param timeoutNanos not negative
     * @param toleranceNanos how late the task may fire besides the executor's tolerance; not negative
     */
    RearmableTask(WheelScheduledExecutor owner, Runnable command, long timeoutNanos, long toleranceNanos) {
        super(owner, command);
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
    // ArmedDeadline: the state and the executor's part.

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
        return owner;
    }

    /**
     * False once the executor's run state forbids the run (shutdownNow, or a shutdown whose
     * policy drops delayed tasks): ArmedDeadline [10].
     */
    @Override
    public boolean mayRun() {
        return owner.canRunInCurrentRunState(this);
    }

    @Override
    public void moveEarlierInWheel() {
        owner.queue().movedEarlier(this);
    }

    @Override
    public void relinkArmedLater() {
        owner.relinkRearmed(this);
    }

    // ---------------------------------------------------------------------------------------
    // WheelTask, future and task.

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

    /** The time left until the armed deadline, as {@link #remaining}; the last deadline once ended. */
    @Override
    public long getDelay(TimeUnit unit) {
        long d = armedDeadline();
        return unit.convert((d >= 0L ? d : firedDeadline()) - owner.wheelNow(), TimeUnit.NANOSECONDS);
    }

    /** Claims first (ArmedDeadline [8]), then runs as any task of the executor. */
    @Override
    public void run() {
        if (!claimsInRun() || claimElseRelink()) {
            super.run();
        }
    }

    /**
     * Whether run() claims the firing; a grouped task claims it later, when its group runs it
     * (a serial group queues it at the hand-out and runs it in its turn).
     */
    boolean claimsInRun() {
        return true;
    }

    /**
     * Ends the arming (touch returns false from now on), then cancels the future as any
     * future is cancelled: before the action started, it never starts.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        disarm();
        return super.cancel(mayInterruptIfRunning);
    }

    /** As {@link #cancel}: ends the arming first. */
    @Override
    boolean cancelUnqueued() {
        disarm();
        return super.cancelUnqueued();
    }

    /** Released at once when cancelled, whatever the policy ({@link ScheduledTask} [7]). */
    @Override
    boolean heldAfterCancel() {
        return false;
    }

    private static final VarHandle ARMED;

    static {
        try {
            ARMED = MethodHandles.lookup().findVarHandle(RearmableTask.class, "armed", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
