package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * How late timers fire under a steady stream: one producer arms {@code rate} timers per second
 * for {@code seconds}, with delays drawn uniformly from [minMs, maxMs + 1) ms; each timer records
 * its start minus its deadline. Nothing is cancelled. The producer paces itself by parking
 * when it is more than 20 µs ahead, so it leaves the CPU to the workers.
 */
final class Lateness implements Scenario {

    /** The producer parks only while more than this far ahead of its schedule (also LatenessFloor's). */
    static final long PACING_SLACK_NANOS = 20_000L;

    static final Column FIRED = Column.higher("fired", 0);
    static final Column P50 = Column.lower("p50 us", 0);
    static final Column P99 = Column.lower("p99 us", 0);
    static final Column P999 = Column.lower("p99.9 us", 0);
    static final Column MAX = Column.lower("max us", 0);
    static final Column EARLY = Column.lower("early", 0);

    private final int rate;
    private final int seconds;
    private final int minMs;
    private final int maxMs;

    Lateness(int rate, int seconds, int minMs, int maxMs) {
        this.rate = rate;
        this.seconds = seconds;
        this.minMs = minMs;
        this.maxMs = maxMs;
    }

    @Override
    public String name() {
        return "lateness";
    }

    @Override
    public String description() {
        return String.format("%,d timers/s for %d s from one thread, delays %d to %d ms, none cancelled;"
                + " how late each started (µs)", rate, seconds, minMs, maxMs);
    }

    @Override
    public List<Column> columns() {
        return List.of(FIRED, P50, P99, P999, MAX, EARLY);
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        LatenessProbe.Sink sink = new LatenessProbe.Sink();
        SplittableRandom random = new SplittableRandom(7);
        long minNanos = TimeUnit.MILLISECONDS.toNanos(minMs);
        long maxNanos = TimeUnit.MILLISECONDS.toNanos(maxMs + 1);
        long total = (long) rate * (warmUp ? 1 : seconds);
        try (TimerSubject timers = TimerSubject.create(subject)) {
            long interval = TimeUnit.SECONDS.toNanos(1) / rate;
            long start = System.nanoTime();
            for (long i = 0; i < total; i++) {
                long wait = start + i * interval - System.nanoTime();
                if (wait > PACING_SLACK_NANOS) {
                    LockSupport.parkNanos(wait);
                }
                long delay = random.nextLong(minNanos, maxNanos);
                timers.arm(new LatenessProbe(System.nanoTime() + delay, sink), delay);
            }
            Waiting.until(() -> sink.fired.sum() >= total, maxMs + 2_000L);
        }
        if (warmUp) {
            return;
        }
        Histogram late = sink.lateness();
        results.record(subject, FIRED, sink.fired.sum());
        results.record(subject, P50, late.getValueAtPercentile(50) / 1e3);
        results.record(subject, P99, late.getValueAtPercentile(99) / 1e3);
        results.record(subject, P999, late.getValueAtPercentile(99.9) / 1e3);
        results.record(subject, MAX, late.getMaxValue() / 1e3);
        results.record(subject, EARLY, sink.early.sum());
    }
}
