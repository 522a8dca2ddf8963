package io.github.timingwheel.executor;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The races of the sharded hot path ({@link WheelShards}, {@link WheelShard}): producers link
 * and unlink tasks in place under a shard's lock, or push them into its inbox when the lock is
 * busy, while the leader harvests the shards that have something due. Each test drives a queue
 * with no executor and no worker, with {@link ShardStressTask}s, so that every thread that
 * touches the queue is an actor (a shared executor's worker would add a third party that
 * jcstress does not schedule, and the harvest under test would mostly be its, not an actor's).
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t ShardedQueueStress -m quick
 * </pre>
 */
public final class ShardedQueueStress {

    private ShardedQueueStress() {
    }

    /** Due at wheel time 0: due for every harvest of a {@link StressHooks#queue}. */
    static final long DUE = 0L;
    /** Not due for any harvest of a {@link StressHooks#queue}. */
    static final long NOT_DUE = 10 * StressHooks.LATER;

    /**
     * An in-place insert against a harvest of the same shard. One shard, so both always meet:
     * task {@code a} is due and in the wheel; one actor schedules {@code b}, also due (linked in
     * place if the lock is free, else pushed into the inbox, which the harvest or the pusher
     * drains); the other harvests. The arbiter harvests what is left. Each task must come out
     * exactly once, {@code a} first (smaller sequence at the same deadline), and the shard must
     * end empty with its inbox drained.
     *
     * <p>Checked against a mutant (2026-11-23, {@code -m quick -sc false} with the CI flags, 2
     * configurations): a harvest that does not lock the shards it harvests made this test fail
     * in both configurations, not with a forbidden outcome but with the wheel's due heap
     * corrupted under the actors ({@code NullPointerException} in {@code DueHeap.place}). An
     * in-place insert that does not lower the shard's published bound (WheelShard [3]) gave
     * the forbidden (0, 1, 7, 9) in 267,878 of 267,878 samples: nothing was ever harvested.
     *
     * <p>The actor's harvest does not wait for a held lock (WheelShard [7]): if the insert holds
     * it through the harvest's spins, the harvest takes nothing and leaves its flag up, and the
     * insert, or a later one, goes through the inbox; the arbiter, which waits, takes the rest
     * and must find the flag down after it.
     *
     * <p>Result: (tasks the actor's harvest took, b applied in place, hand-outs of a, hand-outs
     * of b), with 9 in the last place when the shard did not end empty or its flag stayed up.
     */
    @JCStressTest
    @Outcome(id = "1, 1, 1, 1", expect = Expect.ACCEPTABLE,
            desc = "The harvest came first and took a; b, linked in place after it, came out in the arbiter's.")
    @Outcome(id = "2, 1, 1, 1", expect = Expect.ACCEPTABLE,
            desc = "b was linked in place first; the harvest took both, a first.")
    @Outcome(id = "1, 0, 1, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "b met the harvest's lock and went through the inbox, drained after the harvest took a.")
    @Outcome(id = "2, 0, 1, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "b met the harvest's lock, went through the inbox, and the harvest's drain took it.")
    @Outcome(id = "0, 1, 1, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The harvest found b's insert holding the lock through its spins and skipped the shard; the arbiter took both.")
    @Outcome(id = "0, 0, 1, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The harvest skipped the held shard; b, kept off the wanted lock, went through the inbox; the arbiter took both.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A task lost or handed out twice, b before a, or a shard left with a task or with its harvest flag up (9).")
    @State
    public static class InsertVsHarvest {
        final WheelShards shards = new WheelShards(1, StressHooks.SMALL, 0L);
        final ShardStressTask a = new ShardStressTask(null, 0, DUE);
        final ShardStressTask b = new ShardStressTask(null, 0, DUE);
        final WheelTask[] taken = new WheelTask[4];
        final WheelTask[] rest = new WheelTask[4];

        {
            shards.shardOf(a).submit(a, true);
        }

        @Actor
        public void schedule(IIII_Result r) {
            r.r2 = shards.shardOf(b).submit(b, true) ? 1 : 0;
        }

        @Actor
        public void harvest(IIII_Result r) {
            r.r1 = shards.harvest(StressHooks.LATER, taken, taken.length, false);
        }

        @Arbiter
        public void afterBoth(IIII_Result r) {
            int n = shards.harvest(StressHooks.LATER, rest, rest.length, true);
            int as = 0;
            int bs = 0;
            boolean aFirst = taken[0] == a;
            for (WheelTask t : taken) {
                as += t == a ? 1 : 0;
                bs += t == b ? 1 : 0;
            }
            for (int i = 0; i < n; i++) {
                as += rest[i] == a ? 1 : 0;
                bs += rest[i] == b ? 1 : 0;
            }
            shards.lockAllForView();
            long left = shards.size();
            shards.unlockAll();
            r.r3 = aFirst || r.r1 == 0 ? as : 7;
            r.r4 = left == 0 && shards.inboxSize() == 0 && shards.shard(0).harvestWanted == 0 ? bs : 9;
        }
    }

    /**
     * A cancel against a harvest of the task's shard. One shard; tasks {@code a} and {@code b}
     * are due and in the wheel. One actor cancels {@code a} (unlinked in place, or through the
     * inbox if the harvest holds the lock); the other polls the queue, which harvests. The
     * arbiter polls until nothing is left. {@code a} comes out at most once, and only if the
     * harvest took it before the cancel; {@code b} comes out exactly once; the queue ends empty.
     *
     * <p>Checked against a mutant (2026-11-23, {@code -m quick -sc false} with the CI flags): a
     * harvest that does not lock the shards made it fail in both configurations with the due
     * heap corrupted ({@code ArrayIndexOutOfBoundsException} and {@code NullPointerException} in
     * {@code DueHeap}), not with a forbidden outcome. An in-place insert that does not lower
     * the shard's published bound gave the forbidden (1, 0, 0, 9) in 320,271 of 320,271.
     *
     * <p>Result: (cancel returned true, what the actor's poll got: 1 for a, 2 for b, hand-outs of
     * a, hand-outs of b), with 9 in the last place when the queue did not end empty.
     */
    @JCStressTest
    @Outcome(id = "1, 2, 0, 1", expect = Expect.ACCEPTABLE,
            desc = "The cancel unlinked a first; the harvest took only b.")
    @Outcome(id = "1, 1, 1, 1", expect = Expect.ACCEPTABLE,
            desc = "The harvest took a first (a worker would find it cancelled); then the cancel, which had nothing to unlink.")
    @Outcome(id = "1, 0, 0, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The poll's harvest found the cancel holding the lock through its spins and skipped the shard; the arbiter's took b.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A cancelled task handed out after its unlink, a task handed out twice or lost, or a task left in the queue (9).")
    @State
    public static class CancelVsHarvest {
        final WheelWorkQueue queue = StressHooks.queue(1);
        final ShardStressTask a = new ShardStressTask(queue, 0, DUE);
        final ShardStressTask b = new ShardStressTask(queue, 0, DUE);

        {
            queue.enqueue(a);
            queue.enqueue(b);
        }

        @Actor
        public void cancel(IIII_Result r) {
            r.r1 = a.cancel() ? 1 : 0;
        }

        @Actor
        public void harvest(IIII_Result r) {
            Runnable got = queue.poll();
            r.r2 = got == a ? 1 : got == b ? 2 : 0;
        }

        @Arbiter
        public void afterBoth(IIII_Result r) {
            int as = r.r2 == 1 ? 1 : 0;
            int bs = r.r2 == 2 ? 1 : 0;
            for (Runnable t; (t = queue.poll()) != null; ) {
                as += t == a ? 1 : 0;
                bs += t == b ? 1 : 0;
            }
            r.r3 = as;
            r.r4 = queue.size() == 0 && !a.isScheduled() ? bs : 9;
        }
    }

    /**
     * A cancel of a staged task against the harvest that places it (TimingWheel [11]). One
     * shard; task {@code a} is due, tasks {@code s} and {@code t} are not and wait in the
     * shard's staging ring (due 2 ticks or more ahead). One actor cancels {@code s} (its ring
     * entry nulled in place, or, if the harvest holds the lock, through the inbox, after the
     * harvest placed it in its slot); the other polls the queue, whose harvest places every
     * staged task before it hands out {@code a}. A true cancel must leave {@code s} in no ring,
     * slot or inbox, and only {@code t} in the queue once {@code a} is out. ({@code t} keeps
     * the ring from emptying, which would forget a stale entry of {@code s}.)
     *
     * <p>Checked against a mutant (2026-11-26): a ring whose cancel does not null the entry
     * (the harvest then placed the cancelled task) gave the forbidden (1, 1, 1, 1) in 155,563
     * and 168,374 of 177,409 and 183,553 samples.
     *
     * <p>Result: (cancel returned true, the poll got a, s still scheduled, tasks left in the
     * queue).
     */
    @JCStressTest
    @Outcome(id = "1, 1, 0, 1", expect = Expect.ACCEPTABLE,
            desc = "The cancel took s out of the ring or, placed, out of its slot; the harvest handed out a; t stays.")
    @Outcome(id = "1, 0, 0, 2", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The poll's harvest found the cancel holding the lock through its spins and skipped the shard: a and t stay.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A cancelled staged task left in the queue, a lost hand-out, or a second one.")
    @State
    public static class StagedCancelVsHarvest {
        final WheelWorkQueue queue = StressHooks.queue(1);
        final ShardStressTask a = new ShardStressTask(queue, 0, DUE);
        final ShardStressTask s = new ShardStressTask(queue, 0, NOT_DUE);
        final ShardStressTask t = new ShardStressTask(queue, 0, NOT_DUE);

        {
            queue.enqueue(a);
            queue.enqueue(s);
            queue.enqueue(t);
        }

        @Actor
        public void cancel(IIII_Result r) {
            r.r1 = s.cancel() ? 1 : 0;
        }

        @Actor
        public void harvest(IIII_Result r) {
            r.r2 = queue.poll() == a ? 1 : 0;
        }

        @Arbiter
        public void afterBoth(IIII_Result r) {
            // The view first: a cancel pushed into the inbox while the harvest held the lock may
            // still wait there (both sides can miss each other: WheelShard [2]), and a view
            // drains every inbox before it counts. Read the other way round, that documented
            // delay showed as (1, 1, 1, 1) once in 367,105 samples.
            r.r4 = queue.size();
            r.r3 = s.isScheduled() ? 1 : 0;
        }
    }

    /**
     * A cancel from a thread whose home is another shard than the task's. Two shards; {@code a0}
     * lives in shard 0 and {@code a1} in shard 1, neither due. One actor cancels the one that is
     * not in its own thread's home shard (a thread's home is fixed until it meets contention, so
     * the state cannot choose for it); the other actor schedules {@code c0} and {@code c1} on
     * shards 0 and 1, so that it contends with the cancel for the cancelled task's shard lock
     * and one of them may go through the inbox. The cancel must reach the task's shard whatever
     * the canceller's home: the task's sequence names it.
     *
     * <p>Checked against a mutant (2026-11-23, {@code -m quick -sc false} with the CI flags): a
     * cancel that skips the unlink when the task sits in another shard than the caller's home
     * gave the forbidden (1, 1, 4) in 395,078 of 395,078 samples.
     *
     * <p>Result: (cancel returned true, the cancelled task still queued, tasks left in the
     * queue).
     */
    @JCStressTest
    @Outcome(id = "1, 0, 3", expect = Expect.ACCEPTABLE,
            desc = "Cancelled from the other shard's thread: the task gone, the other and c0, c1 left.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A cancelled task left in the queue, or a task lost or counted twice.")
    @State
    public static class CancelFromOtherShard {
        final WheelWorkQueue queue = StressHooks.queue(2);
        final ShardStressTask a0 = new ShardStressTask(queue, 0, NOT_DUE);
        final ShardStressTask a1 = new ShardStressTask(queue, 1, NOT_DUE);
        final ShardStressTask c0 = new ShardStressTask(queue, 0, NOT_DUE);
        final ShardStressTask c1 = new ShardStressTask(queue, 1, NOT_DUE);
        volatile ShardStressTask cancelled;

        {
            queue.enqueue(a0);
            queue.enqueue(a1);
        }

        @Actor
        public void cancelFromTheOtherShard(III_Result r) {
            ShardStressTask a = queue.homeShard() == 0 ? a1 : a0;
            cancelled = a;
            r.r1 = a.cancel() ? 1 : 0;
        }

        @Actor
        public void schedule() {
            queue.enqueue(c0);
            queue.enqueue(c1);
        }

        @Arbiter
        public void afterBoth(III_Result r) {
            ShardStressTask a = cancelled;
            r.r2 = queue.contains(a) || a.isScheduled() ? 1 : 0;
            r.r3 = queue.size();
        }
    }

    /**
     * A producer that moves to another shard between its schedule and its cancel. Two shards.
     * One actor makes a task on its home shard and schedules it; if the shard's lock is busy
     * (the other actor's view holds every shard's lock for a moment) the task goes through the
     * inbox and the producer's probe moves, so its cancel of the same task may come from a
     * thread whose home is now the other shard. The cancel must still reach the task's shard.
     *
     * <p>Checked against a mutant (2026-11-23, {@code -m quick -sc false} with the CI flags): a
     * cancel that skips the unlink when the task sits in another shard than the caller's home
     * gave the forbidden (1, 1, 1, 1) in 239 of 253,429 samples (the producer moved in 249).
     *
     * <p>Result: (cancel returned true, the producer's home moved between schedule and cancel,
     * the task still queued, tasks left in the queue).
     */
    @JCStressTest
    @Outcome(id = "1, 0, 0, 0", expect = Expect.ACCEPTABLE,
            desc = "Scheduled and cancelled from the same home shard.")
    @Outcome(id = "1, 1, 0, 0", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The schedule met the view's lock and the producer moved to the other shard; its cancel still reached the task.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A cancelled task left in the queue, or a task lost or counted twice.")
    @State
    public static class MoveBetweenScheduleAndCancel {
        final WheelWorkQueue queue = StressHooks.queue(2);
        volatile ShardStressTask task;

        @Actor
        public void scheduleThenCancel(IIII_Result r) {
            ShardStressTask t = ShardStressTask.onHomeShard(queue, NOT_DUE);
            task = t;
            queue.enqueue(t);
            r.r2 = queue.homeShard() == t.shard(queue) ? 0 : 1;
            r.r1 = t.cancel() ? 1 : 0;
        }

        @Actor
        public void view() {
            queue.size(); // locks every shard in turn
        }

        @Arbiter
        public void afterBoth(IIII_Result r) {
            ShardStressTask t = task;
            r.r3 = queue.contains(t) || t.isScheduled() ? 1 : 0;
            r.r4 = queue.size();
        }
    }

    /**
     * An inbox push against the lock holder's unlock (WheelShard [2]). One actor takes the
     * shard's lock and lets it go with {@code unlockAndHelp}; the other schedules a task on the
     * shard: in place if {@code tryLock} succeeds, else a push and a second {@code tryLock}.
     * The unlock is a release store with no fence, so both may miss each other and leave the
     * task in the inbox with the lock free; that is allowed, and the arbiter then plays the
     * shard's next holder (a lock and {@code unlockAndHelp}), which must link it.
     *
     * <p>Checked against mutants (2026-11-23, {@code -m quick -sc false} with the CI flags),
     * when the unlock was still a full-fence unlock and a stranded task was forbidden: without
     * the pusher's second {@code tryLock}, stranded in 1,632 of 533,556 samples; with an
     * {@code unlockAndHelp} that does not look at the inbox after its unlock, in 81 of 908,186.
     * The next holder's drain is what the last column checks: with a {@code drainInbox} that
     * applies nothing, the forbidden (0, 1, 0) in 303 of 327,839 samples.
     *
     * <p>Result: (applied in place, tasks left in the inbox after both, the task linked once
     * the next holder has come and gone).
     */
    @JCStressTest
    @Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE,
            desc = "The lock was free: linked in place.")
    @Outcome(id = "0, 0, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The lock was busy: pushed, then drained by the holder's help or by the pusher's second tryLock.")
    @Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "Both missed (the unlock has no fence): the task waited in the inbox for the next holder.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "Lost: the task is not linked even after the next holder.")
    @State
    public static class PushVsUnlock {
        final WheelShard shard = new WheelShard(0, StressHooks.SMALL, 0L, () -> { });
        final ShardStressTask task = new ShardStressTask(null, 0, NOT_DUE);

        @Actor
        public void holdAndUnlock() {
            shard.lock();
            shard.unlockAndHelp();
        }

        @Actor
        public void schedule(III_Result r) {
            r.r1 = shard.submit(task, true) ? 1 : 0;
        }

        @Arbiter
        public void afterBoth(III_Result r) {
            r.r2 = shard.inboxSize();
            shard.lock(); // the shard's next holder
            shard.unlockAndHelp();
            r.r3 = task.isScheduled() ? 1 : 0;
        }
    }

    /**
     * The harvest's hand-over (WheelShard [7]): a producer schedules in place while the harvest
     * tries the same shard without waiting. The harvest either takes the lock (the producer
     * then goes through the inbox, or links before it) or, finding it held through its spins,
     * skips the shard with its flag up; the producer, letting go, wakes the harvester if it
     * sees the flag (it may miss it: its unlock is a release store with no fence, and the
     * harvester's timed retry covers that). After both, the lock must be free for the next
     * harvest, which must bring the flag down and find the task, linked once.
     *
     * <p>Checked against a mutant ({@code -t HarvestVsProducer -m quick}): a harvest that
     * leaves the flag up when it takes the lock gives the forbidden (x, x, 9) in every sample.
     *
     * <p>Result: (the harvest took the lock, the producer woke the harvester, tasks in the wheel
     * after the next harvest's drain, or 9 if its flag stayed up or it could not take the lock).
     */
    @JCStressTest
    @Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE,
            desc = "The harvest took the lock; the task was linked in place or through the inbox.")
    @Outcome(id = "1, 1, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The producer let go within the harvest's spins and, seeing the flag, woke a harvester that had not parked: a spurious wake-up.")
    @Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The producer held the lock through the harvest's spins; it saw the flag as it let go and woke the harvester.")
    @Outcome(id = "0, 0, 1", expect = Expect.ACCEPTABLE_INTERESTING,
            desc = "The producer held the lock through the spins and missed the flag as it let go; the harvester's retry finds the lock free.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "The task lost or linked twice, the lock not free after both, or the flag left up after a harvest took the lock (9).")
    @State
    public static class HarvestVsProducer {
        final java.util.concurrent.atomic.AtomicInteger wakes = new java.util.concurrent.atomic.AtomicInteger();
        final WheelShard shard = new WheelShard(0, StressHooks.SMALL, 0L, wakes::incrementAndGet);
        final ShardStressTask task = new ShardStressTask(null, 0, NOT_DUE);

        @Actor
        public void produce() {
            shard.submit(task, true);
        }

        @Actor
        public void harvest(III_Result r) {
            if (shard.lockForHarvest(false)) {
                r.r1 = 1;
                shard.drainInbox(WheelShard.DRAIN_BATCH);
                shard.unlock();
            }
        }

        @Arbiter
        public void after(III_Result r) {
            r.r2 = wakes.get();
            if (!shard.lockForHarvest(false)) {
                r.r3 = 9;
                return;
            }
            shard.drainInbox(WheelShard.INBOX_CAPACITY);
            boolean flagDown = shard.harvestWanted == 0;
            long linked = shard.wheel().size();
            shard.unlock();
            r.r3 = flagDown ? (int) linked : 9;
        }
    }
    /**
     * The counts of a task queued and cancelled in place, read while they are made
     * (TaskCounters [2], [7]): one actor queues {@code a}, counted as scheduled in its shard under
     * the lock, and then cancels it, counted as cancelled in the shard too; the other reads the
     * metrics. A read never sees the cancel without the schedule: the snapshot reads the endings
     * first and 'scheduled' last, each with acquire, and each count is a release store.
     *
     * <p>Mutant: a snapshot that reads 'scheduled' first (the cells' and the shards') gives the
     * forbidden (0, 1): FAILED in 8 of 8 configurations ({@code -m quick -sc false}, 1 to 20
     * such samples in each).
     *
     * <p>Result: (scheduled, cancelled) as the reader saw them.
     */
    @JCStressTest
    @Outcome(id = "0, 0", expect = Expect.ACCEPTABLE, desc = "Read before the schedule was counted.")
    @Outcome(id = "1, 0", expect = Expect.ACCEPTABLE, desc = "Read after the schedule, before the cancel.")
    @Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "Read after both.")
    @Outcome(expect = Expect.FORBIDDEN, desc = "A cancel counted without its schedule, or a count made twice.")
    @State
    public static class CountsVsSnapshot {
        final WheelWorkQueue queue = StressHooks.queue(1);
        final TaskCounters counters = new TaskCounters();
        final ShardStressTask a = new ShardStressTask(queue, 0, NOT_DUE);

        @Actor
        public void scheduleThenCancel() {
            queue.enqueue(a, counters);
            a.cancel(counters);
        }

        @Actor
        public void read(II_Result r) {
            SchedulerMetrics metrics = counters.snapshot("stress", 0, queue, 0L);
            r.r1 = (int) metrics.scheduled();
            r.r2 = (int) metrics.cancelled();
        }
    }
}
