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
 * <p>Producers do not take the queue's lock: they push into a lock-free inbox and then read the
 * leader's {@code parkedUntil}, unparking it if their task is due earlier. The leader publishes
 * {@code parkedUntil}, then checks the inbox once more, then parks. The two sides make their
 * volatile accesses in opposite orders (a Dekker handshake), so either the leader sees the task
 * and does not park, or the producer sees the deadline and unparks it. If either side reordered
 * (or checked before publishing), a task could sit in the inbox while the only worker sleeps
 * untimed: nothing else is due, so it would never run.
 *
 * <p>Two actors each schedule a zero-delay task on an executor whose only worker is otherwise
 * idle: the worker wakes for one, runs it and heads back to park while the other arrives. The
 * arbiter waits (for at most {@link StressExecutors#WAIT_SECONDS}) for both bodies and submits
 * nothing itself, since a later submission would wake the worker and hide the lost wake-up.
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

    static final WheelScheduledExecutor EXECUTOR = StressExecutors.oneWorker("lost-wake-up");

    final CountDownLatch bothRan = new CountDownLatch(2);
    volatile int firstRuns;
    volatile int secondRuns;

    @Actor
    public void scheduleFirst() {
        EXECUTOR.schedule(() -> {
            firstRuns++;
            bothRan.countDown();
        }, 0L, TimeUnit.NANOSECONDS);
    }

    @Actor
    public void scheduleSecond() {
        EXECUTOR.schedule(() -> {
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
        r.r1 = ran || firstRuns > 0 ? firstRuns : StressExecutors.LOST;
        r.r2 = ran || secondRuns > 0 ? secondRuns : StressExecutors.LOST;
    }
}
