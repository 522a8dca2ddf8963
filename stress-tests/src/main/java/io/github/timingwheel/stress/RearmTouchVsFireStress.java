package io.github.timingwheel.stress;

import static io.github.timingwheel.stress.StressExecutors.LOST;
import static io.github.timingwheel.stress.StressExecutors.WAIT_SECONDS;
import static io.github.timingwheel.stress.StressExecutors.awaitWorkerPassed;

import io.github.timingwheel.executor.RearmableFuture;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A touch of a re-armable timeout ({@link WheelScheduledExecutor#scheduleRearmable}) racing
 * with its firing, and with its cancel.
 *
 * <p>Touch, fire and cancel each CAS one word of the handle (its armed deadline, or FIRED, or
 * CANCELLED), and the firing CASes only from a deadline it has seen pass. So a touch either
 * comes first, and then the firing waits for the new deadline (the worker's claim fails and the
 * task goes back to its wheel), or comes after and returns false; never both. And a cancel and
 * a touch are ordered the same way: a touch after a cancel returns false.
 * <ul>
 *   <li>{@link WorkerFires}: the race as users meet it. The actor arms a 1 ms timeout, spins
 *       until its deadline has passed (the worker is waking up for it), then touches it. If the
 *       touch returned true, the action must start no earlier than the time read just before
 *       the touch plus the timeout; if false, the action must have run (it fired first). It
 *       runs once either way. The arbiter waits for the action ({@code get}, 10 s) and for the
 *       worker to pass a marker, so a second or lost run cannot escape.
 *   <li>{@link TouchVsCancel}: the handle alone, both parties under jcstress's control: one
 *       actor touches a timeout armed for an hour, the other cancels it.
 * </ul>
 *
 * <p>Mutant seen red: a touch that returns true without moving the deadline
 * ({@code ArmedDeadline.moveLater}, as {@code moveTo} was, skipping its CAS) gives
 * {@code 1, 1, 1} in WorkerFires.
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t RearmTouchVsFireStress -m quick
 * </pre>
 */
public final class RearmTouchVsFireStress {

    private RearmTouchVsFireStress() {
    }

    static final WheelScheduledExecutor EXECUTOR = StressExecutors.oneWorker("rearm-touch-vs-fire");

    /**
     * The timeout of {@link WorkerFires}: the touch comes as the first deadline passes, when the
     * worker is waking up for it, so the two meet; and it is long against the worker's wake-up
     * latency, so a firing at the first deadline after a successful touch (a touch that did not
     * move it) shows as early.
     */
    static final long TIMEOUT_NANOS = 1_000_000L;

    @JCStressTest
    @Outcome(id = "1, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "The touch came first: true, and the action ran once, no earlier than the "
                    + "touch plus the timeout.")
    @Outcome(id = "0, 1, 0", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The worker fired first: the touch returned false, the action ran once.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "An action that ran before the deadline a successful touch set (r3 = 1), "
                    + "twice, or never (-1: it did not run within 10 s).")
    @State
    public static class WorkerFires implements Runnable {
        /** Written by the one thread that runs the action (a second run would show in the count). */
        volatile int runs;
        volatile long startedAt;

        @Override
        public void run() {
            startedAt = System.nanoTime();
            runs++;
        }

        volatile boolean touched;
        volatile long touchedAt;
        volatile RearmableFuture<Void> handle;

        @Actor
        public void armWaitAndTouch(III_Result r) {
            RearmableFuture<Void> h = EXECUTOR.scheduleRearmable(this, TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
            handle = h;
            while (h.remaining(TimeUnit.NANOSECONDS) > 0) {
                Thread.onSpinWait();
            }
            long before = System.nanoTime();
            touched = h.touch();
            touchedAt = before;
            r.r1 = touched ? 1 : 0;
        }

        @Arbiter
        public void afterTheAction(III_Result r) {
            boolean ran = waitForTheAction(handle) && awaitWorkerPassed(EXECUTOR);
            r.r2 = ran ? runs : LOST;
            r.r3 = touched && startedAt - (touchedAt + TIMEOUT_NANOS) < 0 ? 1 : 0;
        }
    }

    private static boolean waitForTheAction(RearmableFuture<Void> handle) {
        try {
            handle.get(WAIT_SECONDS, TimeUnit.SECONDS);
            return true;
        } catch (TimeoutException | CancellationException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException("the action failed", e);
        }
    }

    @JCStressTest
    @Outcome(id = "1, 1", expect = Expect.ACCEPTABLE,
            desc = "The touch came first (true), then the cancel (true).")
    @Outcome(id = "0, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The cancel came first; the touch found the handle cancelled and returned false.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A cancel that failed although nothing else ends the handle, or a handle left "
                    + "armed (r2 = 2 or 3: the cancel's result plus 2 if still armed).")
    @State
    public static class TouchVsCancel {
        final RearmableFuture<Void> handle = EXECUTOR.scheduleRearmable(() -> { }, 1L, TimeUnit.HOURS);

        @Actor
        public void touch(II_Result r) {
            r.r1 = handle.touch() ? 1 : 0;
        }

        @Actor
        public void cancel(II_Result r) {
            r.r2 = handle.cancel(false) ? 1 : 0;
        }

        @Arbiter
        public void afterBoth(II_Result r) {
            if (handle.isArmed() || handle.touch()) {
                r.r2 += 2;
            }
        }
    }
}
