package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Does schedule+cancel get dearer as more timers are pending? For each count, the subject is
 * first filled with that many timers 1 to 60 minutes out; then one thread cancels the oldest of
 * a ring of 1,024 timers and arms a new one (10 to 30 s out), for {@code seconds} after as long
 * again of warm-up. Reports ns per pair, and its ratio to the smallest count's in the same round.
 */
final class Scale implements Scenario {

    static final Column NANOS = Column.lower("ns/pair", 1);
    static final Column RATIO = Column.lower("x smallest", 2);
    private static final int RING = 1024;

    private final int[] counts;
    private final int seconds;

    Scale(int seconds, int... counts) {
        this.seconds = seconds;
        this.counts = counts.clone();
    }

    @Override
    public String name() {
        return "scale";
    }

    @Override
    public String description() {
        return String.format("schedule+cancel pairs from one thread with %s timers pending; %d s each",
                Sizes.list(counts), seconds);
    }

    @Override
    public List<Column> columns() {
        return List.of(NANOS, RATIO);
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        double smallest = Double.NaN;
        for (int count : warmUp ? new int[] {counts[0]} : counts) {
            double nanos = nanosPerPair(subject, count, warmUp ? 1 : seconds);
            if (Double.isNaN(smallest)) {
                smallest = nanos;
            }
            if (!warmUp) {
                String row = subject + " @ " + Sizes.shortCount(count);
                results.record(row, NANOS, nanos);
                results.record(row, RATIO, nanos / smallest);
            }
        }
    }

    private static double nanosPerPair(String subject, int count, int seconds) throws Exception {
        long[] fillDelays = Pending.delays(count);
        Object[] fill = new Object[count];
        try (TimerSubject timers = TimerSubject.create(subject)) {
            for (int i = 0; i < count; i++) {
                fill[i] = timers.arm(TimerSubject.NOOP, fillDelays[i]);
            }
            Sizes.settle(subject, count);
            SplittableRandom random = new SplittableRandom(3);
            long[] delays = new long[1 << 16];
            for (int i = 0; i < delays.length; i++) {
                delays[i] = random.nextLong(TimeUnit.SECONDS.toNanos(10), TimeUnit.SECONDS.toNanos(30));
            }
            Object[] ring = new Object[RING];
            for (int i = 0; i < RING; i++) {
                ring[i] = timers.arm(TimerSubject.NOOP, delays[i]);
            }
            long span = TimeUnit.SECONDS.toNanos(seconds);
            churn(timers, ring, delays, span); // warm-up
            double nanosPerPair = churn(timers, ring, delays, span);
            for (Object handle : fill) {
                timers.cancel(handle);
            }
            return nanosPerPair;
        }
    }

    /**
     * Cancels the oldest and arms a new timer, in blocks of 256, until {@code nanos} passed;
     * returns the time per pair.
     */
    private static double churn(TimerSubject timers, Object[] ring, long[] delays, long nanos) {
        long pairs = 0;
        int slot = 0;
        long start = System.nanoTime();
        long now;
        while ((now = System.nanoTime()) - start < nanos) {
            for (int i = 0; i < 256; i++) {
                timers.cancel(ring[slot]);
                ring[slot] = timers.arm(TimerSubject.NOOP, delays[(int) (pairs + i) & (delays.length - 1)]);
                slot = (slot + 1) & (RING - 1);
            }
            pairs += 256;
        }
        return (double) (now - start) / pairs;
    }
}
