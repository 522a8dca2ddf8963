package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimingWheel;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * What a fixed-rate task does when it has missed runs: when a run ends after the next run was
 * already due, because of a long pause (a GC, a suspended machine, an overloaded host, busy
 * workers) or a run that took longer than the period.
 *
 * <p>The rule is applied each time a run ends, at the time {@code end} it ended, to the run's
 * deadline {@code d} and the period {@code p}. If {@code d + p >= end}, nothing was missed and
 * every policy schedules the next run at {@code d + p}. Otherwise:
 * <ul>
 *   <li>{@link #CATCH_UP}: the next run is due at {@code d + p}, already past, so it starts at
 *       once, and so on until the task is back on schedule: every missed run happens, late and
 *       back to back. This is what {@link ScheduledThreadPoolExecutor} does, and the default.
 *   <li>{@link #SKIP}: the missed runs are dropped; the next run is at the first
 *       {@code d + k * p} not before {@code end}, so the task keeps its phase.
 *   <li>{@link #RESTART}: the missed runs are dropped and the period starts again from
 *       {@code end}: the next run is at {@code end + p}, and the phase moves.
 * </ul>
 *
 * <p>A timeline: period 10 ms, first run at 0, runs that take no time, and nothing can run from
 * 25 ms to 58 ms (the runs due at 30, 40 and 50 are missed). Times in ms:
 * <pre>
 *   deadlines    0  10  20  30  40  50  60  70  80
 *   pause                 |25 ............ 58|
 *   CATCH_UP     0  10  20  58  58  58  60  70  80     the runs due at 30, 40, 50 all at 58
 *   SKIP         0  10  20  58          60  70  80     the run due at 30 at 58, then on the old phase
 *   RESTART      0  10  20  58  68  78  88  98         the run due at 30 at 58, then every 10 from it
 * </pre>
 *
 * <p>Under every policy the runs of one task never overlap, none starts before its deadline, and
 * the run that was due when the pause ended does happen (at the end of the pause): a policy
 * decides only what comes after it. Fixed-delay tasks have nothing to miss: each run is due a
 * delay after the previous one ended.
 *
 * @see WheelScheduledExecutor#scheduleAtFixedRate(Runnable, long, long, java.util.concurrent.TimeUnit, MissedRunPolicy)
 * @see WheelScheduledExecutor.Builder#missedRunPolicy(MissedRunPolicy)
 */
public enum MissedRunPolicy {

    /** Run every missed run at once, back to back: the JDK's behaviour and the default. */
    CATCH_UP,

    /** Drop the missed runs and keep the phase: the next run is the next one on the old schedule. */
    SKIP,

    /** Drop the missed runs and start the period again from the end of the late run. */
    RESTART;

    /**
     * The deadline of the run after one that was due at {@code deadline} and ended at
     * {@code end}, all in wheel time (nanoseconds since the wheel's origin, never negative, so
     * differences cannot overflow).
     *
     * @param period positive, in nanoseconds
     */
    long nextDeadline(long deadline, long period, long end) {
        long next = TimingWheel.addSaturated(deadline, period);
        if (next >= end || this == CATCH_UP) {
            return next;
        }
        if (this == RESTART) {
            return TimingWheel.addSaturated(end, period);
        }
        // SKIP: the first deadline + k * period >= end (k >= 2 here). The largest k * period
        // <= end - deadline cannot overflow; one more period is added saturating.
        long onSchedule = deadline + (end - deadline) / period * period;
        return onSchedule == end ? onSchedule : TimingWheel.addSaturated(onSchedule, period);
    }
}
