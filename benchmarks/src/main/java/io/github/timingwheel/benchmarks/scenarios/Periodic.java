package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Many fixed-rate tasks: {@code tasks} tasks with a period of {@code periodMs}, their first runs
 * spread over one period, for {@code seconds}. Each task counts the runs that started before
 * the end and remembers how late its last such run started against its ideal time
 * {@code first + n * period}. Reports runs done as a percentage of the ideal count, and the
 * drift of the last run over all tasks (p50, p99, max).
 */
final class Periodic implements Scenario {

    static final Column DONE = Column.higher("runs done %", 1);
    static final Column P50 = Column.lower("drift p50 us", 0);
    static final Column P99 = Column.lower("drift p99 us", 0);
    static final Column MAX = Column.lower("drift max us", 0);

    private final int tasks;
    private final int periodMs;
    private final int seconds;

    Periodic(int tasks, int periodMs, int seconds) {
        this.tasks = tasks;
        this.periodMs = periodMs;
        this.seconds = seconds;
    }

    @Override
    public String name() {
        return "periodic";
    }

    @Override
    public String description() {
        return String.format("%,d fixed-rate tasks, period %d ms, for %d s; drift of each task's last run (µs)",
                tasks, periodMs, seconds);
    }

    @Override
    public List<Column> columns() {
        return List.of(DONE, P50, P99, MAX);
    }

    /** One task: runs are serial (each happens-before the next), so plain fields suffice. */
    private static final class Runs extends TimerSubject.Task {
        private final long first;
        private final long period;
        private final long end;
        int runs;
        long lastDrift;

        Runs(long first, long period, long end) {
            this.first = first;
            this.period = period;
            this.end = end;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            if (now - end <= 0) {
                lastDrift = now - (first + runs * period);
                runs++;
            }
        }

        long idealRuns() {
            return end - first < 0 ? 0 : (end - first) / period + 1;
        }
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        long period = TimeUnit.MILLISECONDS.toNanos(periodMs);
        long length = TimeUnit.SECONDS.toNanos(warmUp ? 1 : seconds);
        SplittableRandom random = new SplittableRandom(5);
        List<Runs> all = new ArrayList<>(tasks);
        try (TimerSubject timers = TimerSubject.create(subject)) {
            long start = System.nanoTime();
            long end = start + length;
            for (int i = 0; i < tasks; i++) {
                long initialDelay = period + random.nextLong(period); // arming never races the first run
                Runs task = new Runs(start + initialDelay, period, end);
                all.add(task);
                timers.armAtFixedRate(task, start + initialDelay - System.nanoTime(), period);
            }
            Thread.sleep(Math.max(0, (end - System.nanoTime()) / 1_000_000L) + 1);
        } // close() waits for the workers: every run happens-before the reads below
        if (warmUp) {
            return;
        }
        long done = 0;
        long ideal = 0;
        Histogram drift = new Histogram(3);
        for (Runs task : all) {
            done += task.runs;
            ideal += task.idealRuns();
            if (task.runs > 0) {
                drift.recordValue(Math.max(0, task.lastDrift));
            }
        }
        results.record(subject, DONE, 100.0 * done / ideal);
        results.record(subject, P50, drift.getValueAtPercentile(50) / 1e3);
        results.record(subject, P99, drift.getValueAtPercentile(99) / 1e3);
        results.record(subject, MAX, drift.getMaxValue() / 1e3);
    }
}
