package io.github.timingwheel.executor;

import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.TimingWheel;
import io.github.timingwheel.core.WheelShape;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random schedule, cancel, advance and harvest steps on {@link WheelShards} against a plain
 * reference model: a set ordered by (deadline, sequence). Tasks come from several simulated
 * producers, each with its own home shard, so they spread over the shards; a second thread holds
 * some shards' locks at times, so that schedules and cancels on those shards take the inbox path
 * (and a cancel of a task still in the inbox is left to the drain, as {@code
 * WheelWorkQueue.cancelled} leaves it), while those on the others are applied in place. Harvests
 * take at most a random number of tasks, as the leader's 64-task hand-out does, so that the
 * shards often lag the clock while the next steps run. Each harvest must hand out exactly the
 * model's first due tasks, in order; the merged view of time must never be later than the
 * model's earliest deadline; the views must show exactly the model's tasks.
 *
 * <p>{@code -Dwheel.shards.model.steps=N} sets the steps per run (default 100,000), {@code
 * -Dwheel.shards.model.seed=S} the seed of every run. A failure names the seed and the step.
 *
 * <p>Shown to catch: a merge that compares sequences only ({@code WheelShards.firstHead}
 * comparing heads by sequence alone); an in-place schedule that does not lower its shard's published bound ({@code
 * WheelShard.applyLinked}); an inbox push that does not lower the shard's inbox bound ({@code
 * WheelShard.push} without {@code lowerInboxEvent}).
 */
class WheelShardsModelTest {

    private static final long STEPS = Long.getLong("wheel.shards.model.steps", 100_000L);
    private static final Long FIXED_SEED = Long.getLong("wheel.shards.model.seed");
    private static final int PRODUCERS = 6;
    private static final int MAX_PENDING = 3_000;
    private static final int RECENT = 512;

