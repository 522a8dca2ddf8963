package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * How late timers fire: one producer arms {@code rate} timers per second, with delays drawn
 * uniformly from [minMs, maxMs] (plus a random sub-millisecond part), for {@code seconds}; each
 * timer records {@code System.nanoTime()} at start minus its own deadline into an HdrHistogram.
 * Negative lateness counts as early. Nothing is cancelled.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar
 * io.github.timingwheel.benchmarks.scenarios.Lateness [rate] [seconds] [minMs] [maxMs] [subject...]}
 * (default 100000 per second for 5 s at 1 to 50 ms, every subject).
 */
public final class Lateness {

    private Lateness() {
    }

    public static void main(String[] args) throws Exception {
        int rate = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 100_000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int minMs = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        int maxMs = args.length > 3 ? Integer.parseInt(args[3]) : 50;
        List<String> names = args.length > 4 ? List.of(args).subList(4, args.length) : TimerSubject.NAMES;
        System.out.printf("%d timers/s for %d s, delays %d to %d ms%n", rate, seconds, minMs, maxMs);
        System.out.printf("%-22s %10s %10s %10s %10s %10s %8s%n", "subject", "fired", "p50 us",
                "p99 us", "p99.9 us", "max us", "early");
        for (String name : names) {
            run(name, rate, seconds, minMs, maxMs);
        }
    }

    /** A timer that knows its own deadline and records how late it started. */
    private static final class Probe extends TimerSubject.Task {
        private final long deadline;
        private final Recorder lateness;
        private final LongAdder early;

        Probe(long deadline, Recorder lateness, LongAdder early) {
            this.deadline = deadline;
            this.lateness = lateness;
            this.early = early;
        }

        @Override
        public void run() {
            long late = System.nanoTime() - deadline;
            if (late < 0) {
                early.increment();
            } else {
                lateness.recordValue(late);
            }
        }
    }

    private static void run(String name, int rate, int seconds, int minMs, int maxMs)
            throws InterruptedException {
        Recorder lateness = new Recorder(3);
        LongAdder early = new LongAdder();
        SplittableRandom random = new SplittableRandom(7);
        long minNanos = TimeUnit.MILLISECONDS.toNanos(minMs);
        long maxNanos = TimeUnit.MILLISECONDS.toNanos(maxMs) + TimeUnit.MILLISECONDS.toNanos(1);
        try (TimerSubject timers = TimerSubject.create(name)) {
            long interval = TimeUnit.SECONDS.toNanos(1) / rate;
            long start = System.nanoTime();
            long total = (long) rate * seconds;
            for (long i = 0; i < total; i++) {
                long due = start + i * interval;
                long wait = due - System.nanoTime();
                if (wait > 20_000) {
                    LockSupport.parkNanos(wait);
                }
                long delay = random.nextLong(minNanos, maxNanos);
                long now = System.nanoTime();
                timers.arm(new Probe(now + delay, lateness, early), delay);
            }
            Thread.sleep(maxMs + 500L); // let the last timers fire
            Histogram histogram = lateness.getIntervalHistogram();
            System.out.printf("%-22s %,10d %,10.0f %,10.0f %,10.0f %,10.0f %8d%n", name,
                    histogram.getTotalCount() + early.sum(),
                    histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(99) / 1e3,
                    histogram.getValueAtPercentile(99.9) / 1e3, histogram.getMaxValue() / 1e3, early.sum());
        }
    }
}
