package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Order and never-early across the batched hand-off ({@code WorkerRoles} note [4]) and the
 * merge of the shards' due tasks ({@code WheelShards} note [3]): bursts many times larger than a
 * batch, with many ties, spread over several ticks and made by one or several producer threads
 * (whose tasks land in their own home shards), all become due at once when the manual clock
 * jumps over every tick in one step. So the queue alone, not the pace of the test, must hand
 * them out by deadline, then sequence. No task starts before the clock reaches its deadline,
 * each runs exactly once, and the tasks each worker runs come in (deadline, sequence) order:
 * with one worker that is the whole order, with several it is each worker's share of it.
 *
 * <p>Shown to catch a merge that compares sequences only ({@code WheelShards.firstHead}
 * comparing heads by sequence alone: tasks of a later tick, queued earlier in another shard,
 * run first) and a harvest that does not merge ({@code WheelShards.firstHead} returning the
 * first shard with a due head).
 */
class BatchHandOffTest {

    private static final int TICKS = 4;
    private static final int TASKS = 40 * WheelWorkQueue.READY_BATCH;

    /** What one run saw: which task, on which worker, at what time on the manual clock. */
    private record Run(int index, long delayMillis, String worker, long clockAtStart) {
    }

    @ParameterizedTest(name = "{0} workers, {1} shards, {2} producers")
    @CsvSource({"1, 1, 1", "2, 1, 1", "4, 1, 1", "1, 8, 8", "2, 8, 8", "4, 8, 8"})
    void burstsLargerThanABatch_dueOverSeveralTicksAtOnce_runInOrder_neverEarly(int workers, int shards,
            int producers) throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(workers).shards(shards).timeSource(clock).daemon(true).build();
        executor.prestartAllCoreThreads();
        long origin = clock.nanoTime();
        SplittableRandom random = new SplittableRandom(workers * 31L + producers);
        long[] delays = new long[TASKS];
        long[] sequences = new long[TASKS];
        ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();
        CountDownLatch allRan = new CountDownLatch(TASKS);
        for (int i = 0; i < TASKS; i++) {
            delays[i] = 1 + random.nextInt(TICKS); // 1..TICKS ms: about 10 batches of ties per tick
        }
        try {
            List<Thread> threads = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int p = 0; p < producers; p++) {
                int first = p;
                Thread producer = new Thread(() -> {
                    try {
                        for (int i = first; i < TASKS; i += producers) {
                            int index = i;
                            long delay = delays[i];
                            ScheduledFuture<?> future = executor.schedule(() -> {
                                runs.add(new Run(index, delay, Thread.currentThread().getName(),
                                        clock.nanoTime() - origin));
                                allRan.countDown();
                            }, delay, MILLISECONDS);
                            // Set by this thread as it queued the task: the tie-break among equal deadlines.
                            sequences[i] = ((ScheduledTask<?>) future).sequence();
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }, "producer-" + p);
                threads.add(producer);
                producer.start();
            }
            for (Thread producer : threads) {
                producer.join();
            }
            assertThat(failure.get()).isNull();
            assertThat(runs).as("runs before the clock moved").isEmpty();
            // Each producer's home shard is random: 8 producers all on one of 8 shards is a 1 in 8^7 chance.
            assertThat(Arrays.stream(sequences).map(sequence -> sequence & (shards - 1)).distinct().count())
                    .as("shards the tasks landed in").isGreaterThanOrEqualTo(Math.min(shards, 2));
            clock.advance(TICKS, MILLISECONDS); // every tick due at once
            await(allRan);
        } finally {
            executor.shutdown();
            awaitTermination(executor);
        }

        assertThat(runs).hasSize(TASKS);
        assertThat(runs.stream().map(Run::index).distinct().count()).as("each task ran once").isEqualTo(TASKS);
        for (Run run : runs) {
            assertThat(run.clockAtStart()).as("task %d started on time or later", run.index())
                    .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(run.delayMillis()));
        }
        Comparator<Run> deadlineThenSequence = Comparator.comparingLong(Run::delayMillis)
                .thenComparingLong(run -> sequences[run.index()]);
        Map<String, List<Run>> byWorker = runs.stream()
                .collect(Collectors.groupingBy(Run::worker, ConcurrentHashMap::new, Collectors.toList()));
        for (Map.Entry<String, List<Run>> share : byWorker.entrySet()) {
            List<Run> ran = share.getValue();
            for (int i = 1; i < ran.size(); i++) {
                Run before = ran.get(i - 1);
                Run after = ran.get(i);
                // Equal keys: two producers' tasks whose stamps met on one shard (the clock
                // stands still here); such ties are unordered (WheelShards [6]).
                assertThat(deadlineThenSequence.compare(before, after))
                        .as("%s ran %s (sequence %d) before %s (sequence %d)", share.getKey(), before,
                                sequences[before.index()], after, sequences[after.index()])
                        .isNotPositive();
            }
        }
        if (workers == 1) {
            assertThat(byWorker).hasSize(1);
        }
        AtomicInteger tasksRun = new AtomicInteger();
        byWorker.values().forEach(share -> tasksRun.addAndGet(share.size()));
        assertThat(tasksRun.get()).isEqualTo(TASKS);
    }
}
