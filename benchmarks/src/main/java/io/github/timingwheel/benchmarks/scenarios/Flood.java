package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A flood of submissions: {@code producers} threads arm zero-delay tasks as fast as they can for
 * {@code seconds} (a task counts itself when it runs). What matters is whether tasks keep running
 * while the flood goes on, so it reports the tasks run per second over the flood, the fewest run
 * in any one of its seconds, the rate of submission, and the backlog at the end of the flood
 * (tasks submitted and not yet run, counted exactly; the heap in use was shown here once, read
 * without a collection, so that garbage counted against the subject). A producer pauses while
 * more than {@code maxBacklog} submitted tasks have not run, so that a subject that falls
 * behind cannot exhaust the heap; the paused share of the flood is reported too.
 */
final class Flood implements Scenario {

    static final Column RAN_PER_S = Column.higher("ran/s", 0);
    static final Column WORST_SECOND = Column.higher("fewest in a second", 0);
    static final Column SUBMITTED_PER_S = Column.higher("submitted/s", 0);
    static final Column BACKLOG = Column.lower("backlog at end", 0);
    static final Column PAUSED = Column.lower("producers paused %", 0);

    private final int producers;
    private final int seconds;
    private final long maxBacklog;

    Flood(int producers, int seconds, long maxBacklog) {
        this.producers = producers;
        this.seconds = seconds;
        this.maxBacklog = maxBacklog;
    }

    @Override
    public String name() {
        return "flood";
    }

    @Override
    public String description() {
        return String.format("%d producers submit zero-delay tasks flat out for %d s (pausing while more than %,d"
                + " wait); tasks run during the flood", producers, seconds, maxBacklog);
    }

    @Override
    public List<Column> columns() {
        return List.of(RAN_PER_S, WORST_SECOND, SUBMITTED_PER_S, BACKLOG, PAUSED);
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        int floodSeconds = warmUp ? 1 : seconds;
        LongAdder ran = new LongAdder();
        LongAdder submitted = new LongAdder();
        LongAdder pausedNanos = new LongAdder();
        TimerSubject.Task task = new TimerSubject.Task() {
            @Override
            public void run() {
                ran.increment();
            }
        };
        long[] ranAtSecond = new long[floodSeconds + 1];
        long backlogAtEnd;
        long floodNanos;
        try (TimerSubject timers = TimerSubject.create(subject)) {
            CountDownLatch go = new CountDownLatch(1);
            long[] stopAt = new long[1];
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                Thread producer = new Thread(() -> flood(timers, task, go, stopAt, submitted, ran, pausedNanos),
                        "flood-producer-" + p);
                producer.setDaemon(true);
                producer.start();
                threads.add(producer);
            }
            long start = System.nanoTime();
            stopAt[0] = start + TimeUnit.SECONDS.toNanos(floodSeconds);
            go.countDown();
            for (int s = 1; s <= floodSeconds; s++) {
                long wakeAt = start + TimeUnit.SECONDS.toNanos(s);
                while (System.nanoTime() - wakeAt < 0) {
                    Thread.sleep(Math.max(1, (wakeAt - System.nanoTime()) / 1_000_000));
                }
                ranAtSecond[s] = ran.sum();
            }
            for (Thread producer : threads) {
                producer.join();
            }
            floodNanos = System.nanoTime() - start;
            long total = submitted.sum();
            backlogAtEnd = total - ran.sum();
            Waiting.until(() -> ran.sum() >= total, 120_000L);
        }
        if (warmUp) {
            return;
        }
        long fewest = Long.MAX_VALUE;
        for (int s = 1; s <= floodSeconds; s++) {
            fewest = Math.min(fewest, ranAtSecond[s] - ranAtSecond[s - 1]);
        }
        double floodS = floodNanos / 1e9;
        results.record(subject, RAN_PER_S, ranAtSecond[floodSeconds] / (double) floodSeconds);
        results.record(subject, WORST_SECOND, fewest);
        results.record(subject, SUBMITTED_PER_S, submitted.sum() / floodS);
        results.record(subject, BACKLOG, backlogAtEnd);
        results.record(subject, PAUSED, 100.0 * pausedNanos.sum() / (producers * (double) floodNanos));
    }

    private void flood(TimerSubject timers, TimerSubject.Task task, CountDownLatch go, long[] stopAt,
            LongAdder submitted, LongAdder ran, LongAdder pausedNanos) {
        try {
            go.await();
        } catch (InterruptedException e) {
            return;
        }
        long deadline = stopAt[0];
        long mine = 0;
        while (System.nanoTime() - deadline < 0) {
            for (int i = 0; i < 256; i++) {
                try {
                    timers.arm(task, 0L);
                } catch (RejectedExecutionException | IllegalStateException stopped) {
                    return;
                }
            }
            submitted.add(256);
            mine += 256;
            if ((mine & 0xFFFF) == 0 && submitted.sum() - ran.sum() > maxBacklog) {
                long pausedAt = System.nanoTime();
                while (submitted.sum() - ran.sum() > maxBacklog / 2 && System.nanoTime() - deadline < 0) {
                    Thread.yield();
                }
                pausedNanos.add(System.nanoTime() - pausedAt);
            }
        }
    }
}
