package io.github.timingwheel.stress;

import io.github.timingwheel.executor.TaskGroup;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.List;
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
 * A pending task's own {@code cancel} racing with its {@link TaskGroup}'s {@code shutdownNow()}
 * (which is {@code close()} that also reports what it cancelled).
 *
 * <p>Both end in the task's compare-and-set from NEW, so exactly one of them cancels it; the
 * winner's completion hook unlinks the task from the group once, and close leaves a task whose
 * own cancel won to that cancel's hook. Whatever the order, the group ends empty and
 * terminated, and the task leaves the executor's queue.
 *
 * <p>Result: (own cancel returned true, in the list shutdownNow returned, tasks left in the
 * group plus 10 if the group has not terminated, still in the executor's queue).
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t GroupCloseVsCancelStress -m quick
 * </pre>
 */
@JCStressTest
@Outcome(id = "1, 0, 0, 0", expect = Expect.ACCEPTABLE,
        desc = "The task's own cancel won; close found nothing to cancel.")
@Outcome(id = "0, 1, 0, 0", expect = Expect.ACCEPTABLE,
        desc = "Close won: it cancelled the task and reported it; the own cancel returned false.")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "Both or neither cancelled it, a task left in the group or the queue, or a group "
                + "not terminated.")
@State
public class GroupCloseVsCancelStress {

    static final WheelScheduledExecutor EXECUTOR = StressExecutors.oneWorker("group-close-vs-cancel");

    final TaskGroup group = EXECUTOR.newGroup();
    final ScheduledFuture<?> future = group.schedule(() -> { }, 1L, TimeUnit.HOURS);
    volatile List<Runnable> cancelledByClose;

    @Actor
    public void cancel(IIII_Result r) {
        r.r1 = future.cancel(false) ? 1 : 0;
    }

    @Actor
    public void close() {
        cancelledByClose = group.shutdownNow();
    }

    @Arbiter
    public void afterBoth(IIII_Result r) {
        r.r2 = cancelledByClose.contains(future) ? 1 : 0;
        r.r3 = group.pendingTasks() + (group.isTerminated() ? 0 : 10);
        r.r4 = EXECUTOR.getQueue().contains(future) ? 1 : 0;
    }
}
