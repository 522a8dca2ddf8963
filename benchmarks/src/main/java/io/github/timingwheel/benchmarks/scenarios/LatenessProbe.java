package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * A timer that knows its own deadline ({@code System.nanoTime()} terms) and records how late it
 * started; a start before the deadline counts as early. Recording is thread-safe, so any worker
 * of any subject may run it.
 */
final class LatenessProbe extends TimerSubject.Task {

    /** What a set of probes shares: the histogram of lateness, and counts. */
    static final class Sink {
        final Recorder lateness = new Recorder(3);
        final LongAdder early = new LongAdder();
        final LongAdder fired = new LongAdder();
        /**
         * The latest start seen, in System.nanoTime(): an accumulator, so that a worker
         * preempted between its clock read and its write cannot lower it.
         */
        final LongAccumulator lastStart = new LongAccumulator(Math::max, Long.MIN_VALUE);
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
            sink.lateness.recordValue(late);
        }
        sink.lastStart.accumulate(now); // Math.max on nanoTime: no run spans a wrap of the clock
        sink.fired.increment();
    }
}
