package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
        private final List<Histogram> histograms = new CopyOnWriteArrayList<>();
        private final ThreadLocal<Histogram> mine = ThreadLocal.withInitial(this::register);
        final LongAdder early = new LongAdder();
        final LongAdder fired = new LongAdder();
        /**
         * The latest start seen, in System.nanoTime(): an accumulator, so that a worker
         * preempted between its clock read and its write cannot lower it.
         */
        final LongAccumulator lastStart = new LongAccumulator(Math::max, Long.MIN_VALUE);

        private Histogram register() {
            Histogram histogram = new Histogram(3);
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
            sink.mine.get().recordValue(late);
        }
        sink.lastStart.accumulate(now); // Math.max on nanoTime: no run spans a wrap of the clock
        sink.fired.increment();
    }
}
