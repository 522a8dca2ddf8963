package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.SchedulerThreads;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Many timers expiring together: {@code count} timers, armed from one thread in random order,
 * whose deadlines fall uniformly in one window of {@code windowMs} that opens {@code leadMs}
 * after the first is armed. Reports how long arming took, how long after the window opened the
 * last one fired (equal to the window when the subject keeps pace), the firing rate over that
 * span, and lateness.
 *
 * <p>{@code arming ms (caller)} is the arming thread's time only: Netty's {@code newTimeout}
 * queues a timeout for its worker to move into the wheel later (100,000 per tick), so its
 * figure is the speed of a queue offer, not of arming. The work left behind shows in the other
 * columns, which time the firings themselves.
 *
 * <p>{@code gc ms} is the time the JVM spent collecting between the end of arming and the last
 * firing ({@link GcTime}): a young collection then evacuates the timers still pending, tens of
 * milliseconds with a million of them, and every firing due meanwhile is that much late, on any
 * subject. Read a round's p99 and max beside it.
 *
 * <p>{@code CPU ns/timer} is the CPU time of the subject's own threads from the end of arming to
 * the last firing, per timer: all the scheduler's work on the timers after they were armed (for
 * ours, moving them down the wheel, ordering each tick and the hand-off; for Netty's, moving its
 * queued timeouts into its wheel and walking its buckets), without the waits for a core that
 * the wall-clock columns include. Timers armed in random order lie in memory in no order of
 * their deadlines, so this is the figure that shows what walking them costs.
 *
 * <p>{@code slices > 1 ms} and {@code worst slice at ms} say where in the window a subject fell
 * behind: the window's deadlines are cut into slices of {@value #SLICE_MS} ms, and for each the
 * latest start against its deadline is kept; the first column counts the slices whose latest
 * start was more than 1 ms late, the second gives where the worst slice begins, in ms after the
 * window opened. A round whose p99 stands out then shows whether it lost its time at the
 * opening, in one stretch in the middle, or throughout.
 *
 * <p>{@code burst-shared} ({@link #sharedRecorder}) is the same burst with a realistic body: every
 * timer records its lateness, in microseconds, into one HdrHistogram {@code Recorder} that all
 * bodies share, as an application's latency metric would be. It is hostile to a scheduler with
 * more than one worker: bodies running at once on two workers contend for the recorder's cache
 * lines, so two workers can run the burst slower than one, which the plain burst (each worker
 * records into a histogram of its own) does not show. Its columns: how long after arming started
 * the last timer fired, and how long after the last deadline; lateness p50, p99, p99.9 and max
 * from the shared recorder; and early starts (a body that started before its deadline; none
 * should). The deadlines are uniform over [{@code leadMs}, {@code leadMs + windowMs}) ms after
 * arming starts. A round that missed the scheduler's targets (p99 over {@value #TARGET_P99_MICROS}
 * us, or the last timer more than {@value #TARGET_LAST_LATE_MS} ms after the last deadline), or
 * whose arming ran into the window, prints a line with its arming time, its p99 and how late the
 * last timer fired, so that the round behind a wide range is named.
 */
final class Burst implements Scenario {

    /** burst-shared's targets: a round past either prints a line ({@link #sharedRecorder}). */
    static final long TARGET_P99_MICROS = 2_000L;
    static final long TARGET_LAST_LATE_MS = 10L;

    static final Column ARM_MS = Column.lower("arming ms (caller)", 0);
    static final Column FIRED = Column.higher("fired", 0);
    static final Column SPAN_MS = Column.lower("last fired at ms", 0);
    static final Column RATE = Column.higher("fired/s", 0);
    static final Column P50 = Column.lower("p50 us", 0);
    static final Column P99 = Column.lower("p99 us", 0);
    static final Column MAX = Column.lower("max us", 0);
    static final Column GC_MS = Column.lower("gc ms", 0);
    static final Column CPU_PER_TIMER = Column.lower("CPU ns/timer", 0);
    static final Column SLICES_LATE = Column.lower("slices > 1 ms", 0);
    static final Column WORST_SLICE = Column.lower("worst slice at ms", 0);
    static final Column LAST_FROM_START = Column.lower("last fired ms after start", 0);
    static final Column LAST_AFTER_DEADLINE = Column.lower("last fired - last deadline ms", 1);
    static final Column P999 = Column.lower("p99.9 us", 0);
    static final Column EARLY = Column.lower("early", 0);
    private static final int SLICE_MS = 10;
    /** The priming burst: 4,096 timers 1 µs apart, as many per 1 ms tick as the measured one. */
    private static final int PRIMING_TIMERS = 4096;
    private static final long PRIMING_SPACING_NANOS = 1_000L;

    private final int count;
    private final int windowMs;
    private final int leadMs;

    /** Whether every body records into one shared {@code Recorder} ({@code burst-shared}). */
    private final boolean sharedRecorder;

    Burst(int count, int windowMs, int leadMs) {
        this(count, windowMs, leadMs, false);
    }

    Burst(int count, int windowMs, int leadMs, boolean sharedRecorder) {
        this.count = count;
        this.windowMs = windowMs;
        this.leadMs = leadMs;
        this.sharedRecorder = sharedRecorder;
    }

    @Override
    public String name() {
        return sharedRecorder ? "burst-shared" : "burst";
    }

    @Override
    public String description() {
        return String.format("%,d timers due in one %d ms window that opens %d ms after arming starts%s", count,
                windowMs, leadMs, sharedRecorder ? "; each body records its lateness into one shared Recorder" : "");
    }

    @Override
    public List<Column> columns() {
        if (sharedRecorder) {
            return List.of(ARM_MS, FIRED, LAST_FROM_START, LAST_AFTER_DEADLINE, P50, P99, P999, MAX, EARLY, GC_MS,
                    CPU_PER_TIMER);
        }
        return List.of(ARM_MS, FIRED, SPAN_MS, RATE, P50, P99, MAX, GC_MS, CPU_PER_TIMER, SLICES_LATE,
                WORST_SLICE);
    }

    /**
     * Fires a small dense burst through this subject instance and this sink before the one that
     * is measured, and waits for it. The warm-up round compiles the paths, but on another
     * instance: the first firings on new worker threads, into new per-thread histograms and
     * counters, take branches that compiled code had never seen (a thread's first counter cell,
     * a histogram's first minimum), and each such uncommon trap threw away the compiled firing
     * path at the window's opening, which then ran unoptimised for tens of milliseconds (the
     * first measured round of the subject; docs/decisions.md). A JVM pays
     * that once per compiled path, not once per burst.
     */
    private static void prime(TimerSubject subjectTimers, LatenessProbe.Sink sink)
            throws InterruptedException {
        long opensAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        for (int i = 0; i < PRIMING_TIMERS; i++) {
            long deadline = opensAt + i * PRIMING_SPACING_NANOS;
            LatenessProbe.armFor(subjectTimers, deadline, sink);
        }
        Waiting.until(() -> sink.fired.sum() >= PRIMING_TIMERS, 60_000L);
    }

    /**
     * burst-shared's warm-up is whole bursts until the JIT has settled: after one warm-up round of
     * a tenth of the burst, the first measured round of every subject (Netty's too) still armed
     * while the JIT compiled, into its own window, and lost a second.
     */
    @Override
    public boolean warmsUpUntilTheJitSettles() {
        return sharedRecorder;
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        if (sharedRecorder) {
            runShared(subject, warmUp, results);
            return;
        }
        // The warm-up arms a tenth of the timers into a tenth of the window: as many per tick as
        // the measured rounds (a tenth across the whole window gave ticks of 100), so the paths
        // that only a dense tick takes (the due heap's radix sort of 256 or more tasks, a large
        // slot's paced cascade) are compiled before the first measured round.
        int timers = warmUp ? count / 10 : count;
        SplittableRandom random = new SplittableRandom(11);
        long window = TimeUnit.MILLISECONDS.toNanos(warmUp ? Math.max(1, windowMs / 10) : windowMs);
        long sliceNanos = TimeUnit.MILLISECONDS.toNanos(SLICE_MS);
        int slices = Math.max(1, windowMs / SLICE_MS);
        long[] offsets = new long[timers];
        for (int i = 0; i < timers; i++) {
            offsets[i] = random.nextLong(window);
        }
        long armingNanos;
        long opensAt;
        long gcMillis;
        long cpuNanos;
        LatenessProbe.Sink sink;
        SchedulerThreads threads = new SchedulerThreads("burst");
        try (TimerSubject subjectTimers = TimerSubject.create(subject, threads)) {
            sink = new LatenessProbe.Sink(sliceNanos, slices);
            prime(subjectTimers, sink);
            long start = System.nanoTime();
            opensAt = start + TimeUnit.MILLISECONDS.toNanos(leadMs);
            sink.reset(opensAt);
            for (int i = 0; i < timers; i++) {
                long deadline = opensAt + offsets[i];
                LatenessProbe.armFor(subjectTimers, deadline, sink);
            }
            armingNanos = System.nanoTime() - start;
            long gcBefore = GcTime.totalMillis();
            long cpuBefore = threads.cpuNanos();
            Waiting.until(() -> sink.fired.sum() >= timers, leadMs + windowMs + 60_000L);
            cpuNanos = threads.cpuNanos() - cpuBefore;
            gcMillis = GcTime.totalMillis() - gcBefore;
        }
        if (warmUp) {
            return;
        }
        Histogram late = sink.lateness();
        double span = (sink.lastStart.get() - opensAt) / 1e9;
        results.record(subject, ARM_MS, armingNanos / 1e6);
        results.record(subject, FIRED, sink.fired.sum());
        results.record(subject, SPAN_MS, span * 1e3);
        results.record(subject, RATE, sink.fired.sum() / span);
        results.record(subject, P50, late.getValueAtPercentile(50) / 1e3);
        results.record(subject, P99, late.getValueAtPercentile(99) / 1e3);
        results.record(subject, MAX, late.getMaxValue() / 1e3);
        results.record(subject, GC_MS, gcMillis);
        results.record(subject, CPU_PER_TIMER, (double) cpuNanos / timers);
        long[] sliceMaxima = sink.sliceMaxima();
        int worst = 0;
        int lateSlices = 0;
        for (int i = 0; i < sliceMaxima.length; i++) {
            lateSlices += sliceMaxima[i] > TimeUnit.MILLISECONDS.toNanos(1) ? 1 : 0;
            worst = sliceMaxima[i] > sliceMaxima[worst] ? i : worst;
        }
        results.record(subject, SLICES_LATE, lateSlices);
        results.record(subject, WORST_SLICE, (double) worst * SLICE_MS);
    }

    /**
     * {@code burst-shared}: the same burst, each body recording into one shared recorder. A
     * warm-up round is a whole burst, repeated until the JIT has settled
     * ({@link #warmsUpUntilTheJitSettles}).
     */
    private void runShared(String subject, boolean warmUp, Results results) throws Exception {
        int timers = count;
        SplittableRandom random = new SplittableRandom(11);
        long window = TimeUnit.MILLISECONDS.toNanos(windowMs);
        long[] offsets = new long[timers];
        long lastOffset = 0;
        for (int i = 0; i < timers; i++) {
            offsets[i] = random.nextLong(window);
            lastOffset = Math.max(lastOffset, offsets[i]);
        }
        long armingNanos;
        long start;
        long opensAt;
        long gcMillis;
        long cpuNanos;
        SharedMetric metric = new SharedMetric();
        SchedulerThreads threads = new SchedulerThreads("burst");
        try (TimerSubject subjectTimers = TimerSubject.create(subject, threads)) {
            // priming, for the reason prime() gives: the same body, the same recorder
            long primeAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            for (int i = 0; i < PRIMING_TIMERS; i++) {
                long deadline = primeAt + i * PRIMING_SPACING_NANOS;
                subjectTimers.arm(new SharedRecorderProbe(deadline, metric), deadline - System.nanoTime());
            }
            Waiting.until(() -> metric.fired.sum() >= PRIMING_TIMERS, 60_000L);
            metric.reset();
            start = System.nanoTime();
            opensAt = start + TimeUnit.MILLISECONDS.toNanos(leadMs);
            for (int i = 0; i < timers; i++) {
                long deadline = opensAt + offsets[i];
                subjectTimers.arm(new SharedRecorderProbe(deadline, metric), deadline - System.nanoTime());
            }
            armingNanos = System.nanoTime() - start;
            long gcBefore = GcTime.totalMillis();
            long cpuBefore = threads.cpuNanos();
            Waiting.until(() -> metric.fired.sum() >= timers, leadMs + windowMs + 60_000L);
            cpuNanos = threads.cpuNanos() - cpuBefore;
            gcMillis = GcTime.totalMillis() - gcBefore;
        }
        if (warmUp) {
            return;
        }
        Histogram late = metric.recorder.getIntervalHistogram();
        long lastStart = metric.lastStart.get();
        long p99 = late.getValueAtPercentile(99);
        double lastLateMs = (lastStart - (opensAt + lastOffset)) / 1e6;
        if (armingNanos > opensAt - start || p99 > TARGET_P99_MICROS || lastLateMs > TARGET_LAST_LATE_MS) {
            // the round the medians hide: say which one it was, and whether its arming was late
            System.out.printf("   %s: a round past p99 %,d us or last %d ms late: arming %,.0f ms (the window opened"
                    + " at %d ms), p99 %,d us, last fired %,.1f ms after the last deadline%n", subject,
                    TARGET_P99_MICROS, TARGET_LAST_LATE_MS, armingNanos / 1e6, leadMs, p99, lastLateMs);
        }
        results.record(subject, ARM_MS, armingNanos / 1e6);
        results.record(subject, FIRED, metric.fired.sum());
        results.record(subject, LAST_FROM_START, (lastStart - start) / 1e6);
        results.record(subject, LAST_AFTER_DEADLINE, lastLateMs);
        results.record(subject, P50, late.getValueAtPercentile(50));
        results.record(subject, P99, p99);
        results.record(subject, P999, late.getValueAtPercentile(99.9));
        results.record(subject, MAX, late.getMaxValue());
        results.record(subject, EARLY, metric.early.sum());
        results.record(subject, GC_MS, gcMillis);
        results.record(subject, CPU_PER_TIMER, (double) cpuNanos / timers);
    }

    /**
     * What {@code burst-shared}'s bodies share: one recorder of lateness in microseconds (its
     * range fixed, so that no body resizes it: see {@link LatenessProbe.Sink#MAX_TRACKED_NANOS}),
     * and the counts the scenario needs besides.
     */
    private static final class SharedMetric {
        static final long MAX_TRACKED_MICROS = TimeUnit.NANOSECONDS.toMicros(LatenessProbe.Sink.MAX_TRACKED_NANOS);

        final Recorder recorder = new Recorder(MAX_TRACKED_MICROS, 3);
        final LongAdder fired = new LongAdder();
        final LongAdder early = new LongAdder();
        final LongAccumulator lastStart = new LongAccumulator(Math::max, Long.MIN_VALUE);

        /** Forgets the priming burst: call once it has all fired, before arming the measured one. */
        void reset() {
            recorder.getIntervalHistogram();
            fired.reset();
            early.reset();
            lastStart.reset();
        }
    }

    /** A body that records how late it started, in microseconds, into the shared recorder. */
    private static final class SharedRecorderProbe extends TimerSubject.Task {
        private final long deadline;
        private final SharedMetric metric;

        SharedRecorderProbe(long deadline, SharedMetric metric) {
            this.deadline = deadline;
            this.metric = metric;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            long late = now - deadline;
            if (late < 0) {
                metric.early.increment();
            } else {
                metric.recorder.recordValue(Math.min(late / 1_000, SharedMetric.MAX_TRACKED_MICROS));
            }
            metric.lastStart.accumulate(now);
            metric.fired.increment();
        }
    }
}
