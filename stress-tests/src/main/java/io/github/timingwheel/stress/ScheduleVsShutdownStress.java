package io.github.timingwheel.stress;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.List;
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
 * A zero-delay {@code schedule} racing with {@code shutdownNow} or {@code shutdown} of a fresh
 * {@link WheelScheduledExecutor}: no task may vanish.
 *
 * <p>{@code schedule} checks the run state, then links the task in its shard (in place, or
 * through the shard's inbox if the lock is busy), then checks again; {@code shutdownNow} sets the state, interrupts the workers and drains the queue.
 * The window between the producer's first check and its enqueue is where a task can be lost: the
 * drain may have passed before the task arrives, and then no worker is left to take it. The
 * second check closes it, as in {@code ScheduledThreadPoolExecutor.delayedExecute}: a task that
 * can no longer run is taken back out and cancelled, and the caller's future says so. So each
 * task ends in exactly one of these fates:
 * <ul>
 *   <li>rejected: {@code schedule} threw {@link RejectedExecutionException};
 *   <li>ran: its body ran, once;
 *   <li>returned: it is in the list {@code shutdownNow} returned, never ran and is not cancelled;
 *   <li>cancelled: accepted, then cancelled by the executor because it can no longer run
 *       (the second check, or a worker that took it after {@code shutdownNow}).
 * </ul>
 * After {@code shutdown} (not {@code Now}), an accepted zero-delay task must still run (the
 * default policy executes existing delayed tasks), unless the executor terminated before the
 * task reached its queue: then the second check cancels it, as the JDK's does.
 *
 * <p>Each state makes its own small executor (a one-level wheel; the worker starts only with the
 * first task, so a state whose shutdown came first starts no thread). The arbiter waits for
 * termination before reading the fate.
 *
 * <p>Result: (schedule accepted, runs of the body, returned by shutdownNow, future cancelled);
 * a runs value of -1 means the executor did not terminate within
 * {@link StressExecutors#WAIT_SECONDS}.
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t ScheduleVsShutdownStress -m quick
 * </pre>
 */
public final class ScheduleVsShutdownStress {

    private ScheduleVsShutdownStress() {
    }

    /** One executor, one task; the body counts its runs. */
    abstract static class Race implements Runnable {
        final WheelScheduledExecutor executor = StressExecutors.smallOneWorker();
        volatile int runs;
        volatile ScheduledFuture<?> future;

        @Override
        public void run() {
            runs++;
        }

        void schedule(IIII_Result r) {
            try {
                future = executor.schedule(this, 0L, TimeUnit.NANOSECONDS);
                r.r1 = 1;
            } catch (RejectedExecutionException e) {
                r.r1 = 0;
            }
        }

        void report(List<Runnable> returned, IIII_Result r) {
            boolean terminated;
            try {
                terminated = executor.awaitTermination(StressExecutors.WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                terminated = false;
            }
            ScheduledFuture<?> f = future;
            r.r2 = terminated ? runs : StressExecutors.LOST;
            r.r3 = f != null && containsIdentical(returned, f) ? 1 : 0;
            r.r4 = f != null && f.isCancelled() ? 1 : 0;
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

    @JCStressTest
    @Outcome(id = "0, 0, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Rejected: shutdownNow came first and schedule threw.")
    @Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Ran: the worker ran the body before shutdownNow.")
    @Outcome(id = "1, 0, 1, 0", expect = Expect.ACCEPTABLE,
            desc = "Returned: shutdownNow drained the task, which never ran and is not cancelled.")
    @Outcome(id = "1, 0, 0, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Cancelled: accepted, then cancelled by the executor, because the shutdown came "
                    + "between schedule's two checks or before the worker could run it.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "Vanished (accepted, never ran, neither returned nor cancelled), two fates at "
                    + "once, two runs, or no termination (-1).")
    @State
    public static class Now extends Race {
        volatile List<Runnable> returned;

        @Actor
        public void schedule(IIII_Result r) {
            super.schedule(r);
        }

        @Actor
        public void shutdownNow() {
            returned = executor.shutdownNow();
        }

        @Arbiter
        public void afterTermination(IIII_Result r) {
            report(returned, r);
        }
    }

    @JCStressTest
    @Outcome(id = "0, 0, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Rejected: shutdown came first and schedule threw.")
    @Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Ran: accepted before shutdown, and run (before it or, by the default policy, after).")
    @Outcome(id = "1, 0, 0, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Cancelled: the shutdown came between schedule's two checks and the executor, "
                    + "with no task and no worker, had already terminated; as the JDK does.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "An accepted zero-delay task that neither ran nor was cancelled (shutdown keeps "
                    + "delayed tasks by default), two runs, or no termination (-1).")
    @State
    public static class Orderly extends Race {
        @Actor
        public void schedule(IIII_Result r) {
            super.schedule(r);
        }

        @Actor
        public void shutdown() {
            executor.shutdown();
        }

        @Arbiter
        public void afterTermination(IIII_Result r) {
            report(List.of(), r);
        }
    }
}
