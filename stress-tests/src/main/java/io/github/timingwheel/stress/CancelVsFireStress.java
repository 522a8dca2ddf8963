package io.github.timingwheel.stress;

import static io.github.timingwheel.stress.StressExecutors.LOST;
import static io.github.timingwheel.stress.StressExecutors.awaitWorkerPassed;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Cancel racing with the run of a one-shot task of {@link WheelScheduledExecutor}.
 *
 * <p>The task's state is {@code FutureTask}'s: a run claims the task (a CAS on its runner),
 * checks once more that it is still NEW, and calls the body; {@code cancel} leaves NEW by a CAS.
 * Only one CAS from NEW can win, so exactly one of "completed" and "cancelled" happens, and a
 * body never runs twice. As with {@code FutureTask} and {@code ScheduledThreadPoolExecutor},
 * {@code cancel} also wins against a run that is in progress (the task is still NEW until the
 * body returns) and does not stop it. "In progress" begins at the run's last state check, a few
 * instructions before the body's first line, so a body may begin just <em>after</em>
 * {@code cancel(false)} returned true: nothing the canceller can see tells such a run from one
 * that was never claimed. {@code cancel(true)} can: it interrupts the runner it finds, and a run
 * that passed its last check had already published itself as runner. So:
 * <ul>
 *   <li>{@link WorkerFires}: the race as users meet it. One actor schedules a zero-delay task
 *       and cancels it with {@code cancel(false)} at once; the executor's only worker (the other
 *       party) takes and runs it. Forbidden: a body that runs twice, or never although
 *       {@code cancel} returned false.
 *   <li>{@link WorkerFiresCancelInterrupting}: the same with {@code cancel(true)}, which makes a
 *       late start visible: a body that begins after {@code cancel} returned true must find its
 *       thread interrupted (its run was claimed before the cancel); one that does not started a
 *       run after a successful cancel, which is forbidden.
 *   <li>{@link CancelInterruptingVsRun}: the state machine alone, with both parties under
 *       jcstress's control: one actor calls {@code run()} on the task, as a worker does once it
 *       has taken it from the queue, while the other calls {@code cancel(true)}. The task was
 *       scheduled an hour ahead, so the worker itself never runs it; the arbiter removes it.
 * </ul>
 * Each body records how often it ran and whether, when it began, {@code cancel} had already
 * returned true (a volatile flag the cancelling thread sets after the call) and whether its
 * thread was interrupted then. Results: (cancel returned true, runs of the body, began after the
 * successful cancel[, found the interrupt at its start]). The worker tests'
 * arbiters read them only once the worker has gone past the task
 * ({@link StressExecutors#awaitWorkerPassed}), so a late run could not escape.
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t CancelVsFireStress -m quick
 * </pre>
 */
public final class CancelVsFireStress {

    private CancelVsFireStress() {
    }

    static final WheelScheduledExecutor EXECUTOR = StressExecutors.oneWorker("cancel-vs-fire");

    /**
     * The body: counts its runs and records what it saw when it began. The worker tests' states
     * are bodies; {@link CancelInterruptingVsRun}, which schedules in its constructor, holds one
     * instead, so that it does not publish itself before it is constructed.
     */
    static class Body implements Runnable {
        /** Written by the one thread that runs the body (a second run would show in the count). */
        volatile int runs;
        volatile int beganAfterCancel;
        volatile int interruptedAtStart;
        /** Set by the cancelling actor after cancel returned true. */
        volatile boolean cancelReturnedTrue;

        @Override
        public void run() {
            if (cancelReturnedTrue) {
                beganAfterCancel = 1;
            }
            if (Thread.interrupted()) { // cleared: the interrupt was meant for this run only
                interruptedAtStart = 1;
            }
            runs++;
        }

        boolean cancel(ScheduledFuture<?> future, boolean mayInterrupt) {
            boolean cancelled = future.cancel(mayInterrupt);
            if (cancelled) {
                cancelReturnedTrue = true;
            }
            return cancelled;
        }
    }

    @JCStressTest
    @Outcome(id = "1, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Cancel won before the worker claimed the run: true, the body never ran.")
    @Outcome(id = "1, 1, 0", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Cancel came while the body ran: true (FutureTask's contract), the body finished.")
    @Outcome(id = "1, 1, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The worker had claimed the run just before cancel: true, and the body's first "
                    + "line came after cancel returned (FutureTask's window; see the javadoc).")
    @Outcome(id = "0, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "The worker ran the body to completion first; cancel returned false.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A body that ran twice, or never although cancel returned false; or the worker "
                    + "never came (-1: lost wake-up).")
    @State
    public static class WorkerFires extends Body {
        @Actor
        public void scheduleAndCancel(III_Result r) {
            r.r1 = cancel(EXECUTOR.schedule(this, 0L, TimeUnit.NANOSECONDS), false) ? 1 : 0;
        }

        @Arbiter
        public void afterTheWorker(III_Result r) {
            r.r2 = awaitWorkerPassed(EXECUTOR) ? runs : LOST;
            r.r3 = beganAfterCancel;
        }
    }

    @JCStressTest
    @Outcome(id = "1, 0, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Cancel won before the worker claimed the run: true, the body never ran.")
    @Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Cancel came while the body ran, its interrupt after the body's check.")
    @Outcome(id = "1, 1, 0, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Cancel came while the body ran, its interrupt before the body's check.")
    @Outcome(id = "1, 1, 1, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The run was claimed before cancel; its body began after cancel returned, and "
                    + "found the interrupt that marks it as in progress.")
    @Outcome(id = "0, 1, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "The worker ran the body to completion first; cancel returned false, no interrupt.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A run that began after a successful cancel without its interrupt (a late start), "
                    + "a body that ran twice or never although cancel returned false, an interrupt "
                    + "without a successful cancel, or no worker (-1).")
    @State
    public static class WorkerFiresCancelInterrupting extends Body {
        @Actor
        public void scheduleAndCancel(IIII_Result r) {
            r.r1 = cancel(EXECUTOR.schedule(this, 0L, TimeUnit.NANOSECONDS), true) ? 1 : 0;
        }

        @Arbiter
        public void afterTheWorker(IIII_Result r) {
            r.r2 = awaitWorkerPassed(EXECUTOR) ? runs : LOST;
            r.r3 = beganAfterCancel;
            r.r4 = interruptedAtStart;
        }
    }

    @JCStressTest
    @Outcome(id = "1, 0, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Cancel won before run() claimed the task: true, and run() did nothing.")
    @Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Cancel came while the body ran, its interrupt after the body's check.")
    @Outcome(id = "1, 1, 0, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Cancel came while the body ran, its interrupt before the body's check.")
    @Outcome(id = "1, 1, 1, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "run() claimed the task before cancel; its body began after cancel returned, and "
                    + "found the interrupt that marks it as in progress.")
    @Outcome(id = "0, 1, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "run() completed the task first; cancel returned false, no interrupt.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A run that began after a successful cancel without its interrupt (a late start), "
                    + "a body that ran twice or never although cancel returned false, or an "
                    + "interrupt that outlived run() or came without a successful cancel.")
    @State
    public static class CancelInterruptingVsRun {
        final Body body = new Body();
        final RunnableScheduledFuture<?> task =
                (RunnableScheduledFuture<?>) EXECUTOR.schedule(body, 1L, TimeUnit.HOURS);
        volatile int interruptLeft;

        @Actor
        public void runAsAWorkerDoes() {
            task.run();
            if (Thread.interrupted()) { // cleared, as ThreadPoolExecutor does between tasks
                interruptLeft = 1;
            }
        }

        @Actor
        public void cancel(IIII_Result r) {
            r.r1 = body.cancel(task, true) ? 1 : 0;
        }

        @Arbiter
        public void afterBoth(IIII_Result r) {
            EXECUTOR.remove(task); // a task that run() completed stays queued until removed
            r.r2 = body.runs;
            r.r3 = body.beganAfterCancel;
            // An interrupt left after run() is cancel(true)'s, for a run it found claimed; without
            // a successful cancel it would be a stray interrupt (+2, forbidden).
            r.r4 = body.interruptedAtStart + (body.cancelReturnedTrue ? 0 : 2 * interruptLeft);
        }
    }

    /**
     * {@link WorkerFires} with both parties under jcstress's control: one actor calls
     * {@code run()} as a worker does once it has taken the task, the other {@code cancel(false)}.
     * The last column is the future's final state, which must agree with the cancel's return: a
     * run that completed the task after a successful cancel, or a cancel that won against a
     * completed run, would show as a cancel that returned true on a future that is not cancelled
     * (or the reverse).
     *
     * <p>Checked against a mutant (2026-11-23, {@code -m quick -sc false} with the CI flags, 2
     * configurations): a run that completes the task with a plain write over a cancel (no CAS
     * from NEW) gave the forbidden (1, 1, 0, 0) and (1, 1, 1, 0) in 183,640 of 917,806 samples.
     *
     * <p>Result: (cancel returned true, runs of the body, began after the successful cancel,
     * future cancelled).
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0, 1", expect = Expect.ACCEPTABLE,
            desc = "Cancel won before run() claimed the task: run() did nothing.")
    @Outcome(id = "1, 1, 0, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Cancel came while the body ran: true (FutureTask's contract), the body finished.")
    @Outcome(id = "1, 1, 1, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "run() had claimed the task just before cancel; the body's first line came after "
                    + "cancel returned (FutureTask's window; see the javadoc).")
    @Outcome(id = "0, 1, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "run() completed the task first; cancel returned false.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A body that ran twice, or never although cancel returned false, or a final "
                    + "state that disagrees with cancel's return.")
    @State
    public static class CancelVsRun {
        final Body body = new Body();
        final RunnableScheduledFuture<?> task =
                (RunnableScheduledFuture<?>) EXECUTOR.schedule(body, 1L, TimeUnit.HOURS);

        @Actor
        public void runAsAWorkerDoes() {
            task.run();
        }

        @Actor
        public void cancel(IIII_Result r) {
            r.r1 = body.cancel(task, false) ? 1 : 0;
        }

        @Arbiter
        public void afterBoth(IIII_Result r) {
            EXECUTOR.remove(task); // a task that run() completed stays queued until removed
            r.r2 = body.runs;
            r.r3 = body.beganAfterCancel;
            r.r4 = task.isCancelled() ? 1 : 0;
        }
    }
}
