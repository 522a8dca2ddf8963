package io.github.timingwheel.stress;

import static io.github.timingwheel.stress.StressExecutors.LOST;
import static io.github.timingwheel.stress.StressExecutors.awaitWorkerPassed;

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
 * {@link Timeout#cancel()} racing with the expiry of a zero-delay timeout of {@link WheelTimer}.
 *
 * <p>A {@code WheelTimeout} has one state word: the worker moves it from INIT to EXPIRED by a
 * CAS <em>before</em> it calls {@link TimerTask#run}, and {@code cancel} moves it from INIT to
 * CANCELLED by a CAS before it calls {@link TimerTask#cancelled}. So, unlike a
 * {@code FutureTask}, a timeout is never both: exactly one of "expired" (the task ran once,
 * {@code cancel} returned false, {@code isExpired}) and "cancelled" (the task never ran,
 * {@code cancel} returned true, {@code cancelled} was called once, {@code isCancelled}) happens,
 * as in Netty's {@code HashedWheelTimeout}.
 *
 * <p>One actor arms the timeout and cancels it at once; the timer's only worker (the other
 * party) expires it. The arbiter waits until the worker has fired a zero-delay marker armed after
 * it ({@link StressExecutors#awaitWorkerPassed(io.netty.util.Timer)}), so a late run could not
 * escape.
 *
 * <p>Result: (cancel returned true, runs of the task, calls of {@code cancelled}, final state:
 * 1 isCancelled only, 2 isExpired only, 0 neither, 3 both); a runs value of -1 means the worker
 * did not come within {@link StressExecutors#WAIT_SECONDS}.
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t TimeoutCancelVsExpireStress -m quick
 * </pre>
 */
@JCStressTest
@Outcome(id = "1, 0, 1, 1", expect = Expect.ACCEPTABLE,
        desc = "Cancel won: true, the task never ran, cancelled() was called once, isCancelled.")
@Outcome(id = "0, 1, 0, 2", expect = Expect.ACCEPTABLE,
        desc = "The worker expired it first: it ran once, cancel returned false, isExpired.")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "Both or neither fate, a task that ran after a successful cancel or twice, a "
                + "cancel's return that disagrees with the state, or no worker (-1).")
@State
public class TimeoutCancelVsExpireStress implements TimerTask {

    static final WheelTimer TIMER = StressExecutors.oneWorkerTimer("timeout-cancel-vs-expire");

    volatile int runs;
    volatile int cancelledCalls;

    @Override
    public void run(Timeout timeout) {
        runs++;
    }

    @Override
    public void cancelled(Timeout timeout) {
        cancelledCalls++;
    }

    volatile Timeout timeout;

    @Actor
    public void armAndCancel(IIII_Result r) {
        Timeout t = TIMER.newTimeout(this, 0L, TimeUnit.NANOSECONDS);
        timeout = t;
        r.r1 = t.cancel() ? 1 : 0;
    }

    @Arbiter
    public void afterTheWorker(IIII_Result r) {
        boolean passed = awaitWorkerPassed(TIMER);
        Timeout t = timeout;
        r.r2 = passed ? runs : LOST;
        r.r3 = cancelledCalls;
        r.r4 = (t.isCancelled() ? 1 : 0) + (t.isExpired() ? 2 : 0);
    }
}
