package io.github.timingwheel.executor;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A re-armable handle's deadline and the re-arm protocol on it, written once for the executor's
 * handle ({@link RearmableTask}) and the timer's ({@link RearmableWheelTimeout}). The state is
 * one word, a {@code volatile long} field of the handle itself: the wheel time it is armed for,
 * or that it fired, or that it was cancelled. Every change is one CAS on that word, so a touch, a
 * firing and a cancel are totally ordered, and the firing checks the deadline in the same CAS
 * that ends the arming.
 *
 * <p>The two handles extend different tasks (a future, a Netty timeout), so the protocol is an
 * interface: each handle keeps the word and the timeout as fields of its own ([3]) and gives
 * them, and what its scheduler does for it, through the abstract methods below; the default
 * methods are the protocol.
 */
interface ArmedDeadline extends Rearmable {

    /*
     * Implementation notes
     *
     * [1] One word. The field holds the wheel time (never negative: TimingWheel) the task is
     *     armed for, or FIRED or CANCELLED (negative, final). touch, fire and cancel each read
     *     it and CAS it; a CAS that fails re-reads. So:
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
     *     would be late): the handle then submits the task to its shard ([7]).
     * [3] The word is a field of the task, not of an object of its own: a touch of one of a
     *     million handles then misses the cache once (the task), not twice, and a handle is no
     *     bigger than its fields. Each handle reads it (armed) and CASes it (casArmed) through
     *     its own static final VarHandle.
     * [4] A per-task tolerance (Linux's timer slack, per timer) places the task in its wheel at
     *     its armed deadline rounded up to a grain, the largest power of two not above the
     *     tolerance: handles whose deadlines fall in one grain share a wheel position, and so
     *     one wake-up. The word keeps the exact deadline, so the firing's CAS and the lateness
     *     it reports are against it; the position is never before it (never early) and less
     *     than a grain after it (so at most the tolerance late, besides the scheduler's own).
     *     Every place that links a re-armable task links it at position(armed, grain), and a
     *     move earlier that stays within the same grain needs no wheel work.
     * [5] A touch only moves the word later (moveLater), a rearm moves it anywhere (moveTo).
     *     A touch reads the clock, then CASes: two touches racing may CAS in the other order
     *     than they read, and a plain move would then leave the older reading's target, before
     *     the deadline the other touch already promised ("no earlier than now + timeout").
     *     Keeping the later of the two keeps both promises. A rearm is exact, as documented:
     *     its caller asked for that deadline, earlier or not.
     * [6] Who decides. The word is what touch, fire and cancel agree on; the wheel position
     *     (TimerNode.deadline) only says when to look at it next, and is never later than the
     *     armed deadline once the moves submitted so far are applied.
     * [7] Only a move to before the previous armed deadline submits the task to its shard
     *     (moveEarlierInWheel; WheelWorkQueue [3]): the harvest re-links a task at a deadline
     *     it read under the lock, which is a value the word had, so if the word has since
     *     fallen below it, one of the CASes since went down, and that one's submit (applied
     *     under the lock, after the harvest) moves the task to the armed deadline it then reads.
     * [8] The firing claims first (claimElseRelink): a task handed out whose deadline a touch
     *     moved in the meantime goes back to its wheel instead of running (the CAS fails on
     *     the later deadline); only the claim's winner runs the action, through the handle's
     *     own run, which keeps its scheduler's policies, hooks and counts.
     * [9] Lateness is measured against the armed deadline the claim fired at (firedAt), not
     *     against the old wheel position.
     * [10] A stopped scheduler. shutdownNow returns the tasks it drained without cancelling
     *     them (as the JDK's does), so the word stays a deadline; the scheduler's run state,
     *     read after the CAS (mayRun), is what says the task will never run. A touch that
     *     returned true before shutdownNow is ordered before it.
     */

    /** The value once the task has fired ([1]). */
    long FIRED = -1L;
    /** The value once the task was cancelled ([1]). */
    long CANCELLED = -2L;

    /**
     * The grain of a per-task tolerance ([4]): the largest power of two not above it, or 1 (no
     * rounding) for a tolerance of 0.
     *
     * @param toleranceNanos the tolerance, not negative
     */
    static long grainOf(long toleranceNanos) {
        return toleranceNanos <= 0L ? 1L : Long.highestOneBit(toleranceNanos);
    }

    /**
     * Where a task armed for {@code deadline} goes in its wheel ([4]): the deadline rounded up
     * to a multiple of {@code grain}; a deadline within a grain of {@link Long#MAX_VALUE} (never
     * due in practice) stays as it is.
     *
     * @param deadline a wheel time, not negative
     * @param grain a power of two
     */
    static long position(long deadline, long grain) {
        long up = deadline + (grain - 1L);
        return up < 0L ? deadline : up & -grain;
    }

    // ---------------------------------------------------------------------------------------
    // What the handle keeps ([3]): fields of its own.

