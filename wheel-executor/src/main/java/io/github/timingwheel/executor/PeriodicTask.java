package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimingWheel;

/**
 * A fixed-rate or fixed-delay task: after each run that completes normally and is not
 * cancelled, it computes its next deadline and goes back into the wheel.
 *
 * <p>Fixed-rate runs are due at {@code initialDelay + n * period}; a late run is followed at
 * once by the next if that is due too. Fixed-delay runs are due {@code delay} after the
 * previous run ended. Runs never overlap: the next run is scheduled only after this one
 * returned, and that hand-over (through the queue) makes each run happen-before the next.
 */
class PeriodicTask extends ScheduledTask<Void> {

    /** Positive: fixed rate; negative: fixed delay of {@code -period}; in nanoseconds. */
    private final long period;

    PeriodicTask(WheelScheduledExecutor owner, Runnable body, long deadline, long period) {
        super(owner, body, deadline);
        this.period = period;
    }

    @Override
    public boolean isPeriodic() {
        return true;
    }

    @Override
    void runBody() {
        if (runAndReset()) {
            // Written by the thread that ran the task, before the queue publishes it again.
            setDeadline(period > 0
                    ? TimingWheel.addSaturated(deadline(), period)
                    : owner.deadlineAfter(-period));
            owner.reExecutePeriodic(this);
        }
    }
}
