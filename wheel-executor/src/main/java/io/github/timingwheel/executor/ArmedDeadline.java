package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The state of a re-armable task in one word: the wheel time it is armed for, or that it fired,
 * or that it was cancelled. Every change is one CAS on that word, so a touch, a firing and a
 * cancel are totally ordered, and the firing checks the deadline in the same CAS that ends the
 * arming.
 */
final class ArmedDeadline {

    /*
     * Implementation notes
     *
     * [1] One word. 'deadline' is the wheel time (never negative: TimingWheel) the task is armed
     *     for, or FIRED or CANCELLED (negative, final). touch, fire and cancel each read it
     *     and CAS it; a CAS that fails re-reads. So:
     *     - fire CASes from a value d <= now (now read before the CAS) to FIRED: it never fires
     *       before a deadline that a touch wrote before the CAS, since that touch's CAS would
     *       have made the fire's fail;
     *     - exactly one of fire and cancel leaves the armed state, once;
     *     - a touch that CASed before the fire's CAS moved the deadline (the fire then sees it,
     *       and the task is re-linked instead); one that comes after finds FIRED and returns
     *       false. Never both.
     * [2] No allocation, lock or queue work in a touch that moves the deadline later: the wheel
     *     keeps the task at its old position, and the harvest that finds it there re-links it
     *     for what is left (WheelShards [5]). Moving earlier needs the wheel (the old position
     *     would be late): the caller then submits the task to its shard.
     * [3] 'timeoutNanos' is read by touch and written by rearm, both plain volatile; a touch
     *     racing with a rearm may use either timeout, as if ordered either way.
     */

    /** The value once the task has fired ([1]). */
    static final long FIRED = -1L;
    /** The value once the task was cancelled ([1]). */
    static final long CANCELLED = -2L;
    /** What {@link #claim} returns to the one caller that fired the task. */
    static final long CLAIMED = -3L;

    /** Wheel time armed for, FIRED or CANCELLED; written by CAS only, read by anyone ([1]). */
    private volatile long deadline;
    /** The timeout a touch adds to now ([3]). */
    private volatile long timeoutNanos;
    /**
     * The deadline the winning claim fired at: written by that claimer after its CAS, read by
     * the thread that runs the action (the claimer, or one its hand-over happens-before).
     */
    private long firedAt = -1L;

    ArmedDeadline(long deadline, long timeoutNanos) {
        this.deadline = deadline;
        this.timeoutNanos = timeoutNanos;
    }

    /** The deadline armed for, or FIRED or CANCELLED. A volatile read. */
    long get() {
        return deadline;
    }

    long timeoutNanos() {
        return timeoutNanos;
    }

    /** The deadline the task fired at, once {@link #claim} returned CLAIMED; else -1. */
    long firedAt() {
        return firedAt;
    }

    void setTimeoutNanos(long timeoutNanos) {
        this.timeoutNanos = timeoutNanos;
    }

    /**
     * Moves an armed deadline to {@code target}.
     *
     * @return the deadline it replaced (so the caller sees whether it moved earlier), or FIRED
     *     or CANCELLED if it is no longer armed and nothing changed
     */
    long moveTo(long target) {
        for (;;) {
            long seen = deadline;
            if (seen < 0L || seen == target) {
                return seen;
            }
            if (DEADLINE.compareAndSet(this, seen, target)) {
                return seen;
            }
        }
    }

    /**
     * Fires the task if its deadline has come ([1]).
     *
     * @param now wheel time, read before this call
     * @return CLAIMED if this call fired it; FIRED or CANCELLED if it had ended already; else
     *     the later deadline it is armed for, where the caller re-links it
     */
    long claim(long now) {
        for (;;) {
            long seen = deadline;
            if (seen < 0L || seen > now) {
                return seen;
            }
            if (DEADLINE.compareAndSet(this, seen, FIRED)) {
                firedAt = seen;
                return CLAIMED;
            }
        }
    }

    /** Ends the arming: true for the one call that moved it from armed to CANCELLED. */
    boolean cancel() {
        for (;;) {
            long seen = deadline;
            if (seen < 0L) {
                return false;
            }
            if (DEADLINE.compareAndSet(this, seen, CANCELLED)) {
                return true;
            }
        }
    }

    private static final VarHandle DEADLINE;

    static {
        try {
            DEADLINE = MethodHandles.lookup().findVarHandle(ArmedDeadline.class, "deadline", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
