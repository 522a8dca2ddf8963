package io.github.timingwheel.stress;

import static io.github.timingwheel.stress.StressExecutors.LOST;
import static io.github.timingwheel.stress.StressExecutors.awaitWorkerPassed;

import io.github.timingwheel.executor.TaskGroup;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.concurrent.RejectedExecutionException;
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
 * A zero-delay {@code schedule} on a {@link TaskGroup} racing with the group's
 * {@code cancelAll()} (its cancel-everything call; the group's {@code close()} waits, as
 * {@code ExecutorService.close()} does), while the executor's only worker may already be firing
 * the task: cancelAll vs schedule and cancelAll vs fire in one race (named "close" below).
 *
 * <p>{@code schedule} links the task into the group (refused once the group is closed), hands
 * it to the executor, then reports back; {@code cancelAll()} marks the group closed, waits for a
 * submission in flight, and cancels every task still linked. So the task is rejected, or ran
 * before close, or was cancelled by close (before its run, or during it: as with
 * {@code cancel(false)}, a run already claimed goes on to its end). It is never accepted and
 * then left pending, never runs twice, and the group always ends empty and terminated.
 *
 * <p>{@link Plain} uses a plain group; {@link Serial} a serial one, where the worker reaches the
 * task through the group's run queue. The arbiter reads the outcome once the worker has gone
 * past the task ({@link StressExecutors#awaitWorkerPassed}).
 *
 * <p>Result: (schedule accepted, runs of the body, future cancelled, tasks left in the group
 * plus 10 if the group has not terminated); runs -1: the worker never came.
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t GroupCloseVsScheduleStress -m quick
 * </pre>
 */
public final class GroupCloseVsScheduleStress {

    private GroupCloseVsScheduleStress() {
    }

    static final WheelScheduledExecutor EXECUTOR = StressExecutors.oneWorker("group-close-vs-schedule");

    /** One group, one task; the body counts its runs (only the one worker runs it). */
    abstract static class Race implements Runnable {
        final TaskGroup group;
        volatile int runs;
        volatile ScheduledFuture<?> future;

        Race(TaskGroup group) {
            this.group = group;
        }

        @Override
        public void run() {
            runs++;
        }

        void schedule(IIII_Result r) {
            try {
                future = group.schedule(this, 0L, TimeUnit.NANOSECONDS);
                r.r1 = 1;
            } catch (RejectedExecutionException e) {
                r.r1 = 0;
            }
        }

        void report(IIII_Result r) {
            ScheduledFuture<?> f = future;
            r.r2 = awaitWorkerPassed(EXECUTOR) ? runs : LOST;
            r.r3 = f != null && f.isCancelled() ? 1 : 0;
            r.r4 = group.pendingTasks() + (group.isTerminated() ? 0 : 10);
        }
    }

    @JCStressTest
    @Outcome(id = "0, 0, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Rejected: close came first and schedule threw RejectedExecutionException.")
    @Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Ran: the worker completed the task before close looked.")
    @Outcome(id = "1, 0, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "Cancelled by close before the worker claimed it; it never ran.")
    @Outcome(id = "1, 1, 1, 0", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Cancelled by close while the worker ran it (cancel(false) of a run in progress).")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "Accepted but neither run nor cancelled (left pending after close), two runs, a "
                    + "task left in the group, a group not terminated, or no worker (-1).")
    @State
    public static class Plain extends Race {
        public Plain() {
            super(EXECUTOR.newGroup());
        }

        @Actor
        public void schedule(IIII_Result r) {
            super.schedule(r);
        }

        @Actor
        public void close() {
            group.cancelAll();
        }

        @Arbiter
        public void afterTheWorker(IIII_Result r) {
            report(r);
        }
    }

    @JCStressTest
    @Outcome(id = "0, 0, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Rejected: close came first and schedule threw RejectedExecutionException.")
    @Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Ran: the group's drain completed the task before close looked.")
    @Outcome(id = "1, 0, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "Cancelled by close before the drain claimed it; it never ran.")
    @Outcome(id = "1, 1, 1, 0", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Cancelled by close while the drain ran it (cancel(false) of a run in progress).")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "Accepted but neither run nor cancelled (left pending after close), two runs, a "
                    + "task left in the group, a group not terminated, or no worker (-1).")
    @State
    public static class Serial extends Race {
        public Serial() {
            super(EXECUTOR.newSerialGroup());
        }

        @Actor
        public void schedule(IIII_Result r) {
            super.schedule(r);
        }

        @Actor
        public void close() {
            group.cancelAll();
        }

        @Arbiter
        public void afterTheWorker(IIII_Result r) {
            report(r);
        }
    }
}
