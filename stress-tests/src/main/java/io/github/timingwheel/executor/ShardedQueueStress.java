package io.github.timingwheel.executor;

import io.github.timingwheel.core.ManualTimeSource;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
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
     * <p>Result: (tasks the actor's harvest took, b applied in place, hand-outs of a, hand-outs
     * of b), with 9 in the last place when the shard did not end empty.
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
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A task lost or handed out twice, b before a, or a shard left with a task (9).")
    @State
    public static class InsertVsHarvest {
        final WheelShards shards = new WheelShards(1, StressHooks.SMALL, 0L);
        final ShardStressTask a = new ShardStressTask(null, 0, DUE);
        final ShardStressTask b = new ShardStressTask(null, 0, DUE);
        final WheelTask[] taken = new WheelTask[4];
        final WheelTask[] rest = new WheelTask[4];
        final SequenceCounter sequences = new SequenceCounter();

        {
            shards.shardOf(a).submit(a, true, sequences);
        }

        @Actor
        public void schedule(IIII_Result r) {
            r.r2 = shards.shardOf(b).submit(b, true, sequences) ? 1 : 0;
        }

        @Actor
        public void harvest(IIII_Result r) {
            r.r1 = shards.harvest(StressHooks.LATER, taken, taken.length);
        }

        @Arbiter
        public void afterBoth(IIII_Result r) {
            int n = shards.harvest(StressHooks.LATER, rest, rest.length);
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
            r.r3 = aFirst ? as : 7;
            r.r4 = left == 0 && shards.inboxSize() == 0 ? bs : 9;
        }
    }
}
