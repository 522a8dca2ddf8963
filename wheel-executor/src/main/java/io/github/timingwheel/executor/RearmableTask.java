package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The executor's re-armable timeout ({@link WheelScheduledExecutor#scheduleRearmable}): a
 * one-shot {@link ScheduledTask} whose deadline a touch pushes back in place.
 */
class RearmableTask extends ScheduledTask<Void> implements RearmableFuture<Void> {

    /*
     * Implementation notes
     *
     * [1] Who decides. 'armed' (ArmedDeadline) is the one word touch, fire and cancel agree on;
     *     the wheel position (TimerNode.deadline) only says when to look at it next, and is
     *     never later than the armed deadline once the moves submitted so far are applied.
     * [2] A touch CASes 'armed'. Only a move to before the previous armed deadline submits the
     *     task to its shard (WheelWorkQueue [3]): the harvest re-links a task at a deadline it
     *     read under the lock, which is a value 'armed' had, so if 'armed' has since fallen
     *     below it, one of the CASes since went down, and that one's submit (applied under the
     *     lock, after the harvest) moves the task to the armed deadline it then reads.
     * [3] run() claims first: a task handed out whose deadline a touch moved in the meantime
     *     goes back to its wheel instead of running (the CAS fails on the later deadline);
     *     only the claim's winner runs the body, through ScheduledTask's run, which keeps the
     *     executor's shutdown policies, hooks and counts.
     * [4] Lateness is measured against the armed deadline the claim fired at ('firedAt'), not
     *     against the old wheel position.
     * [5] A task made with a tolerance sits in its wheel at its armed deadline rounded up to
     *     'grainNanos' (ArmedDeadline [4]); 'armed' keeps the exact deadline.
     * [6] shutdownNow returns the tasks it drained without cancelling them (as the JDK's does),
     *     so 'armed' stays a deadline; the run state, read after the CAS, is what says the task
     *     will never run. A touch that returned true before shutdownNow is ordered before it.
     */

    /** Wheel time armed for, or FIRED or CANCELLED: CAS only, read by anyone ([1], ArmedDeadline). */
    private volatile long armed;
    /** The timeout a touch adds to now; volatile, written by rearm (a racing touch uses either). */
    private volatile long timeoutNanos;
    /**
     * The deadline the claim fired at ([4]): written by the claim's winner before it runs the
     * action, read by the thread that runs it (the same, or one the hand-over happens-before).
     */
    private long firedAt = -1L;
    /** The grain of the task's tolerance, a power of two; 1 for none ([5]). */
    private final long grainNanos;

    /**
     * @param timeoutNanos not negative
     * @param toleranceNanos how late the task may fire besides the executor's tolerance; not negative
     */
    RearmableTask(WheelScheduledExecutor owner, Runnable command, long timeoutNanos, long toleranceNanos) {
        super(owner, command, timeoutNanos);
        this.armed = deadline();
        this.timeoutNanos = timeoutNanos;
        this.grainNanos = ArmedDeadline.grainOf(toleranceNanos);
    }

    @Override
    long positionOf(long armedDeadline) {
        return ArmedDeadline.position(armedDeadline, grainNanos); // [5]
    }

    @Override
    long armedDeadline() {
        long d = armed;
        return d >= 0L ? d : -1L;
    }

    @Override
    long firedDeadline() {
        long d = firedAt; // [4]
        return d >= 0L ? d : deadline();
    }

    // ---------------------------------------------------------------------------------------
    // Rearmable

    @Override
    public boolean touch() {
        // only later (ArmedDeadline [5]): never before what a racing touch with a later clock
        // reading promised; moving later needs no wheel work (ArmedDeadline [2])
        return ArmedDeadline.moveLater(ARMED, this, owner.deadlineAfter(timeoutNanos)) >= 0L && mayRun();
    }

    @Override
    public boolean rearm(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        long timeoutNanos = Math.max(0L, unit.toNanos(timeout));
        if (!isArmed()) {
            return false;
        }
        this.timeoutNanos = timeoutNanos;
        return moveTo(owner.deadlineAfter(timeoutNanos));
    }

    /** [2]. */
    private boolean moveTo(long target) {
        long before = ArmedDeadline.moveTo(ARMED, this, target);
        if (before < 0L) {
            return false;
        }
        if (target < before) {
            owner.queue().movedEarlier(this);
        }
        return mayRun();
    }

    /**
     * [6]: false once the executor's run state forbids the run (shutdownNow, or a shutdown whose
     * policy drops delayed tasks): the task will never run, so a touch must not say it will.
     */
    private boolean mayRun() {
        return owner.canRunInCurrentRunState(this);
    }

    @Override
    public long timeout(TimeUnit unit) {
        return unit.convert(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public long remaining(TimeUnit unit) {
        long d = armed;
        return d < 0L ? 0L : unit.convert(d - owner.wheelNow(), TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean isArmed() {
        return armed >= 0L && mayRun();
    }

    // ---------------------------------------------------------------------------------------
    // Future and task

    /** The time left until the armed deadline, as {@link #remaining}; the last deadline once ended. */
    @Override
    public long getDelay(TimeUnit unit) {
        long d = armedDeadline();
        return unit.convert((d >= 0L ? d : firedDeadline()) - owner.wheelNow(), TimeUnit.NANOSECONDS);
    }

    /** [3]. */
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
     * Claims the firing ([3]): true for the one caller that should now run the action; a task
     * touched since the harvest goes back to its wheel instead.
     */
    final boolean claimElseRelink() {
        long now = owner.wheelNow();
        long claimed = ArmedDeadline.claim(ARMED, this, now);
        if (claimed >= 0L && claimed <= now) {
            firedAt = claimed;
            return true;
        }
        if (claimed >= 0L) {
            owner.relinkRearmed(this); // touched since the harvest: back to the wheel
        }
        return false;
    }

    /**
     * Ends the arming (touch returns false from now on), then cancels the future as any
     * future is cancelled: before the action started, it never starts.
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        ArmedDeadline.cancel(ARMED, this);
        return super.cancel(mayInterruptIfRunning);
    }

    /** As {@link #cancel}: ends the arming first. */
    @Override
    boolean cancelUnqueued() {
        ArmedDeadline.cancel(ARMED, this);
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
