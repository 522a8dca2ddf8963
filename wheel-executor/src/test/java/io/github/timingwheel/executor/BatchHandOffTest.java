package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Order and never-early across the batched hand-off ({@code WheelWorkQueue} note [5]): bursts
 * many times larger than a batch, with many ties, become due one tick at a time on a manual
 * clock. No task starts before the clock reaches its deadline, each runs exactly once, and the
 * tasks each worker runs come in deadline-then-submission order: with one worker that is the
 * whole order, with several it is each worker's share of it.
 */
class BatchHandOffTest {

    private static final int TICKS = 4;
    private static final int TASKS = 40 * WheelWorkQueue.READY_BATCH;

    /** What one run saw: which task, on which worker, at what time on the manual clock. */
    private record Run(int index, long delayMillis, String worker, long clockAtStart) {
    }

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {1, 2, 4})
    void burstsLargerThanABatch_runInOrder_neverEarly(int workers) throws InterruptedException {
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(workers).timeSource(clock).daemon(true).build();
        executor.prestartAllCoreThreads();
        long origin = clock.nanoTime();
        SplittableRandom random = new SplittableRandom(workers);
        long[] delays = new long[TASKS];
        ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();
        List<CountDownLatch> dueAt = new ArrayList<>();
        int[] perTick = new int[TICKS + 1];
        for (int i = 0; i < TASKS; i++) {
            delays[i] = 1 + random.nextInt(TICKS); // 1..TICKS ms: about 10 batches of ties per tick
            perTick[(int) delays[i]]++;
        }
        for (int tick = 0; tick <= TICKS; tick++) {
            dueAt.add(new CountDownLatch(perTick[tick]));
        }
        try {
            for (int i = 0; i < TASKS; i++) {
                int index = i;
                long delay = delays[i];
                executor.schedule(() -> {
                    runs.add(new Run(index, delay, Thread.currentThread().getName(), clock.nanoTime() - origin));
                    dueAt.get((int) delay).countDown();
                }, delay, MILLISECONDS);
            }
            for (int tick = 1; tick <= TICKS; tick++) {
                clock.advance(1, MILLISECONDS);
                await(dueAt.get(tick));
            }
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
        Comparator<Run> deadlineThenSubmission = Comparator.comparingLong(Run::delayMillis).thenComparingInt(Run::index);
        Map<String, List<Run>> byWorker = runs.stream()
                .collect(Collectors.groupingBy(Run::worker, ConcurrentHashMap::new, Collectors.toList()));
        for (Map.Entry<String, List<Run>> share : byWorker.entrySet()) {
            assertThat(share.getValue()).as("the runs of %s", share.getKey()).isSortedAccordingTo(deadlineThenSubmission);
        }
        if (workers == 1) {
            assertThat(byWorker).hasSize(1);
        }
        AtomicInteger tasksRun = new AtomicInteger();
        byWorker.values().forEach(share -> tasksRun.addAndGet(share.size()));
        assertThat(tasksRun.get()).isEqualTo(TASKS);
    }
}
