package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitInTask;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Floods of submissions ({@code WheelWorkQueue} notes [1] and [7]): tasks keep running while
 * producers submit flat out, the inbox never holds more than its capacity, and no task is lost.
 */
class FloodTest {

    private static final int PRODUCERS = 4;
    /** How long a backlog of millions may take to run on a loaded two-core machine. */
    private static final long BACKLOG_SECONDS = 6 * TIMEOUT_SECONDS;

    /** Rounds of the flood liveness test; 1 in the build, more by -Dflood.rounds=20. */
    private static final int FLOOD_ROUNDS = Integer.getInteger("flood.rounds", 1);
    private static final int WINDOWS = 8;
    /** Runs a half-second window must hold: far below what a loaded two-core machine runs. */
    private static final long MIN_RUNS_PER_WINDOW = 1_000;

    /**
     * Four producers call {@code execute} flat out, never pausing, on
     * {@code newScheduledThreadPool(2)}, for eight half-second windows after a half-second of
     * warm-up (interpreted code runs a tenth as fast on both sides). Every window runs at
     * least a thousand tasks (the harvest never waits behind producers, WheelShard [7]; its
     * inbox work stays in proportion to what it hands out, WheelShards [3]), and the backlog
     * (submitted, not yet run) stays within what backpressure allows (WheelWorkQueue [4]).
     * Mutants, each red here: a harvest that waits for every due shard's lock and drains and
     * helps a thousand inbox tasks a shard (windows of a few hundred runs); no backpressure
     * (the backlog passes the bound within a second).
     */
    @Test
    void tasksKeepRunning_andTheBacklogStaysBounded_whileFourProducersFloodWithoutPause() throws InterruptedException {
        for (int round = 0; round < FLOOD_ROUNDS; round++) {
            floodRound(round);
        }
    }

    private static void floodRound(int round) throws InterruptedException {
        WheelScheduledExecutor executor = WheelScheduledExecutor.newScheduledThreadPool(2);
        LongAdder ran = new LongAdder();
        LongAdder submitted = new LongAdder();
        Runnable task = ran::increment;
        // Backpressure's bound (WheelWorkQueue [4]) for every shard, what its inbox holds, a
        // ready batch, and one submission per producer; what the producers' counts lag by is
        // within that.
        long shards = executor.queue().shardCount();
        long bound = shards * (WheelWorkQueue.BACKLOG_TASKS + WheelShard.INBOX_CAPACITY)
                + WheelWorkQueue.READY_BATCH + PRODUCERS;
        AtomicBoolean flooding = new AtomicBoolean(true);
        List<Thread> producers = startProducers(() -> {
            while (flooding.get()) {
                executor.execute(task);
                submitted.increment();
            }
        });
        long[] ranInWindow = new long[WINDOWS];
        long largestBacklog = 0;
        try {
            ExecutorTesting.observeFor(500, MILLISECONDS); // warm-up: the JIT compiles both sides
            long before = ran.sum();
            for (int window = 0; window < WINDOWS; window++) {
                ExecutorTesting.observeFor(500, MILLISECONDS);
                long runs = ran.sum();
                largestBacklog = Math.max(largestBacklog, submitted.sum() - runs);
                ranInWindow[window] = runs - before;
                before = runs;
                if (largestBacklog > 4 * bound) {
                    break; // no backpressure: stop before the heap runs out
                }
            }
        } finally {
            flooding.set(false);
            join(producers);
        }
        try {
            assertThat(largestBacklog).as("round %d: largest backlog seen, windows %s", round, Arrays.toString(ranInWindow))
                    .isLessThanOrEqualTo(bound);
            for (int window = 0; window < WINDOWS; window++) {
                assertThat(ranInWindow[window]).as("round %d: tasks run in half-second %d of the flood, windows %s",
                        round, window, Arrays.toString(ranInWindow)).isGreaterThanOrEqualTo(MIN_RUNS_PER_WINDOW);
            }
            awaitBacklog(ran, submitted.sum());
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }

    /**
     * While the only worker is busy, nobody but the producers themselves can drain the inbox:
     * 120,000 submissions, seven times an inbox's capacity, all go through (the producers do the
     * insertion themselves past the bound), the inbox never holds more than its capacity, and
     * once the worker is free every task runs. Fewer than backpressure's bound of a shard
     * (WheelWorkQueue.BACKLOG_TASKS) in all, so that no producer waits for the held worker.
     */
    @Test
    void inboxStaysBounded_andProducersGoOn_whileNoWorkerIsFree() throws InterruptedException {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        int perProducer = 30_000;
        AtomicInteger ran = new AtomicInteger();
        LongAccumulator largestInbox = new LongAccumulator(Math::max, 0);
        try {
            executor.execute(() -> {
                busy.countDown();
                awaitInTask(release);
            });
            await(busy);
            List<Thread> producers = startProducers(() -> {
                for (int i = 0; i < perProducer; i++) {
                    executor.execute(ran::incrementAndGet);
                    if ((i & 255) == 0) {
                        largestInbox.accumulate(executor.queue().inboxSize());
                    }
                }
            });
            join(producers);
            assertThat(largestInbox.get()).as("largest inbox seen").isLessThanOrEqualTo((long) executor.queue().shardCount() * WheelShard.INBOX_CAPACITY);
            assertThat(ran.get()).as("runs while the only worker was busy").isZero();
            release.countDown();
            awaitCondition("every task ran", () -> ran.get() == PRODUCERS * perProducer);
        } finally {
            release.countDown();
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }

    private static List<Thread> startProducers(Runnable body) {
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            Thread producer = new Thread(body, "flood-producer-" + p);
            producer.setDaemon(true);
            producer.start();
            producers.add(producer);
        }
        return producers;
    }

    private static void join(List<Thread> producers) throws InterruptedException {
        for (Thread producer : producers) {
            producer.join(SECONDS.toMillis(BACKLOG_SECONDS));
            assertThat(producer.isAlive()).as("%s finished", producer.getName()).isFalse();
        }
    }

    /** Waits, longer than the usual bound, until {@code ran} reaches {@code total}. */
    private static void awaitBacklog(LongAdder ran, long total) {
        long giveUpAt = System.nanoTime() + SECONDS.toNanos(BACKLOG_SECONDS);
        while (ran.sum() < total && System.nanoTime() - giveUpAt < 0) {
            LockSupport.parkNanos(MILLISECONDS.toNanos(10));
        }
        assertThat(ran.sum()).as("tasks run of %,d submitted", total).isEqualTo(total);
    }
}
