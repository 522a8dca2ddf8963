package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.SchedulerThreads;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import io.github.timingwheel.executor.SchedulerMetrics;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * What a tolerance buys: one thread arms {@code rate} timers per second for {@code seconds},
 * each due after a delay drawn uniformly from [10, 20) ms, none cancelled (paced as
 * {@link Lateness} is). Our executor and our timer run it with a tolerance of 0 and of 1 ms (the
 * timer also with its default, {@value WheelTimer.Builder#DEFAULT_TOLERANCE_MILLIS} ms), and with
 * a tolerance of 0 but each timer a re-armable one made with a tolerance of its own of 1 ms: how
 * often the waiting worker woke up ({@link SchedulerMetrics#wakeUps()}, per second of the run,
 * from the first arm to the last firing), and how late the timers started. The JDK's executor
 * and Netty's timers keep no such count and have no tolerance; for every subject, ours
 * included, the scheduler threads' voluntary context switches per second (from
 * {@code /proc/self/task/<tid>/status}, Linux only, else "-") compare what the kernel saw: each
 * is a wait that slept. Other subjects have no row here.
 */
final class Wakeups implements Scenario {

    static final Column WAKE_UPS = Column.lower("wake-ups/s", 0);
    static final Column SWITCHES = Column.lower("vol. switches/s", 0);
    static final Column RAN = Column.lower("timers/s", 0);
    static final Column P50 = Column.lower("p50 us", 0);
    static final Column P99 = Column.lower("p99 us", 0);
    static final Column EARLY = Column.lower("early", 0);

    private static final long MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final int rate;
    private final int seconds;

    Wakeups(int rate, int seconds) {
        this.rate = rate;
        this.seconds = seconds;
    }

    @Override
    public String name() {
        return "wakeups";
    }

    @Override
    public String description() {
        return String.format("%,d timers/s for %d s from one thread, delays 10 to 20 ms, none cancelled; ours with"
                + " a tolerance of 0 and 1 ms (the timer's default is %d ms), and with each timer's own 1 ms tolerance:"
                + " wake-ups of the waiting worker and"
                + " voluntary context switches of the scheduler threads per second, lateness (µs)", rate, seconds,
                WheelTimer.Builder.DEFAULT_TOLERANCE_MILLIS);
    }

    @Override
    public List<Column> columns() {
        return List.of(WAKE_UPS, SWITCHES, RAN, P50, P99, EARLY);
    }

    /**
     * One row of a subject: the builder's tolerance in ms (-1: the subject has none) and, for
     * ours, a tolerance of each timer's own in ms (re-armable timeouts made with it, never
     * touched; -1: plain timers).
     */
    private record Variant(long toleranceMillis, long ownToleranceMillis) {
        String row(String subject) {
            if (toleranceMillis < 0) {
                return subject;
            }
            if (ownToleranceMillis >= 0) {
                return subject + " tol 0, each " + ownToleranceMillis + "ms";
            }
            return subject + " tol " + (toleranceMillis == 0 ? "0" : toleranceMillis + "ms")
                    + (subject.equals("wheel-timer") && toleranceMillis == WheelTimer.Builder.DEFAULT_TOLERANCE_MILLIS
                            ? " (default)" : "");
        }
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        List<Variant> variants = switch (subject) {
            case "wheel-executor" -> List.of(new Variant(0, -1), new Variant(1, -1), new Variant(0, 1));
            case "wheel-timer" -> List.of(new Variant(0, -1), new Variant(1, -1),
                    new Variant(WheelTimer.Builder.DEFAULT_TOLERANCE_MILLIS, -1), new Variant(0, 1));
            case "jdk-stpe", "netty-hwt-1ms", "netty-hwt-100ms" -> List.of(new Variant(-1, -1)); // none to set
            default -> List.of();
        };
        for (Variant variant : variants) {
            SchedulerThreads threads = new SchedulerThreads("wake");
            try (Armed timers = create(subject, variant, threads)) {
                measure(timers, threads, variant.row(subject), warmUp, results);
            }
        }
    }

    private void measure(Armed timers, SchedulerThreads threads, String row, boolean warmUp, Results results)
            throws Exception {
        LatenessProbe.Sink sink = new LatenessProbe.Sink();
        SplittableRandom random = new SplittableRandom(11);
        long total = (long) rate * (warmUp ? 1 : seconds);
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        timers.arm(TimerSubject.NOOP, 0L); // the subjects that start threads on demand start them now (two for
        timers.arm(TimerSubject.NOOP, 0L); // the JDK's), so that the switches are read from running threads
        Thread.sleep(50);
        long wakeUpsBefore = timers.wakeUps();
        long switchesBefore = threads.voluntaryContextSwitches();
        long start = System.nanoTime();
        for (long i = 0; i < total; i++) {
            long wait = start + i * interval - System.nanoTime();
            if (wait > 20_000) {
                LockSupport.parkNanos(wait);
            }
            long delay = random.nextLong(MIN_NANOS, MAX_NANOS);
            timers.arm(new LatenessProbe(System.nanoTime() + delay, sink), delay);
        }
        Waiting.until(() -> sink.fired.sum() >= total, 2_000L + TimeUnit.NANOSECONDS.toMillis(MAX_NANOS));
        long end = sink.lastStart.get();
        long wakeUpsAfter = timers.wakeUps();
        long switchesAfter = threads.voluntaryContextSwitches();
        if (warmUp) {
            return;
        }
        double elapsed = Math.max(1L, end - start);
        Histogram late = sink.lateness();
        results.record(row, WAKE_UPS, wakeUpsAfter < 0 ? Double.NaN : (wakeUpsAfter - wakeUpsBefore) * 1e9 / elapsed);
        results.record(row, SWITCHES, switchesBefore < 0 || switchesAfter < 0 ? Double.NaN
                : (switchesAfter - switchesBefore) * 1e9 / elapsed);
        results.record(row, RAN, sink.fired.sum() * 1e9 / elapsed);
        results.record(row, P50, late.getValueAtPercentile(50) / 1e3);
        results.record(row, P99, late.getValueAtPercentile(99) / 1e3);
        results.record(row, EARLY, sink.early.sum());
    }

    /** A subject as this scenario drives it: arm, and read its wake-ups if it counts them. */
    private interface Armed extends AutoCloseable {
        void arm(TimerSubject.Task task, long delayNanos);

        /** The count so far, or -1 if the subject keeps none. */
        long wakeUps();

        @Override
        void close();
    }

    private static Armed create(String subject, Variant variant, SchedulerThreads threads) {
        long own = variant.ownToleranceMillis();
        return switch (subject) {
            case "wheel-executor" -> {
                // two workers, as the runner's wheel-executor subject has
                WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(2)
                        .tolerance(variant.toleranceMillis(), TimeUnit.MILLISECONDS).threadFactory(threads).build();
                executor.prestartAllCoreThreads();
                Arm arm = own < 0
                        ? (task, delay) -> executor.schedule(task, delay, TimeUnit.NANOSECONDS)
                        : (task, delay) -> executor.scheduleRearmable(task, delay, TimeUnit.MILLISECONDS.toNanos(own),
                                TimeUnit.NANOSECONDS);
                yield ours(arm, executor::metrics, executor::shutdownNow);
            }
            case "wheel-timer" -> {
                WheelTimer timer = WheelTimer.builder().tolerance(variant.toleranceMillis(), TimeUnit.MILLISECONDS)
                        .threadFactory(threads).build();
                Arm arm = own < 0
                        ? (task, delay) -> timer.newTimeout(task, delay, TimeUnit.NANOSECONDS)
                        : (task, delay) -> timer.newRearmableTimeout(task, delay, TimeUnit.MILLISECONDS.toNanos(own),
                                TimeUnit.NANOSECONDS);
                yield ours(arm, timer::metrics, timer::stop);
            }
            default -> {
                TimerSubject timers = TimerSubject.create(subject, threads);
                yield new Armed() {
                    @Override
                    public void arm(TimerSubject.Task task, long delayNanos) {
                        timers.arm(task, delayNanos);
                    }

                    @Override
                    public long wakeUps() {
                        return -1L;
                    }

                    @Override
                    public void close() {
                        timers.close();
                    }
                };
            }
        };
    }

    private interface Arm {
        void arm(TimerSubject.Task task, long delayNanos);
    }

    private static Armed ours(Arm arm, Supplier<SchedulerMetrics> metrics, Runnable close) {
        return new Armed() {
            @Override
            public void arm(TimerSubject.Task task, long delayNanos) {
                arm.arm(task, delayNanos);
            }

            @Override
            public long wakeUps() {
                return metrics.get().wakeUps();
            }

            @Override
            public void close() {
                close.run();
            }
        };
    }
}
