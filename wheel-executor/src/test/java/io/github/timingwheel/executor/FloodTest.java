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

    /**
     * Four producers call {@code execute} flat out on two workers, as fast as they can, for two
     * seconds. The lock holder moves at most a batch from the inbox before it hands out due
     * tasks, so tasks complete in every half second of the flood; the bound is far below what
     * even a loaded machine runs, and far above the none that an unbounded drain lets through.
     */
    @Test
    void tasksKeepRunning_whileFourProducersFlood() throws InterruptedException {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(2).daemon(true).build();
        LongAdder ran = new LongAdder();
        LongAdder submitted = new LongAdder();
        LongAccumulator largestInbox = new LongAccumulator(Math::max, 0);
        AtomicBoolean flooding = new AtomicBoolean(true);
        List<Thread> producers = startProducers(() -> {
            while (flooding.get()) {
                for (int i = 0; i < 64; i++) {
                    executor.execute(ran::increment);
                }
                submitted.add(64);
                largestInbox.accumulate(executor.queue().inboxSize());
            }
        });
        long[] ranInWindow = new long[4];
        try {
            long before = ran.sum();
            for (int window = 0; window < ranInWindow.length; window++) {
                ExecutorTesting.observeFor(500, MILLISECONDS);
                long now = ran.sum();
                ranInWindow[window] = now - before;
                before = now;
            }
        } finally {
            flooding.set(false);
            join(producers);
        }
        try {
            for (int window = 0; window < ranInWindow.length; window++) {
                assertThat(ranInWindow[window]).as("tasks run in half-second %d of the flood", window)
                        .isGreaterThanOrEqualTo(100);
            }
            assertThat(largestInbox.get()).as("largest inbox seen").isLessThanOrEqualTo((long) executor.queue().shardCount() * WheelShard.INBOX_CAPACITY);
            awaitBacklog(ran, submitted.sum());
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }

    /**
     * While the only worker is busy, nobody but the producers themselves can drain the inbox:
     * 400,000 submissions, six times the inbox's capacity, all go through (the producers do the
     * insertion themselves past the bound), the inbox never holds more than its capacity, and
     * once the worker is free every task runs.
     */
    @Test
    void inboxStaysBounded_andProducersGoOn_whileNoWorkerIsFree() throws InterruptedException {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        int perProducer = 100_000;
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
