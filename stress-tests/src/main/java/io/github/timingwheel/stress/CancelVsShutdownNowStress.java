package io.github.timingwheel.stress;

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
 * {@code cancel} of a pending task racing with {@code shutdownNow} of its
 * {@link WheelScheduledExecutor}.
 *
 * <p>The cancel unlinks the task in its shard, in place (or through the shard's inbox if the
 * lock is busy, as it is while {@code shutdownNow}'s drain holds every shard; once the executor
 * is shut down, through {@code ThreadPoolExecutor.remove}); {@code shutdownNow} drains the
 * inboxes and the wheels into
 * the list it returns. Neither may lose the task or run it: {@code shutdownNow} does not cancel
 * what it returns (as in the JDK), so the user's cancel always succeeds; the task is in the
 * returned list exactly when the drain came before the cancel's unlink; and after termination
 * the queue holds nothing.
 *
 * <p>Each state makes its own small executor with one task an hour ahead (so the body never
 * runs unless something is badly wrong). The arbiter waits for termination.
 *
 * <p>Result: (cancel returned true, the task is in shutdownNow's list, runs of the body or -1 if
 * the executor did not terminate within {@link StressExecutors#WAIT_SECONDS}, the queue is empty
 * after termination).
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t CancelVsShutdownNowStress -m quick
 * </pre>
 */
@JCStressTest
@Outcome(id = "1, 0, 0, 1", expect = Expect.ACCEPTABLE,
        desc = "The cancel unlinked the task first; shutdownNow did not return it.")
@Outcome(id = "1, 1, 0, 1", expect = Expect.ACCEPTABLE_INTERESTING,
        desc = "shutdownNow drained the task first and returned it; the cancel still succeeded.")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "The cancel failed, the body ran, the executor did not terminate (-1), or the "
                + "queue still holds something after termination.")
@State
public class CancelVsShutdownNowStress {

    /** The task's body, a separate object so that the state is not published while constructed. */
    static final class Body implements Runnable {
        volatile int runs;

        @Override
        public void run() {
            runs++;
        }
    }

    final WheelScheduledExecutor executor = StressExecutors.smallOneWorker();
    final Body body = new Body();
    final ScheduledFuture<?> future = executor.schedule(body, 1L, TimeUnit.HOURS);
    volatile List<Runnable> returned;

    @Actor
    public void cancel(IIII_Result r) {
        r.r1 = future.cancel(false) ? 1 : 0;
    }

    @Actor
    public void shutdownNow() {
        returned = executor.shutdownNow();
    }

    @Arbiter
    public void afterBoth(IIII_Result r) {
        boolean terminated;
        try {
            terminated = executor.awaitTermination(StressExecutors.WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            terminated = false;
        }
        r.r2 = containsIdentical(returned, future) ? 1 : 0;
        r.r3 = terminated ? body.runs : StressExecutors.LOST;
        r.r4 = executor.getQueue().isEmpty() ? 1 : 0;
    }

    private static boolean containsIdentical(List<Runnable> list, Object element) {
        for (Runnable r : list) {
            if (r == element) {
                return true;
            }
        }
        return false;
    }
}
