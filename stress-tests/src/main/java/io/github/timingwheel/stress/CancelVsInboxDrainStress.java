package io.github.timingwheel.stress;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@code cancel} racing with the drain of the executor's inbox, for a task that is still in the
 * inbox (the work queue's note [6]). A cancel does not push a task again while the task is
 * marked as in the inbox; the drain clears the mark before it reads the task's state. If both
 * read stale values (the drain sees the task pending, the cancel sees the mark still set), the
 * cancelled task would be inserted into the wheel and stay there, unreachable by any cancel,
 * until its deadline an hour later.
 *
 * <p>The state schedules a task an hour out, which goes to the inbox. One actor cancels it; the
 * other drains the inbox (a queue view drains it under the lock, as a worker does; the shared
 * executor's leader may drain it too). The arbiter asks the queue, after one more drain, whether
 * the task is still there.
 *
 * <p>Result: (cancel returned true, the task still queued afterwards).
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t CancelVsInboxDrainStress -m quick
 * </pre>
 */
@JCStressTest
@Outcome(id = "1, 0", expect = Expect.ACCEPTABLE,
        desc = "The cancel won, and the task left the queue: the drain saw it cancelled, or the cancel pushed it again.")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "A cancelled task left in the wheel (a lost release), or a cancel that lost to nothing.")
@State
public class CancelVsInboxDrainStress {

    static final WheelScheduledExecutor EXECUTOR = StressExecutors.oneWorker("cancel-vs-inbox-drain");
    private static final BlockingQueue<Runnable> QUEUE = EXECUTOR.getQueue();

    private final ScheduledFuture<?> future = EXECUTOR.schedule(() -> { }, 1, TimeUnit.HOURS);

    @Actor
    public void cancel(II_Result r) {
        r.r1 = future.cancel(false) ? 1 : 0;
    }

    @Actor
    public void drain() {
        QUEUE.isEmpty(); // drains the inbox under the queue's lock
    }

    @Arbiter
    public void afterBoth(II_Result r) {
        r.r2 = QUEUE.contains(future) ? 1 : 0;
    }
}
