package io.github.timingwheel.stress;

import io.github.timingwheel.executor.StressHooks;
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
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@code cancel} racing with the drain of the executor's inbox, for a task that is still in the
 * inbox (the work queue's note [2]). A cancel does not push a task again while the task is
 * marked as in the inbox; the drain clears the mark before it reads the task's state. If both
 * read stale values (the drain sees the task pending, the cancel sees the mark still set), the
 * cancelled task would be inserted into the wheel and stay there, unreachable by any cancel,
 * until its deadline an hour later.
 *
 * <p>Since schedule and cancel are applied in place, a task reaches the inbox only when its
 * shard's lock is busy, which in this test it would almost never be: the schedule would link
 * the task and the cancel unlink it, and the race would not be run at all. So the state forces
 * the inbox path: it schedules the task (an hour out) while a helper thread holds the lock of
 * the state thread's home shard (the test hooks {@code homeShard} and {@code shardLock}, through
 * {@code StressHooks}), so that both of the producer's {@code tryLock}s fail and the task stays in
 * the inbox, marked; the helper then lets the lock go without draining. One actor cancels it,
 * and records whether the task was still in the inbox when it began (another state's view may
 * have drained it first: then this sample did not run the race, which the count shows);
 * the other drains the inbox (a queue view drains it under the shard lock, as a harvest does).
 * The arbiter asks the queue, after one more drain, whether the task is still there.
 *
 * <p>Checked against a mutant (2026-11-23, {@code -m quick -sc false} with the CI flags, 2
 * configurations): a drain that clears the inbox mark after it applies the task, not before,
 * gave the forbidden (1, 1, 1) in 76 of 126,015 samples (the race ran in 64,755 of them). The
 * test's previous form, which scheduled without holding the lock, saw 0 forbidden in 842,530
 * samples against the same mutant: its task was linked in place and never in the inbox.
 *
 * <p>Result: (cancel returned true, the task still queued afterwards, the task was in the inbox
 * when the cancel began).
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t CancelVsInboxDrainStress -m quick
 * </pre>
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = Expect.ACCEPTABLE,
        desc = "The race was not run: a drain took the task out of the inbox before the cancel began.")
@Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE,
        desc = "The cancel won, and the task left the queue: the drain saw it cancelled, or the cancel pushed it again.")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "A cancelled task left in the wheel (a lost release), or a cancel that lost to nothing.")
@State
public class CancelVsInboxDrainStress {

    static final WheelScheduledExecutor EXECUTOR = StressExecutors.oneWorker("cancel-vs-inbox-drain");
    private static final BlockingQueue<Runnable> QUEUE = EXECUTOR.getQueue();

    private ScheduledFuture<?> future;

    public CancelVsInboxDrainStress() {
        StressHooks.whileHeldElsewhere(StressHooks.homeShardLock(EXECUTOR),
                () -> future = EXECUTOR.schedule(() -> { }, 1, TimeUnit.HOURS));
    }

    @Actor
    public void cancel(III_Result r) {
        r.r3 = StressHooks.inInbox(future) ? 1 : 0;
        r.r1 = future.cancel(false) ? 1 : 0;
    }

    @Actor
    public void drain() {
        QUEUE.isEmpty(); // drains the inbox under the queue's lock
    }

    @Arbiter
    public void afterBoth(III_Result r) {
        r.r2 = QUEUE.contains(future) ? 1 : 0;
    }
}
