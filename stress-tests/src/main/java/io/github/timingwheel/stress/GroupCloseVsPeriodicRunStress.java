package io.github.timingwheel.stress;

import io.github.timingwheel.executor.TaskGroup;
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
 * {@link GroupClosePeriodicStress} with both parties under jcstress's control: one actor runs a
 * fixed-rate task of a group as the worker does once it has taken it from the queue (the body,
 * then the next deadline and the re-queue), the other closes the group with
 * {@code shutdownNow()}, which cancels the task with interrupt. The state schedules the task an
 * hour out and takes it out of the queue at once, as a worker's take does, so no worker ever
 * runs it. No run may begin after the close returned (the run the close found in progress
 * carries its interrupt), and the re-queue must not leave the task in the queue or the group.
 *
 * <p>Checked against a mutant (2026-11-23, {@code -m quick -sc false} with the CI flags, 2
 * configurations): an in-place enqueue that links the task without asking whether it still
 * wants the wheel (so a re-queue after the close links a cancelled task) gave the forbidden
 * (1, 1, 0, 1) in 15 of 763,101 samples.
 *
 * <p>Result: (future cancelled, runs, starts after the close, still queued plus tasks left in
 * the group times 10 plus 100 if the group has not terminated).
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t GroupCloseVsPeriodicRunStress -m quick
 * </pre>
 */
@JCStressTest
@Outcome(id = "1, 0, 0, 0", expect = Expect.ACCEPTABLE,
        desc = "Closed before run() claimed the task: it never ran.")
@Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE,
        desc = "Closed during or after the run; not re-queued, or re-queued and dropped.")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "A run that started after close returned, a task close did not cancel, a task left "
                + "in the queue or the group, or a group not terminated.")
@State
public class GroupCloseVsPeriodicRunStress implements Runnable {

    static final WheelScheduledExecutor EXECUTOR = StressExecutors.oneWorker("group-close-vs-periodic-run");

    final TaskGroup group = EXECUTOR.newGroup();
    volatile int runs;
    volatile int startsAfterClose;
    volatile boolean closeReturned;
    final ScheduledFuture<?> future;

    public GroupCloseVsPeriodicRunStress() {
        future = group.scheduleAtFixedRate(this, 1L, 1L, TimeUnit.HOURS);
        EXECUTOR.remove((Runnable) future); // as a worker's take: out of the queue, still pending
    }

    @Override
    public void run() {
        // Began after close returned, and not the run close found in progress (that one has the
        // interrupt of cancel(true)).
        if (closeReturned && !Thread.interrupted()) {
            startsAfterClose++;
        }
        runs++;
    }

    @Actor
    public void runAsTheWorkerDoes() {
        ((Runnable) future).run();
        Thread.interrupted(); // cleared, as ThreadPoolExecutor does between tasks
    }

    @Actor
    public void close() {
        group.shutdownNow();
        closeReturned = true;
    }

    @Arbiter
    public void afterBoth(IIII_Result r) {
        r.r1 = future.isCancelled() ? 1 : 0;
        r.r2 = runs;
        r.r3 = startsAfterClose;
        r.r4 = (EXECUTOR.getQueue().contains(future) ? 1 : 0) + 10 * group.pendingTasks()
                + (group.isTerminated() ? 0 : 100);
        EXECUTOR.remove((Runnable) future);
    }
}
