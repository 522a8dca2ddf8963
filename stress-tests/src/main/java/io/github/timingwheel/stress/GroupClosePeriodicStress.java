package io.github.timingwheel.stress;

import static io.github.timingwheel.stress.StressExecutors.LOST;
import static io.github.timingwheel.stress.StressExecutors.awaitWorkerPassed;

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
 * A periodic task of a {@link TaskGroup} closed while the worker runs and reschedules it: after
 * the close returned, no run of it starts again.
 *
 * <p>The actor schedules a 1 ns fixed-rate task in a fresh group, so the executor's only worker
 * runs and reschedules it back to back, then closes the group with {@code shutdownNow()}, which
 * cancels with interrupt: the run the close found in progress carries the interrupt, so a body
 * that begins after the close without it is a run that started late (see
 * {@link CancelVsFireStress} for why {@code cancel(false)} could not tell them apart). The
 * reinsertion that races with the cancel is dropped by the queue, as in
 * {@link PeriodicCancelStress}, and the task leaves the group.
 *
 * <p>Result: (future cancelled, runs capped at 2, starts after the close, still queued plus
 * tasks left in the group times 10 plus 100 if the group has not terminated); runs -1: the
 * worker never came.
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t GroupClosePeriodicStress -m quick
 * </pre>
 */
@JCStressTest
@Outcome(id = "1, 0, 0, 0", expect = Expect.ACCEPTABLE,
        desc = "Closed before the first run: it never ran.")
@Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE,
        desc = "Closed after (or during) the first run; no later run started.")
@Outcome(id = "1, 2, 0, 0", expect = Expect.ACCEPTABLE_INTERESTING,
        desc = "Rescheduled at least once, then closed; no run started after the close.")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "A run that started after close returned, a task close did not cancel, a task left "
                + "in the queue or the group, a group not terminated, or no worker (-1).")
@State
public class GroupClosePeriodicStress implements Runnable {

    static final WheelScheduledExecutor EXECUTOR = StressExecutors.oneWorker("group-close-periodic");

    final TaskGroup group = EXECUTOR.newGroup();
    /** Written only by the one worker, each run happening-before the next. */
    volatile int runs;
    volatile int startsAfterClose;
    volatile boolean closeReturned;
    ScheduledFuture<?> future;

    @Override
    public void run() {
        // Began after close returned, and not the run close found in progress (that one has the
        // interrupt of cancel(true); the worker clears interrupts between tasks).
        if (closeReturned && !Thread.interrupted()) {
            startsAfterClose++;
        }
        runs++;
    }

    @Actor
    public void scheduleAndClose() {
        future = group.scheduleAtFixedRate(this, 0L, 1L, TimeUnit.NANOSECONDS);
        group.shutdownNow();
        closeReturned = true;
    }

    @Arbiter
    public void afterTheWorker(IIII_Result r) {
        boolean passed = awaitWorkerPassed(EXECUTOR);
        r.r1 = future.isCancelled() ? 1 : 0;
        r.r2 = passed ? Math.min(runs, 2) : LOST;
        r.r3 = startsAfterClose;
        r.r4 = (EXECUTOR.getQueue().contains(future) ? 1 : 0) + 10 * group.pendingTasks()
                + (group.isTerminated() ? 0 : 100);
    }
}
