package io.github.timingwheel.executor;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * The hand-off between a harvest and the workers ({@link ReadyBatch}): a worker's
 * {@code claim} against a {@code remove} of the same task (the executor's
 * {@code remove(Runnable)}, which must succeed until a worker has taken the task, as the JDK's
 * queue does). Each task goes to exactly one of them: a claim takes its slot with a
 * {@code getAndSet}, a removal with a CAS of the slot from the task to null. And two workers
 * claiming from one batch at once: each task goes to exactly one of them.
 *
 * <p>Checked against mutants (2026-11-24, {@code -m quick}, x86-64): a
 * claim that reads its slot and then stores null (no {@code getAndSet}), and a removal that
 * checks the slot and then stores null (no CAS): each gives the forbidden outcomes (a task
 * both run and removed) in all 16 configurations of the two tests.
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t ReadyBatchStress -m quick
 * </pre>
 */
public final class ReadyBatchStress {

    private ReadyBatchStress() {
    }

    /** 1 if {@code claimed} is the first of {@code tasks}, 2 the second, ...; 0 if none of them. */
    private static int indexOf(WheelTask claimed, WheelTask[] tasks) {
        for (int i = 0; i < tasks.length; i++) {
            if (tasks[i] == claimed) {
                return i + 1;
            }
        }
        return 0;
    }

    private static WheelTask[] tasks(int count) {
        WheelTask[] tasks = new WheelTask[count];
        for (int i = 0; i < count; i++) {
            tasks[i] = new ShardStressTask(null, 0, 0L);
        }
        return tasks;
    }

    /**
     * One task: a worker claims while another thread removes it.
     *
     * <p>Result: (claimed it, removed it).
     */
    @JCStressTest
    @Outcome(id = "1, 0", expect = Expect.ACCEPTABLE, desc = "The worker took it first; the removal failed.")
    @Outcome(id = "0, 1", expect = Expect.ACCEPTABLE, desc = "Removed before any worker took it.")
    @Outcome(id = "1, 1", expect = Expect.FORBIDDEN, desc = "Both: a removed task runs.")
    @Outcome(id = "0, 0", expect = Expect.FORBIDDEN, desc = "Neither: the task is lost.")
    @State
    public static class ClaimVsRemove {
        final WheelTask[] tasks = tasks(1); // the batch's slots: a claim or a removal empties it
        final WheelTask task = tasks[0];
        final ReadyBatch batch = ReadyBatch.of(tasks, 1);

        @Actor
        public void claim(II_Result r) {
            r.r1 = batch.claim() == task ? 1 : 0;
        }

        @Actor
        public void remove(II_Result r) {
            r.r2 = batch.remove(task) ? 1 : 0;
        }
    }

    /**
     * Two tasks: a worker claims twice while another thread removes the first; a removal
     * makes the claim move on to the next slot.
     *
     * <p>Result: (first claim, second claim, removed the first task); a claim is 1 for the first
     * task, 2 for the second, 0 for none.
     */
    @JCStressTest
    @Outcome(id = "1, 2, 0", expect = Expect.ACCEPTABLE, desc = "The worker took both; the removal failed.")
    @Outcome(id = "2, 0, 1", expect = Expect.ACCEPTABLE,
            desc = "The first removed before the worker came to it; the worker took the second.")
    @Outcome(expect = Expect.FORBIDDEN, desc = "A task removed and run, lost, or taken twice.")
    @State
    public static class ClaimPastARemoval {
        final WheelTask[] tasks = tasks(2); // the batch's slots: claims and removals empty them
        final WheelTask[] made = tasks.clone(); // the tasks, to name what a claim took
        final ReadyBatch batch = ReadyBatch.of(tasks, 2);

        @Actor
        public void claim(III_Result r) {
            r.r1 = indexOf(batch.claim(), made);
            r.r2 = indexOf(batch.claim(), made);
        }

        @Actor
        public void remove(III_Result r) {
            r.r3 = batch.remove(made[0]) ? 1 : 0;
        }
    }

    /**
     * Three tasks: two workers claim twice each, at once. Either of a claim's two atomics is
     * enough here (the {@code getAndAdd} gives each claimer its own slot; the {@code getAndSet}
     * lets only one of two claimers of a slot have its task), so the mutant that removes both
     * (a plain read and store of the cursor, and of the slot) gives a task taken twice (red,
     * {@code -m quick}); the mutant that removes either alone stays green, as it should.
     *
     * <p>Result: the four claims, each 1, 2 or 3 for the task it took and 0 for none. Every
     * task is taken exactly once, so the claims hold 1, 2 and 3 once each and one 0; a worker's
     * second claim finds a later slot than its first (every slot below a taken one is empty),
     * and only a second claim can find none (the other worker takes at most two).
     */
    @JCStressTest
    @Outcome(id = {"1, 2, 3, 0", "1, 3, 2, 0", "2, 3, 1, 0"},
            expect = Expect.ACCEPTABLE, desc = "Each task taken once; the first worker took two.")
    @Outcome(id = {"1, 0, 2, 3", "2, 0, 1, 3", "3, 0, 1, 2"},
            expect = Expect.ACCEPTABLE, desc = "Each task taken once; the second worker took two.")
    @Outcome(expect = Expect.FORBIDDEN, desc = "A task taken twice, lost, or a worker's claims out of order.")
    @State
    public static class ClaimVsClaim {
        final WheelTask[] tasks = tasks(3); // the batch's slots: claims empty them
        final WheelTask[] made = tasks.clone(); // the tasks, to name what a claim took
        final ReadyBatch batch = ReadyBatch.of(tasks, 3);

        @Actor
        public void worker1(IIII_Result r) {
            r.r1 = indexOf(batch.claim(), made);
            r.r2 = indexOf(batch.claim(), made);
        }

        @Actor
        public void worker2(IIII_Result r) {
            r.r3 = indexOf(batch.claim(), made);
            r.r4 = indexOf(batch.claim(), made);
        }
    }
}
