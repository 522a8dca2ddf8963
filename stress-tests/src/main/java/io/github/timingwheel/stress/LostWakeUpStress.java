package io.github.timingwheel.stress;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A new earliest deadline racing with the leader going to park: no wake-up may be lost.
 *
 * <p>Producers never take the worker lock: they link the task in its shard (or push it into the
 * shard's inbox), lower the shard's published bound, and then read the leader's
 * {@code parkedUntil}, unparking it if their task is due earlier. The leader publishes
 * {@code parkedUntil}, then reads every shard's bound once more, then parks (the work queue's
 * note [4]). The two sides make their volatile accesses in opposite orders (a Dekker
 * handshake), so either the leader sees the task and does not park, or the producer sees the
 * deadline and unparks it. If either side reordered (or the leader did not look again), a task
 * could sit in its shard while the only worker sleeps untimed: nothing else is due, so it would
 * never run.
 *
 * <p>Each state makes its own small executor (as {@link ScheduleVsShutdownStress} does), whose
 * worker starts with the first task; two actors each schedule a zero-delay task on it, the
 * second as soon as it sees the first task's body has run (or after 1 ms): the worker runs one
 * and heads back to park while the other arrives. The arbiter
 * waits (for at most {@link StressExecutors#WAIT_SECONDS}) for both bodies and then shuts the
 * executor down. Nothing else ever submits to that executor: with one executor shared by every
 * state, as this test had before, jcstress runs the actors of many states in strides before
 * their arbiters, so a later state's {@code schedule} woke the worker and ran the "lost" task
 * (with the leader's last look removed it recorded 4 forbidden outcomes in 1.07 M samples, in
 * 1 of 2 configurations).
 *
 * <p>Checked against that mutant again (2026-11-23, {@code -m quick -sc false} with the CI
 * flags, 2 configurations): with one executor per state and the second actor aimed at the
 * window, the forbidden (1, -1) in 2 of 7,020 samples. One executor per state and its worker's
 * start make samples costly (7 k to 34 k per quick run, against about 1 M before), so a short run may
 * miss a rare loss: the full preset runs it longer.
 *
 * <p>Result: (runs of the first task, runs of the second), or -1 for a task that did not run in
 * time.
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t LostWakeUpStress -m quick
 * </pre>
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "Both tasks ran, once each.")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "A task that did not run within the wait (-1: a lost wake-up), or ran twice.")
@State
public class LostWakeUpStress {

    /** How long the second actor waits at most for the first task to have run. */
    private static final long SPIN_NANOS = 1_000_000L;

    final WheelScheduledExecutor executor = StressExecutors.smallOneWorker();
    final CountDownLatch bothRan = new CountDownLatch(2);
    volatile int firstRuns;
    volatile int secondRuns;

    @Actor
    public void scheduleFirst() {
        executor.schedule(() -> {
            firstRuns++;
            bothRan.countDown();
        }, 0L, TimeUnit.NANOSECONDS);
    }

    @Actor
    public void scheduleSecond() {
        // Aim at the window: the worker has just run the first task and heads back to park.
        // Without this wait both schedules land while the worker is still starting, and it
        // finds both tasks at once.
        long giveUpAt = System.nanoTime() + SPIN_NANOS;
        while (firstRuns == 0 && System.nanoTime() - giveUpAt < 0) {
            Thread.onSpinWait();
        }
        executor.schedule(() -> {
            secondRuns++;
            bothRan.countDown();
        }, 0L, TimeUnit.NANOSECONDS);
    }

    @Arbiter
    public void afterBoth(II_Result r) {
        boolean ran;
        try {
            ran = bothRan.await(StressExecutors.WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ran = false;
        }
        executor.shutdownNow();
        r.r1 = ran || firstRuns > 0 ? firstRuns : StressExecutors.LOST;
        r.r2 = ran || secondRuns > 0 ? secondRuns : StressExecutors.LOST;
    }
}
