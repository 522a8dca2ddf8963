package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * A timer that knows its own deadline ({@code System.nanoTime()} terms) and records how late it
 * started; a start before the deadline counts as early. Recording is thread-safe, so any worker
 * of any subject may run it.
 */
final class LatenessProbe extends TimerSubject.Task {

    /**
     * What a set of probes shares: the histograms of lateness, and counts. Each thread that
     * runs probes records into a histogram of its own: a Recorder shared by every worker costs
     * each record two atomic increments on one shared cache line, which a burst on two workers
     * made a contended line per firing, so the measurement slowed the subjects with more than
     * one worker more than the others.
     */
    static final class Sink {
        /**
         * The range of each thread's histogram, fixed rather than growing: a histogram that
         * resizes takes that branch inside the subject's firing path the first time a round's
         * lateness passes its range, one more first-use branch of the kind Burst.prime is
         * there for. Later starts are recorded as this.
         */
        static final long MAX_TRACKED_NANOS = TimeUnit.MINUTES.toNanos(10);

        private final List<Histogram> histograms = new CopyOnWriteArrayList<>();
        private final ThreadLocal<Histogram> mine = ThreadLocal.withInitial(this::register);
        /**
         * Where slices of deadlines start (set by {@link #reset}, before the probes it counts
         * are armed), their width and count; 0 slices: none kept.
         */
        private long slicesFrom;
        private final long sliceNanos;
        private final int slices;
        /** Each thread's latest start per slice of deadlines ([slice]), as its histogram is its own. */
        private final List<long[]> sliceMaxima = new CopyOnWriteArrayList<>();
        private final ThreadLocal<long[]> mySliceMaxima = ThreadLocal.withInitial(this::registerSlices);
        final LongAdder early = new LongAdder();
        final LongAdder fired = new LongAdder();
        /**
         * The latest start seen, in System.nanoTime(): an accumulator, so that a worker
         * preempted between its clock read and its write cannot lower it.
         */
        final LongAccumulator lastStart = new LongAccumulator(Math::max, Long.MIN_VALUE);

        /** A sink that keeps lateness only as a whole. */
        Sink() {
            this(1L, 0);
        }

        /**
         * A sink that also keeps, for each of {@code slices} slices of {@code sliceNanos} of
         * deadlines from the time {@link #reset} gives (System.nanoTime() terms), how late the
         * latest of them started: where in a window a subject fell behind (deadlines outside go
         * to the first or the last slice).
         */
        Sink(long sliceNanos, int slices) {
            this.sliceNanos = sliceNanos;
            this.slices = slices;
        }

        /**
         * Forgets everything recorded so far and starts the slices at {@code from}, keeping each
         * thread's histogram and slices: call it once the probes fired so far have all been
         * counted and before arming the ones to measure, which then publishes it to the threads
         * that run them.
         */
        void reset(long from) {
            for (Histogram histogram : histograms) {
                histogram.reset();
            }
            for (long[] maxima : sliceMaxima) {
                Arrays.fill(maxima, 0L);
            }
            early.reset();
            fired.reset();
            lastStart.reset();
            slicesFrom = from;
        }

        private long[] registerSlices() {
            long[] maxima = new long[slices];
            sliceMaxima.add(maxima);
            return maxima;
        }

        void record(long deadline, long late) {
            mine.get().recordValue(Math.min(late, MAX_TRACKED_NANOS));
            if (slices > 0) {
                int slice = (int) Math.min(slices - 1, Math.max(0L, (deadline - slicesFrom) / sliceNanos));
                long[] maxima = mySliceMaxima.get();
                maxima[slice] = Math.max(maxima[slice], late);
            }
        }

        /**
         * The latest start against its deadline in each slice, over every thread: read it, as
         * {@link #lateness()}, once every probe has fired.
         */
        long[] sliceMaxima() {
            long[] all = new long[slices];
            for (long[] maxima : sliceMaxima) {
                for (int i = 0; i < slices; i++) {
                    all[i] = Math.max(all[i], maxima[i]);
                }
            }
            return all;
        }

        private Histogram register() {
            Histogram histogram = new Histogram(MAX_TRACKED_NANOS, 3);
            histograms.add(histogram);
            return histogram;
        }

        /**
         * Every lateness recorded by the probes counted in {@link #fired} so far: read it once
         * they have all fired (a probe records before it counts itself fired, and the count is
         * read with volatile reads, so its record is seen).
         */
        Histogram lateness() {
            Histogram all = new Histogram(3);
            for (Histogram histogram : histograms) {
                all.add(histogram);
            }
            return all;
        }
    }

    private final long deadline;
    private final Sink sink;

    /** Arms a probe for {@code deadline} (System.nanoTime() terms) on {@code timers}. */
    static void armFor(TimerSubject timers, long deadline, Sink sink) {
        timers.arm(new LatenessProbe(deadline, sink), deadline - System.nanoTime());
    }

    LatenessProbe(long deadline, Sink sink) {
        this.deadline = deadline;
        this.sink = sink;
    }

    @Override
    public void run() {
        long now = System.nanoTime();
        long late = now - deadline;
        if (late < 0) {
            sink.early.increment();
        } else {
            sink.record(deadline, late);
        }
        sink.lastStart.accumulate(now); // Math.max on nanoTime: no run spans a wrap of the clock
        sink.fired.increment();
    }
}
