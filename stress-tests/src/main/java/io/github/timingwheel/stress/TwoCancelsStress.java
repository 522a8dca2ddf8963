package io.github.timingwheel.stress;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Two threads cancel the same pending task of {@link WheelScheduledExecutor} at once, one with
 * {@code cancel(false)} and one with {@code cancel(true)}.
 *
 * <p>Both calls try the same CAS from NEW (to CANCELLED, or to INTERRUPTING and then
 * INTERRUPTED); exactly one can succeed, so exactly one call returns true, and afterwards the
 * future is cancelled and done whichever won. A check-then-act cancel ({@code if (state == NEW)
 * state = CANCELLED}) would let both return true, and the task would be released twice.
 *
 * <p>The task is due in an hour, so the worker never runs it; the winning cancel unlinks it
 * from the wheel (remove-on-cancel is on by default), so the states leave nothing behind.
 *
 * <p>Result: (first cancel returned true, second cancel returned true, the future then
 * reports isCancelled and isDone).
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t TwoCancelsStress -m quick
 * </pre>
 */
@JCStressTest
@Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE,
        desc = "cancel(false) won; cancel(true) returned false; the future is cancelled.")
@Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE,
        desc = "cancel(true) won; cancel(false) returned false; the future is cancelled.")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "Both or neither cancel returned true, or the future does not report cancelled and done.")
@State
public class TwoCancelsStress {

    static final WheelScheduledExecutor EXECUTOR = StressExecutors.oneWorker("two-cancels");

    private static final Runnable NOOP = () -> { };

    final ScheduledFuture<?> future = EXECUTOR.schedule(NOOP, 1L, TimeUnit.HOURS);

    @Actor
    public void cancelWithoutInterrupt(III_Result r) {
        r.r1 = future.cancel(false) ? 1 : 0;
    }

    @Actor
    public void cancelWithInterrupt(III_Result r) {
        r.r2 = future.cancel(true) ? 1 : 0;
    }

    @Arbiter
    public void afterBoth(III_Result r) {
        r.r3 = future.isCancelled() && future.isDone() ? 1 : 0;
    }
}
