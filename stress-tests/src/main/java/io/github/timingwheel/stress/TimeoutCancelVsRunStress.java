package io.github.timingwheel.stress;

import io.github.timingwheel.executor.WheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * {@link TimeoutCancelVsExpireStress} with both parties under jcstress's control: one actor
 * expires the timeout as the timer's worker does ({@code run()} of the queued timeout, which
 * claims it by a CAS from INIT to EXPIRED and then runs the task), the other calls
 * {@code Timeout.cancel()}. Exactly one of "expired" and "cancelled" may happen.
 *
 * <p>The timeout is armed 1 s ahead, long after both actors of its state have finished; the
 * timer's worker then finds it already expired or cancelled and does nothing, and no timeout
 * stays in the wheel.
 *
 * <p>Checked against a mutant (2026-11-23, {@code -m quick -sc false} with the CI flags, 2
 * configurations): an expiry that claims the timeout with a check and a plain write instead of
 * a CAS gave the forbidden (1, 1, 1, 2), both fates, in 50,946 of 1,252,832 samples.
 *
 * <p>Result: (cancel returned true, runs of the task, calls of {@code cancelled}, final state:
 * 1 isCancelled only, 2 isExpired only, 0 neither, 3 both).
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t TimeoutCancelVsRunStress -m quick
 * </pre>
 */
@JCStressTest
@Outcome(id = "1, 0, 1, 1", expect = Expect.ACCEPTABLE,
        desc = "Cancel won: true, the task never ran, cancelled() was called once, isCancelled.")
@Outcome(id = "0, 1, 0, 2", expect = Expect.ACCEPTABLE,
        desc = "run() expired it first: it ran once, cancel returned false, isExpired.")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "Both or neither fate, a task that ran after a successful cancel or twice, or a "
                + "cancel's return that disagrees with the state.")
@State
public class TimeoutCancelVsRunStress implements TimerTask {

    static final WheelTimer TIMER = StressExecutors.oneWorkerTimer("timeout-cancel-vs-run");

    volatile int runs;
    volatile int cancelledCalls;
    final Timeout timeout = TIMER.newTimeout(this, 1L, TimeUnit.SECONDS);

    @Override
    public void run(Timeout t) {
        runs++;
    }

    @Override
    public void cancelled(Timeout t) {
        cancelledCalls++;
    }

    @Actor
    public void expireAsTheWorkerDoes() {
        ((Runnable) timeout).run();
    }

    @Actor
    public void cancel(IIII_Result r) {
        r.r1 = timeout.cancel() ? 1 : 0;
    }

    @Arbiter
    public void afterBoth(IIII_Result r) {
        r.r2 = runs;
        r.r3 = cancelledCalls;
        r.r4 = (timeout.isCancelled() ? 1 : 0) + (timeout.isExpired() ? 2 : 0);
    }
}
