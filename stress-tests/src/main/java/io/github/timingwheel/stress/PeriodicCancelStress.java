package io.github.timingwheel.stress;

import static io.github.timingwheel.stress.StressExecutors.LOST;
import static io.github.timingwheel.stress.StressExecutors.awaitWorkerPassed;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Cancel racing with the rescheduling of a periodic task of {@link WheelScheduledExecutor}.
 *
 * <p>After each run, the worker checks that the task is still NEW ({@code runBody}), sets
 * the next deadline and puts the task back into the queue ({@code reExecutePeriodic}). A cancel
 * can land anywhere in that sequence, including after the check and before the task is back in
 * the queue. Whatever the order, once {@code cancel} has returned true no run may
 * <em>start</em> (a run already in progress finishes), and the task must not stay in the queue:
 * a reinsertion that raced with the cancel is dropped when the queue applies it, because the
 * queue inserts only tasks that still want the wheel.
 *
 * <p>One actor schedules the task with a 1 ns period (fixed rate, or fixed delay) and no initial
 * delay, so that the only worker runs and reschedules it back to back, then cancels it. The body
 * counts its runs and whether it began after {@code cancel} returned true (a volatile flag the
 * actor sets after the call). A run that had passed its last state check before the cancel
 * counts as in progress, though its body's first line may come after {@code cancel} returned
 * (see {@link CancelVsFireStress}); the cancel is therefore {@code cancel(true)}, whose interrupt
 * marks that run, so that only a run started after the cancel counts as late. The arbiter reads them once the worker has gone past every
 * zero-delay task submitted before ({@link StressExecutors#awaitWorkerPassed}), and asks the
 * queue whether it still holds the task.
 *
 * <p>Result: (cancel returned true, runs before the cancel capped at 2, starts after the cancel,
 * still queued); a runs value of -1 means the worker did not come within
 * {@link StressExecutors#WAIT_SECONDS}.
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t PeriodicCancelStress -m quick
 * </pre>
 */
public final class PeriodicCancelStress {

    private PeriodicCancelStress() {
    }

    static final WheelScheduledExecutor EXECUTOR = StressExecutors.oneWorker("periodic-cancel");

    /** The body, run only by the one worker, each run happening-before the next. */
    abstract static class Body implements Runnable {
        volatile int runs;
        volatile int startsAfterCancel;
        volatile boolean cancelReturnedTrue;
        ScheduledFuture<?> future;

        @Override
        public void run() {
            // Began after the cancel returned, and not the run cancel(true) found in progress
            // (that one has its interrupt; the worker clears interrupts between tasks).
            if (cancelReturnedTrue && !Thread.interrupted()) {
                startsAfterCancel++;
            }
            runs++;
        }

        void cancel(IIII_Result r) {
            boolean cancelled = future.cancel(true);
            if (cancelled) {
                cancelReturnedTrue = true;
            }
            r.r1 = cancelled ? 1 : 0;
        }

        void report(IIII_Result r) {
            boolean passed = awaitWorkerPassed(EXECUTOR);
            r.r2 = passed ? Math.min(runs, 2) : LOST;
            r.r3 = startsAfterCancel;
            r.r4 = EXECUTOR.getQueue().contains(future) ? 1 : 0;
        }
    }

    @JCStressTest
    @Outcome(id = "1, 0, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Cancelled before the first run: it never ran.")
    @Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Cancelled after (or during) the first run; no later run started.")
    @Outcome(id = "1, 2, 0, 0", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Rescheduled at least once, then cancelled; no run started after the cancel.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A run that started after cancel returned true, a cancel that failed (only it "
                    + "can end the task), a cancelled task still queued, or no worker (-1).")
    @State
    public static class FixedRate extends Body {
        @Actor
        public void scheduleAndCancel(IIII_Result r) {
            future = EXECUTOR.scheduleAtFixedRate(this, 0L, 1L, TimeUnit.NANOSECONDS);
            cancel(r);
        }

        @Arbiter
        public void afterTheWorker(IIII_Result r) {
            report(r);
        }
    }

    @JCStressTest
    @Outcome(id = "1, 0, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Cancelled before the first run: it never ran.")
    @Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Cancelled after (or during) the first run; no later run started.")
    @Outcome(id = "1, 2, 0, 0", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Rescheduled at least once, then cancelled; no run started after the cancel.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A run that started after cancel returned true, a cancel that failed (only it "
                    + "can end the task), a cancelled task still queued, or no worker (-1).")
    @State
    public static class FixedDelay extends Body {
        @Actor
        public void scheduleAndCancel(IIII_Result r) {
            future = EXECUTOR.scheduleWithFixedDelay(this, 0L, 1L, TimeUnit.NANOSECONDS);
            cancel(r);
        }

        @Arbiter
        public void afterTheWorker(IIII_Result r) {
            report(r);
        }
    }

    /**
     * The race of {@link FixedRate} with both parties under jcstress's control: one actor runs
     * the task as the worker does once it has taken it from the queue (the body, then the next
     * deadline and the re-queue), the other cancels it with {@code cancel(true)}. The state
     * schedules the task an hour out and takes it out of the queue at once, as a worker's take
     * does, so no worker ever runs it. A re-queue that comes after the cancel must not leave the
     * cancelled task in the queue, and no run may begin after the cancel returned.
     *
     * <p>Checked against a mutant (2026-11-23, {@code -m quick -sc false} with the CI flags, 2
     * configurations): an in-place enqueue that links the task without asking whether it still
     * wants the wheel (so a re-queue after the cancel links a cancelled task) gave the forbidden
     * (1, 1, 0, 1) in 43 of 950,220 samples.
     *
     * <p>Result: (cancel returned true, runs, starts after the cancel, still queued).
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Cancelled before run() claimed the task: it never ran.")
    @Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Cancelled during or after the run; not re-queued, or re-queued and dropped.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A run that started after cancel returned true, a cancel that failed (only it "
                    + "can end the task), or a cancelled task left in the queue by the re-queue.")
    @State
    public static class CancelVsRun extends Body {
        public CancelVsRun() {
            future = EXECUTOR.scheduleAtFixedRate(this, 1L, 1L, TimeUnit.HOURS);
            EXECUTOR.remove((Runnable) future); // as a worker's take: out of the queue, still pending
        }

        @Actor
        public void runAsAWorkerDoes() {
            ((Runnable) future).run();
            Thread.interrupted(); // cleared, as ThreadPoolExecutor does between tasks
        }

        @Actor
        public void cancelIt(IIII_Result r) {
            cancel(r);
        }

        @Arbiter
        public void afterBoth(IIII_Result r) {
            r.r2 = runs;
            r.r3 = startsAfterCancel;
            r.r4 = EXECUTOR.getQueue().contains(future) ? 1 : 0;
            EXECUTOR.remove((Runnable) future);
        }
    }
}
