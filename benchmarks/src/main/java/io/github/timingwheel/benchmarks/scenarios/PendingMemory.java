package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Retained heap per pending timer, and what stays retained after cancelling them all: arms
 * {@code count} timers with delays of 1 to 60 minutes from one thread (one shared task object,
 * so only the scheduler's own objects count), measures the heap after full collections minus
 * the baseline, divides by the count, cancels every timer and measures again. Also prints the
 * insert and cancel rates of that single thread.
 *
 * <p>Run: {@code java -Xmx8g -XX:+UseParallelGC -cp benchmarks/target/benchmarks.jar
 * io.github.timingwheel.benchmarks.scenarios.PendingMemory [count] [subject...]}
 * (default 1000000 and every subject of {@link TimerSubject#NAMES}).
 */
public final class PendingMemory {

    private PendingMemory() {
    }

    public static void main(String[] args) throws Exception {
        int count = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 1_000_000;
        List<String> names = args.length > 1 ? List.of(args).subList(1, args.length) : TimerSubject.NAMES;
        long[] delays = delays(count);
        System.out.printf("%-22s %12s %14s %14s %14s %16s%n", "subject", "pending", "inserts/s",
                "bytes/timer", "cancels/s", "bytes/timer left");
        for (String name : names) {
            Row row = measure(name, delays);
            System.out.printf("%-22s %,12d %,14.0f %14.1f %,14.0f %16.2f%n", name, count,
                    row.insertsPerSecond, row.bytesPerTimer, row.cancelsPerSecond, row.bytesLeftPerTimer);
        }
    }

    private record Row(double insertsPerSecond, double bytesPerTimer, double cancelsPerSecond,
            double bytesLeftPerTimer) {
    }

    private static Row measure(String name, long[] delays) throws InterruptedException {
        int count = delays.length;
        Object[] handles = new Object[count];
        List<Thread> threads = new ArrayList<>();
        TimerSubject timers = TimerSubject.create(name, runnable -> {
            Thread thread = new Thread(runnable, name + "-worker");
            thread.setDaemon(true);
            threads.add(thread);
            return thread;
        });
        try {
            // Let the subject start its threads and settle before the baseline.
            timers.cancel(timers.arm(TimerSubject.NOOP, TimeUnit.HOURS.toNanos(1)));
            Thread.sleep(200);
            long baseline = HeapMeter.retainedBytes();

            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                handles[i] = timers.arm(TimerSubject.NOOP, delays[i]);
            }
            double insertsPerSecond = count * 1e9 / (System.nanoTime() - start);
            // HashedWheelTimer moves at most 100,000 new timeouts into its wheel per tick.
            Thread.sleep(name.equals("netty-hwt-100ms") ? 100L * (count / 100_000 + 2) : 500L);
            double bytesPerTimer = (double) (HeapMeter.retainedBytes() - baseline) / count;

            start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                timers.cancel(handles[i]);
            }
            double cancelsPerSecond = count * 1e9 / (System.nanoTime() - start);
            Arrays.fill(handles, null);
            Thread.sleep(name.equals("netty-hwt-100ms") ? 300L : 100L); // cancelled timeouts leave HashedWheelTimer on its next tick
            double bytesLeft = (double) (HeapMeter.retainedBytes() - baseline) / count;
            Reference.reachabilityFence(handles); // part of the baseline: must stay until here
            return new Row(insertsPerSecond, bytesPerTimer, cancelsPerSecond, bytesLeft);
        } finally {
            timers.close();
        }
    }

    private static long[] delays(int count) {
        SplittableRandom random = new SplittableRandom(42);
        long[] delays = new long[count];
        for (int i = 0; i < count; i++) {
            delays[i] = random.nextLong(TimeUnit.MINUTES.toNanos(1), TimeUnit.MINUTES.toNanos(60));
        }
        return delays;
    }
}
