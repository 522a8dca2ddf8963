package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.Summary;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * What the lateness scenario can measure on this host at best: its stream of 100,000 deadlines
 * a second met by a timer with no work of its own, one thread that parks until each deadline
 * in turn ({@code LockSupport.parkNanos}, as every subject's workers do) and records how late
 * it woke, beside a producer that paces itself as the scenario's does (parking while more than
 * 20 µs ahead) and allocates a little per deadline. What this thread sees late, a scheduler's
 * worker would see at least as late: the park's overshoot, the producer taking the core, and
 * whatever else the machine runs. Each round prints p50, p99, p99.9 and the maximum; the
 * medians over the rounds come last. With {@code alone}, no producer runs.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar \
 *     io.github.timingwheel.benchmarks.scenarios.LatenessFloor 5 5
 * </pre>
 */
public final class LatenessFloor {

    private static final int RATE = 100_000;
    /** The first deadline lies this far after the round's start, as the shortest delay does. */
    private static final long FIRST_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private LatenessFloor() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || args.length > 3 || (args.length == 3 && !args[2].equals("alone"))) {
            System.err.println("usage: LatenessFloor <seconds> <rounds> [alone]");
            System.exit(2);
        }
        int seconds = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        boolean withProducer = args.length == 2;
        List<long[]> results = new ArrayList<>();
        round(1, withProducer); // warm-up, not counted
        for (int round = 1; round <= rounds; round++) {
            long[] percentiles = round(seconds, withProducer);
            results.add(percentiles);
            System.out.printf("round %d%s: p50 %,d  p99 %,d  p99.9 %,d  max %,d µs%n", round,
                    withProducer ? " (with a producer)" : " (alone)",
                    percentiles[0], percentiles[1], percentiles[2], percentiles[3]);
        }
        String[] names = {"p50", "p99", "p99.9", "max"};
        StringBuilder medians = new StringBuilder("median of " + rounds + " rounds:");
        for (int i = 0; i < names.length; i++) {
            int column = i;
            medians.append("  ").append(names[i]).append(' ').append(Summary.withRange(
                    results.stream().mapToDouble(r -> r[column]).sorted().toArray(), "%,.0f"));
        }
        System.out.println(medians.append(" µs"));
    }

    /** One round: p50, p99, p99.9 and the maximum of how late the deadlines were met, in µs. */
    private static long[] round(int seconds, boolean withProducer) throws InterruptedException {
        long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
        long count = (long) RATE * seconds;
        long start = System.nanoTime();
        Thread producer = null;
        if (withProducer) {
            producer = new Thread(() -> pace(start, interval, count), "floor-producer");
            producer.start();
        }
        Histogram late = new Histogram(TimeUnit.MINUTES.toNanos(1), 3);
        for (long i = 0; i < count; i++) {
            long deadline = start + FIRST_DELAY_NANOS + i * interval;
            for (long now; (now = System.nanoTime()) - deadline < 0; ) {
                LockSupport.parkNanos(deadline - now);
            }
            late.recordValue(Math.min(late.getHighestTrackableValue(), System.nanoTime() - deadline));
        }
        if (producer != null) {
            producer.join();
        }
        return new long[] {
            late.getValueAtPercentile(50) / 1_000, late.getValueAtPercentile(99) / 1_000,
            late.getValueAtPercentile(99.9) / 1_000, late.getMaxValue() / 1_000,
        };
    }

    /** The scenario's producer without a scheduler: its pacing, and an allocation per deadline. */
    private static void pace(long start, long interval, long count) {
        long[][] recent = new long[1_024][];
        for (long i = 0; i < count; i++) {
            long wait = start + i * interval - System.nanoTime();
            if (wait > Lateness.PACING_SLACK_NANOS) {
                LockSupport.parkNanos(wait);
            }
            recent[(int) (i & 1_023)] = new long[4]; // about a probe's size, kept a while
        }
    }
}