    /** Holds shard locks on behalf of the test, so that the test thread's tryLock fails. */
    private final ExecutorService locker = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "shard-locker");
        thread.setDaemon(true);
        return thread;
    });

    @AfterEach
    void stopLocker() throws InterruptedException {
        locker.shutdownNow();
        assertThat(locker.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    static Stream<Arguments> runs() {
        SplittableRandom seeds = new SplittableRandom();
        List<Arguments> runs = new ArrayList<>();
        WheelShape[] shapes = {
            WheelShape.defaults(),
            WheelShape.builder().tick(7, MILLISECONDS).slotsPerLevel(8).levels(3).build(),
            WheelShape.builder().tick(1, MICROSECONDS).slotsPerLevel(16).levels(2).build(),
        };
        int[] shardCounts = {2, 4, 8};
        long[] origins = {Long.MIN_VALUE, -1L, 0L, Long.MAX_VALUE - 3_000_000_000L};
        for (int i = 0; i < shapes.length; i++) {
            long seed = FIXED_SEED != null ? FIXED_SEED : seeds.nextLong();
            runs.add(Arguments.of(shapes[i], shardCounts[i], origins[i], seed));
        }
        long seed = FIXED_SEED != null ? FIXED_SEED : seeds.nextLong();
        runs.add(Arguments.of(WheelShape.defaults(), 4, origins[3], seed));
        return runs.stream();
    }

    @ParameterizedTest(name = "{0}, {1} shards, origin {2}, seed {3}")
    @MethodSource("runs")
    void randomSteps_matchTheModel(WheelShape shape, int shardCount, long origin, long seed) throws Exception {
        ModelRun run = new ModelRun(shape, shardCount, origin, seed);
        try {
            run.execute();
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("sharded model run failed at step " + run.step + " (seed " + seed
                    + ", wheel time " + run.now + "); re-run with -Dwheel.shards.model.seed=" + seed + ": "
                    + e.getMessage(), e);
        } finally {
            run.releaseAll();
        }
    }

    /**
     * A burst scheduled in place into one level-1 slot, [1,984 ms, 2,048 ms) of a narrow shape
     * (1 ms ticks, 5 levels of 64 slots), from wheel time 0: the shard publishes the start of
     * that slot's early cascade, one 64 ms slot before its start (TimingWheel [10]), not the
     * burst's first deadline, and the
     * inbox path (tasks applied by a drain under the lock) publishes the same. The leader parks
     * until the published bound, so a shard that published the first deadline (the mutant:
     * WheelShard.applyLinked lowering wheelEvent to the task's deadline) re-placed the whole
     * slot in the harvest at 2,000 ms.
     */
    @Test
    void aBurstInOneSlot_publishesTheStartOfItsEarlyCascade() throws Exception {
        long slotStart = MILLISECONDS.toNanos(1_984);
        long firstDeadline = MILLISECONDS.toNanos(2_000);
        // More than the 1,024 nodes from which TimingWheel paces a slot, beyond what the shard's
        // staging ring keeps unplaced (TimingWheel [11]), which publishes the deadlines it holds.
        int burst = WheelShard.STAGING_CAPACITY + 2_048;
        for (boolean throughInbox : new boolean[] {false, true}) {
            WheelShards shards = new WheelShards(2, WheelShape.builder().slotsPerLevel(64).levels(5).build(), 0L);
            WheelShard shard = shards.shardOf(new ModelTask(0, 1, firstDeadline));
            if (throughInbox) {
                locker.submit(shard::lock).get();
            }
            for (int id = 0; id < burst; id++) {
                ModelTask task = new ModelTask(id, 1, firstDeadline + id * MICROSECONDS.toNanos(20));
                assertThat(shards.submit(task, true)).isSameAs(shard);
            }
            if (throughInbox) {
                assertThat(shard.inboxSize()).as("tasks in the inbox").isEqualTo(burst);
                locker.submit(shard::unlock).get();
                shard.lock();
                shard.drainInboxForView();
                shard.unlock();
            }
            assertThat(shards.earliestEvent()).as("published bound, through the inbox: " + throughInbox)
                    .isEqualTo(slotStart - MILLISECONDS.toNanos(64));
        }
    }

    /** A task of the model: pending until harvested or cancelled. */
    private static final class ModelTask extends InertTask {
        final int id;
        volatile boolean cancelled;
        volatile boolean inInbox;

        /** Stamps in order of the ids, as one thread's are (WheelShards [6]). */
        ModelTask(int id, int homeShard, long deadline) {
            this.id = id;
            place(deadline, (long) id << WheelShard.SHARD_BITS | homeShard);
        }

        @Override
        boolean wantsWheel() {
            return !cancelled;
        }

        @Override
        void markInInbox() {
            inInbox = true;
        }

        @Override
        void clearInInbox() {
            inInbox = false;
        }

        @Override
        boolean inInbox() {
            return inInbox;
        }

        @Override
        public String toString() {
            return "task " + id + " (deadline " + deadline() + ", sequence " + sequence() + ", shard "
                    + (sequence() & (WheelShard.MAX_SHARDS - 1)) + ")";
        }
    }

    private static final Comparator<ModelTask> DEADLINE_THEN_SEQUENCE =
            Comparator.comparingLong(ModelTask::deadline).thenComparingLong(ModelTask::sequence);

    /** One run: the shards under test, the clock, the reference and the locks held by the locker. */
    private final class ModelRun {
        final WheelShape shape;
        final int shardCount;
        final long origin;
        final SplittableRandom random;
        final WheelShards shards;
        final int[] homes = new int[PRODUCERS];
        final boolean[] held;
        final TreeSet<ModelTask> model = new TreeSet<>(DEADLINE_THEN_SEQUENCE);
        final ModelTask[] recent = new ModelTask[RECENT];
        final WheelTask[] into = new WheelTask[WheelWorkQueue.READY_BATCH];
        long step;
        /** Wheel time, the model's; the shards are driven with origin + now. */
        long now;
        int nextId;
        /** Coverage, so that a generator that stops reaching a case fails the run. */
        long inPlace;
        long viaInbox;
        long cancelsLeftToTheDrain;
        long partialHarvests;
        long whileLagging;
        long harvested;

        ModelRun(WheelShape shape, int shardCount, long origin, long seed) {
            this.shape = shape;
            this.shardCount = shardCount;
            this.origin = origin;
            this.random = new SplittableRandom(seed);
            this.shards = new WheelShards(shardCount, shape, origin);
            this.held = new boolean[shardCount];
            for (int p = 0; p < PRODUCERS; p++) {
                homes[p] = random.nextInt(shardCount);
            }
            homes[0] = 0;
            homes[1] = shardCount - 1; // at least two shards in use
        }

        long nanoTime() {
            return origin + now;
        }

        void execute() throws Exception {
            for (step = 0; step < STEPS; step++) {
                int choice = random.nextInt(100);
                whileLagging += lagsTheClock() && choice < 65 ? 1 : 0;
                if (choice < 40 && model.size() < MAX_PENDING) {
                    schedule();
                } else if (choice < 65) {
                    cancel();
                } else if (choice < 73) {
                    toggleLock(random.nextInt(shardCount));
                } else if (choice < 83) {
                    now += advance();
                } else {
                    releaseAll();
                    harvest(1 + random.nextInt(WheelWorkQueue.READY_BATCH));
                }
                checkEarliestEvent();
                if (step % 64 == 0) {
                    releaseAll();
                    checkViews();
                }
            }
            releaseAll();
            now = Long.MAX_VALUE; // everything left is due
            while (!model.isEmpty()) {
                harvest(WheelWorkQueue.READY_BATCH);
            }
            harvest(WheelWorkQueue.READY_BATCH);
            checkViews();
            if (STEPS >= 20_000) {
                check(inPlace > STEPS / 100 && viaInbox > STEPS / 200 && cancelsLeftToTheDrain > 0
                        && partialHarvests > STEPS / 1_000 && whileLagging > STEPS / 100 && harvested > STEPS / 20,
                        () -> "too little coverage: inPlace=" + inPlace + ", viaInbox=" + viaInbox
                                + ", cancelsLeftToTheDrain=" + cancelsLeftToTheDrain + ", partialHarvests="
                                + partialHarvests + ", whileLagging=" + whileLagging + ", harvested=" + harvested);
            }
        }

        boolean lagsTheClock() {
            return !model.isEmpty() && model.first().deadline() <= now;
        }

        void schedule() {
            int producer = random.nextInt(PRODUCERS);
            long deadline = TimingWheel.addSaturated(now, delay());
            ModelTask task = new ModelTask(nextId++, homes[producer], deadline);
            boolean applied = shards.submit(task, true) != null && !task.inInbox();
            inPlace += applied ? 1 : 0;
            viaInbox += applied ? 0 : 1;
            check(model.add(task), () -> task + " has the sequence of another task");
            recent[task.id % RECENT] = task;
        }

        void cancel() {
            ModelTask task = random.nextInt(3) == 0 && !model.isEmpty()
                    ? (random.nextBoolean() ? model.first() : model.last())
                    : recent[random.nextInt(RECENT)];
            if (task == null || task.cancelled) {
                return;
            }
            task.cancelled = true;
            model.remove(task);
            if (task.inInbox()) {
                cancelsLeftToTheDrain++; // WheelWorkQueue.cancelled: the drain reads the new state
                return;
            }
            shards.submit(task, false);
        }

        /** Locks or unlocks a shard on the locker thread, so that this thread's tryLock fails. */
        void toggleLock(int shard) throws Exception {
            boolean lock = !held[shard];
            locker.submit(() -> {
                if (lock) {
                    shards.shard(shard).lock();
                } else {
                    shards.shard(shard).unlock();
                }
            }).get(10, TimeUnit.SECONDS);
            held[shard] = lock;
        }

        void releaseAll() throws Exception {
            for (int shard = 0; shard < held.length; shard++) {
                if (held[shard]) {
                    toggleLock(shard);
                }
            }
        }

        /** Harvests at most {@code max} tasks and compares them with the model's first due ones. */
        void harvest(int max) {
            int count = shards.harvest(nanoTime(), into, max, false);
            for (int i = 0; i < count; i++) {
                WheelTask got = into[i];
                into[i] = null;
                ModelTask expected = model.isEmpty() || model.first().deadline() > now ? null : model.pollFirst();
                check(got == expected, () -> "harvested " + got + ", expected " + expected);
                check(!got.isScheduled(), () -> got + " still scheduled after the harvest");
                harvested++;
            }
            check(count == max || !lagsTheClock(), () -> "harvested " + count + " of at most " + max
                    + " while due: " + model.first());
            partialHarvests += count == max && lagsTheClock() ? 1 : 0;
        }

        /** The merged view of time is a lower bound of the earliest pending deadline. */
        void checkEarliestEvent() {
            if (!model.isEmpty()) {
                long earliest = shards.earliestEvent();
                check(earliest <= model.first().deadline(),
                        () -> "earliestEvent " + earliest + " after the first pending " + model.first());
            }
        }

        /** Under every lock: exactly the model's tasks, the earliest first. */
        void checkViews() {
            shards.lockAllForView();
            try {
                check(shards.size() == model.size(), () -> "size " + shards.size() + ", expected " + model.size());
                ModelTask earliest = model.isEmpty() ? null : model.first();
                WheelTask peeked = shards.peekEarliest();
                check(peeked == earliest, () -> "peekEarliest " + peeked + ", expected " + earliest);
            } finally {
                shards.unlockAll();
            }
        }

        /** A delay: now, within a tick, across a few ticks or slots, far, or a tie with a recent task. */
        long delay() {
            long tick = shape.tickNanos();
            switch (random.nextInt(8)) {
                case 0:
                    return 0;
                case 1:
                    return random.nextLong(tick);
                case 2:
                    return random.nextLong(tick * 4);
                case 3:
                    return random.nextLong(tick * shape.slotsPerLevel() * 3L);
                case 4:
                    return random.nextLong(1L << Math.min(62, 1 + random.nextInt(62)));
                default:
                    ModelTask other = recent[random.nextInt(RECENT)];
                    return other == null ? 0 : Math.max(0, other.deadline() - now); // a tie, if still ahead
            }
        }

        long advance() {
            long tick = shape.tickNanos();
            switch (random.nextInt(6)) {
                case 0:
                    return 0;
                case 1:
                    return random.nextLong(tick);
                case 2:
                    return random.nextLong(tick * 8);
                case 3:
                    return model.isEmpty() ? tick : Math.max(0, model.first().deadline() - now);
                case 4:
                    return random.nextLong(tick * shape.slotsPerLevel() * 2L);
                default:
                    return random.nextLong(tick * 64);
            }
        }

        void check(boolean condition, Supplier<String> message) {
            if (!condition) {
                throw new AssertionError(message.get());
            }
        }
    }
}