    /** The word ([1]): a volatile read. */
    long armed();

    /** A CAS of the word ([1]): true if it held {@code seen} and now holds {@code next}. */
    boolean casArmed(long seen, long next);

    /** The timeout a touch adds to now: a volatile read (a racing touch uses either value). */
    long timeoutNanos();

    /** Sets the timeout, a volatile write; called by rearm only. */
    void timeoutNanos(long timeoutNanos);

    /**
     * Records the deadline the claim fired at ([9]): written by the claim's winner before it
     * runs the action, read by the thread that runs it (the same, or one the hand-over
     * happens-before).
     */
    void firedAt(long deadline);

    // ---------------------------------------------------------------------------------------
    // What its scheduler does for it.

    /** The executor whose wheel time the word is in (the timer's engine, for a timeout). */
    WheelScheduledExecutor engine();

    /**
     * Whether the scheduler may still run the handle ([10]): false once it has stopped, so a
     * touch must not say the handle will fire.
     */
    boolean mayRun();

    /** The word moved before the task's wheel position: its shard must move it ([7]). */
    void moveEarlierInWheel();

    /** The claim found the word armed for later than now: the task goes back to its wheel ([8]). */
    void relinkArmedLater();

    // ---------------------------------------------------------------------------------------
    // The protocol.

    @Override
    default boolean touch() {
        // only later ([5]): never before what a racing touch with a later clock reading
        // promised; moving later needs no wheel work ([2])
        return moveLater(engine().deadlineAfter(timeoutNanos())) >= 0L && mayRun();
    }

    @Override
    default boolean rearm(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        long timeoutNanos = Math.max(0L, unit.toNanos(timeout));
        if (!isArmed()) {
            return false;
        }
        timeoutNanos(timeoutNanos);
        long target = engine().deadlineAfter(timeoutNanos);
        long before = moveTo(target);
        if (before < 0L) {
            return false;
        }
        if (target < before) {
            moveEarlierInWheel(); // [7]
        }
        return mayRun();
    }

    @Override
    default long timeout(TimeUnit unit) {
        return unit.convert(timeoutNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    default long remaining(TimeUnit unit) {
        long d = armed();
        return d < 0L ? 0L : unit.convert(d - engine().wheelNow(), TimeUnit.NANOSECONDS);
    }

    @Override
    default boolean isArmed() {
        return armed() >= 0L && mayRun();
    }

    /** The deadline the handle is armed for, or -1 once it fired or was cancelled. */
    default long armedOrNone() {
        long d = armed();
        return d >= 0L ? d : -1L;
    }

    /**
     * Claims the firing ([8]): true for the one caller that should now run the action; a task
     * touched since the harvest goes back to its wheel instead.
     */
    default boolean claimElseRelink() {
        long now = engine().wheelNow();
        long claimed = claim(now);
        if (claimed >= 0L && claimed <= now) {
            firedAt(claimed);
            return true;
        }
        if (claimed >= 0L) {
            relinkArmedLater(); // touched since the harvest: back to the wheel
        }
        return false;
    }

    /** Ends the arming: true for the one call that moved the word from armed to CANCELLED. */
    default boolean disarm() {
        for (;;) {
            long seen = armed();
            if (seen < 0L) {
                return false;
            }
            if (casArmed(seen, CANCELLED)) {
                return true;
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // The CAS loops on the word ([1], [5]).

    /**
     * Moves the armed deadline to {@code target}, earlier or later (a rearm, [5]).
     *
     * @return the deadline it replaced (so the caller sees whether it moved earlier), or FIRED
     *     or CANCELLED if it is no longer armed and nothing changed
     */
    private long moveTo(long target) {
        for (;;) {
            long seen = armed();
            if (seen < 0L || seen == target) {
                return seen;
            }
            if (casArmed(seen, target)) {
                return seen;
            }
        }
    }

    /**
     * Moves the armed deadline to {@code target} if that is later; an armed deadline at or after
     * it stays ([5]).
     *
     * @return the deadline seen last: the one replaced, or one at or after {@code target} that
     *     stays; or FIRED or CANCELLED if it is no longer armed and nothing changed
     */
    private long moveLater(long target) {
        for (;;) {
            long seen = armed();
            if (seen < 0L || seen >= target) {
                return seen;
            }
            if (casArmed(seen, target)) {
                return seen;
            }
        }
    }

    /**
     * Fires the task if its deadline has come ([1]).
     *
     * @param now wheel time, read before this call
     * @return the deadline the call decided on: at most {@code now} if this call fired the
     *     task (CAS to FIRED), later than {@code now} if the task is armed for later (the caller
     *     re-links it there), or FIRED or CANCELLED if it had ended already
     */
    private long claim(long now) {
        for (;;) {
            long seen = armed();
            if (seen < 0L || seen > now) {
                return seen;
            }
            if (casArmed(seen, FIRED)) {
                return seen;
            }
        }
    }
}
