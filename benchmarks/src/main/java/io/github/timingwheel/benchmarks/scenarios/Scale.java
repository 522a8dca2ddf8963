package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.Summary;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Does schedule+cancel get dearer as more timers are pending? For each count, the subject is
 * first filled with that many timers 1 to 60 minutes out (and the fill absorbed: a zero-delay
 * marker has fired); then one thread cancels the oldest of a ring of 1,024 timers and arms a new
 * one (10 to 30 s out), in fixed blocks of {@code pairsPerBlock} pairs: one unrecorded warm-up
 * block, then {@code blocks} measured ones. The work per pair is the same at every count (the
 * same ring, the same delays); only the number pending differs.
 *
 * <p>Each block is timed until a zero-delay marker armed after its last pair has fired
 * ({@link Absorption}), so a subject that queues the work is timed until it did it. Each block
 * is one value of its row ({@code ns/pair}: median of all blocks of all rounds, and their
 * spread); {@code x smallest} is, per round, the median block at this count over the median
 * block at the smallest count, so the ratio compares one subject instance's blocks with another's
 * made in the same round.
 */
final class Scale implements Scenario {

    static final Column NANOS = Column.lower("ns/pair", 1);
    static final Column RATIO = Column.lower("x smallest", 2);
    private static final int RING = 1024;

    private final int blocks;
    private final int pairsPerBlock;
    private final int[] counts;

    Scale(int blocks, int pairsPerBlock, int... counts) {
        this.blocks = blocks;
        this.pairsPerBlock = pairsPerBlock;
        this.counts = counts.clone();
    }

    @Override
    public String name() {
        return "scale";
    }

    @Override
    public String description() {
        return String.format("schedule+cancel pairs from one thread with %s timers pending; %d blocks of %s pairs"
                + " each (after one warm-up block), each timed until a marker fired", Sizes.list(counts), blocks,
                Sizes.shortCount(pairsPerBlock));
    }

    @Override
    public List<Column> columns() {
        return List.of(NANOS, RATIO);
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        double smallest = Double.NaN;
        for (int count : warmUp ? new int[] {counts[0]} : counts) {
            double[] nanos = nanosPerPair(subject, count, warmUp ? 1 : blocks);
            double median = Summary.median(nanos);
            if (Double.isNaN(smallest)) {
                smallest = median;
            }
            if (!warmUp) {
                String row = subject + " @ " + Sizes.shortCount(count);
                for (double block : nanos) {
                    results.record(row, NANOS, block);
                }
                results.record(row, RATIO, median / smallest);
            }
        }
    }

    /** Fills the subject with {@code count} timers, then returns the ns per pair of each block, sorted. */
    private double[] nanosPerPair(String subject, int count, int measured) throws Exception {
        long[] fillDelays = Pending.delays(count);
        Object[] fill = new Object[count];
        try (TimerSubject timers = TimerSubject.create(subject)) {
            Absorption filled = new Absorption(1);
            for (int i = 0; i < count; i++) {
                fill[i] = timers.arm(TimerSubject.NOOP, fillDelays[i]);
            }
            filled.arm(timers);
            filled.awaitFired(300);
            SplittableRandom random = new SplittableRandom(3);
            long[] delays = new long[1 << 16];
            for (int i = 0; i < delays.length; i++) {
                delays[i] = random.nextLong(TimeUnit.SECONDS.toNanos(10), TimeUnit.SECONDS.toNanos(30));
            }
            Object[] ring = new Object[RING];
            for (int i = 0; i < RING; i++) {
                ring[i] = timers.arm(TimerSubject.NOOP, delays[i]);
            }
            block(timers, ring, delays); // warm-up
            double[] nanos = new double[measured];
            for (int b = 0; b < measured; b++) {
                nanos[b] = block(timers, ring, delays);
            }
            for (Object handle : fill) {
                timers.cancel(handle);
            }
            Arrays.sort(nanos);
            return nanos;
        }
    }

    /**
     * Cancels the oldest and arms a new timer, {@code pairsPerBlock} times, then waits for a
     * zero-delay marker; returns the time per pair from the first pair to the marker's run.
     */
    private double block(TimerSubject timers, Object[] ring, long[] delays) throws InterruptedException {
        Absorption absorbed = new Absorption(1);
        int slot = 0;
        long start = System.nanoTime();
        for (int i = 0; i < pairsPerBlock; i++) {
            timers.cancel(ring[slot]);
            ring[slot] = timers.arm(TimerSubject.NOOP, delays[i & (delays.length - 1)]);
            slot = (slot + 1) & (RING - 1);
        }
        absorbed.arm(timers);
        return (double) (absorbed.awaitFired(300) - start) / pairsPerBlock;
    }
}
