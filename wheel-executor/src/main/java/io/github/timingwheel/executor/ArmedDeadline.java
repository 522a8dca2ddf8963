package io.github.timingwheel.executor;

import java.lang.invoke.VarHandle;

/**
 * The state of a re-armable task in one word, a {@code volatile long} field of the task itself:
 * the wheel time it is armed for, or that it fired, or that it was cancelled. Every change is
 * one CAS on that word, so a touch, a firing and a cancel are totally ordered, and the firing
 * checks the deadline in the same CAS that ends the arming. The CAS loops live here, once, and
 * take the field's {@link VarHandle} (a static final constant at each call site, which the JIT
 * folds once the loop is inlined).
 */
final class ArmedDeadline {

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
     *     would be late): the caller then submits the task to its shard.
     * [3] The word is a field of the task, not of an object of its own: a touch of one of a
     *     million handles then misses the cache once (the task), not twice.
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
     */

    /** The value once the task has fired ([1]). */
    static final long FIRED = -1L;
    /** The value once the task was cancelled ([1]). */
    static final long CANCELLED = -2L;

    private ArmedDeadline() {
    }

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

    /**
     * Moves an armed deadline to {@code target}, earlier or later (a rearm, [5]).
     *
     * @param word the task's armed-deadline field
     * @return the deadline it replaced (so the caller sees whether it moved earlier), or FIRED
     *     or CANCELLED if it is no longer armed and nothing changed
     */
    static long moveTo(VarHandle word, Object task, long target) {
        for (;;) {
            long seen = (long) word.getVolatile(task);
            if (seen < 0L || seen == target) {
                return seen;
            }
            if (word.compareAndSet(task, seen, target)) {
                return seen;
            }
        }
    }

    /**
     * Moves an armed deadline to {@code target} if that is later; an armed deadline at or after
     * it stays ([5]).
     *
     * @param word the task's armed-deadline field
     * @return the deadline seen last: the one replaced, or one at or after {@code target} that
     *     stays; or FIRED or CANCELLED if it is no longer armed and nothing changed
     */
    static long moveLater(VarHandle word, Object task, long target) {
        for (;;) {
            long seen = (long) word.getVolatile(task);
            if (seen < 0L || seen >= target) {
                return seen;
            }
            if (word.compareAndSet(task, seen, target)) {
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
    static long claim(VarHandle word, Object task, long now) {
        for (;;) {
            long seen = (long) word.getVolatile(task);
            if (seen < 0L || seen > now) {
                return seen;
            }
            if (word.compareAndSet(task, seen, FIRED)) {
                return seen;
            }
        }
    }

    /** Ends the arming: true for the one call that moved it from armed to CANCELLED. */
    static boolean cancel(VarHandle word, Object task) {
        for (;;) {
            long seen = (long) word.getVolatile(task);
            if (seen < 0L) {
                return false;
            }
            if (word.compareAndSet(task, seen, CANCELLED)) {
                return true;
            }
        }
    }
}
