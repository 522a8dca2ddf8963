package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimingWheel;

/**
 * A fixed-rate or fixed-delay task: after each run that completes normally and is not
 * cancelled, it computes its next deadline and goes back into the wheel.
 *
 * <p>Fixed-rate runs are due at {@code initialDelay + n * period} until runs are missed; then
 * the task's {@link MissedRunPolicy} decides (by default, {@link MissedRunPolicy#CATCH_UP}: a
 * late run is followed at once by the next if that is due too). Fixed-delay runs are due
 * {@code delay} after the previous run ended. Runs never overlap: the next run is scheduled only
 * after this one returned, and that hand-over (through the queue) makes each run happen-before
 * the next.
 *
 * <p>Layout: one subclass per kind of schedule (fixed delay, and fixed rate under each missed-run
 * policy) names its kind in its code rather than in a field, so that a periodic task is a
 * one-shot task plus the period; the rule itself ({@link #nextDeadline}) is written once.
 */
abstract class PeriodicTask extends ScheduledTask<Void> {

    /** The period (fixed rate) or delay (fixed delay), positive, in nanoseconds. */
    final long period;

    PeriodicTask(WheelScheduledExecutor owner, Runnable body, long period) {
        super(owner, body);
        this.period = period;
    }

    /**
     * A task whose runs are due {@code n * period} after its first deadline, with {@code policy}
     * for missed runs; to place at its initial delay ({@link WheelWorkQueue#place}).
     */
    static PeriodicTask fixedRate(WheelScheduledExecutor owner, Runnable body, long period, MissedRunPolicy policy) {
        return switch (policy) {
            case CATCH_UP -> new CatchingUp(owner, body, period);
            case SKIP -> new Skipping(owner, body, period);
            case RESTART -> new Restarting(owner, body, period);
        };
    }

    /**
     * A task whose runs are due {@code delay} after the previous one ended; to place at its
     * initial delay ({@link WheelWorkQueue#place}).
     */
    static PeriodicTask fixedDelay(WheelScheduledExecutor owner, Runnable body, long delay) {
        return new FixedDelay(owner, body, delay);
    }

    @Override
    public boolean isPeriodic() {
        return true;
    }

    @Override
    void runAgain() {
        // Written by the thread that ran the task, before the queue publishes it again.
        setDeadline(nextDeadline());
        owner.reExecutePeriodic(this);
    }

    /**
     * What a fixed-rate task does after missed runs; null for a fixed-delay task. A constant of
     * each subclass below, a field of a grouped task.
     */
    abstract MissedRunPolicy missedRunPolicy();

    /**
     * The deadline of the next run, computed when a run has ended; wheel time. The periodic
     * rule, for every periodic task: fixed delay, the delay from now (ScheduledThreadPoolExecutor's
     * {@code triggerTime(delay)}); fixed rate, one period after this run's deadline
     * ({@code time += period}) with no clock read under {@link MissedRunPolicy#CATCH_UP}, the
     * JDK's, and as the policy says after missed runs under the others.
     */
    final long nextDeadline() {
        MissedRunPolicy policy = missedRunPolicy();
        if (policy == null) {
            return owner.deadlineAfter(period);
        }
        if (policy == MissedRunPolicy.CATCH_UP) {
            return TimingWheel.addSaturated(deadline(), period);
        }
        return policy.nextDeadline(deadline(), period, owner.wheelNow());
    }

    private static final class FixedDelay extends PeriodicTask {
        FixedDelay(WheelScheduledExecutor owner, Runnable body, long delay) {
            super(owner, body, delay);
        }

        @Override
        MissedRunPolicy missedRunPolicy() {
            return null;
        }
    }

    private static final class CatchingUp extends PeriodicTask {
        CatchingUp(WheelScheduledExecutor owner, Runnable body, long period) {
            super(owner, body, period);
        }

        @Override
        MissedRunPolicy missedRunPolicy() {
            return MissedRunPolicy.CATCH_UP;
        }
    }

    private static final class Skipping extends PeriodicTask {
        Skipping(WheelScheduledExecutor owner, Runnable body, long period) {
            super(owner, body, period);
        }

        @Override
        MissedRunPolicy missedRunPolicy() {
            return MissedRunPolicy.SKIP;
        }
    }

    private static final class Restarting extends PeriodicTask {
        Restarting(WheelScheduledExecutor owner, Runnable body, long period) {
            super(owner, body, period);
        }

        @Override
        MissedRunPolicy missedRunPolicy() {
            return MissedRunPolicy.RESTART;
        }
    }
}
