package io.github.timingwheel.core;

import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts latencies (for example how late a task started) in a fixed set of log-scale buckets,
 * from any number of threads at once and without locks, cheaply enough to leave on.
 *
 * <p>Buckets, with edges in whole microseconds so that they read well:
 * <pre>
 *   bucket 0        [0, 1 µs)                    on time
 *   bucket i, 1..30 [2^(i-1) µs, 2^i µs)         1-2 µs, 2-4 µs, ... 512-1024 µs, ... 0.54-1.07 s, ...
 *   bucket 31       [2^30 µs, infinity)          about 17.9 minutes or more
 * </pre>
 * Besides the buckets it keeps the exact largest value. A {@link #snapshot()} estimates
 * percentiles from the buckets: to within a factor of two, which is what a log line needs.
 *
 * <p>Caveats:
 * <ul>
 *   <li>A snapshot taken while values are recorded reads the buckets one after another, not at
 *       one instant: it may count a value in its bucket and not yet in the maximum, or the
 *       reverse. Each bucket count is exact once recording stops.
 *   <li>Negative values count as 0: the schedulers of this project never start a task early,
 *       and a recorder on the hot path does not throw.
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class LatencyHistogram {

    /*
     * Implementation notes
     *
     * [1] The bucket of a value is 64 - numberOfLeadingZeros(value / 1000): a division by a
     *     constant (a multiply once compiled) and one bit count; no loop, no table.
     * [2] Counts live in one LongAdder per bucket. Values of one workload mostly fall in one
     *     or two buckets, so with a single counter per bucket every worker of an executor would
     *     write the same cache line for every task it runs, which is what a burst of due tasks
     *     makes workers do a million times a second. A LongAdder stays one field until threads
     *     contend on it, so an idle or single-threaded histogram costs 32 small objects.
     * [3] 'max' is a LongAccumulator of Math::max: it writes only when a value exceeds what its
     *     cell holds, so once the maximum settles a record is a plain read of it; and when
     *     tasks fall behind, lateness grows with every run and each record raises the maximum,
     *     which the accumulator's cells absorb instead of one contended CAS per run.
     */

    /** The number of buckets, the overflow bucket included. */
    public static final int BUCKETS = 32;
    /** The index of the last bucket, which holds every value from its lower bound up. */
    public static final int OVERFLOW_BUCKET = BUCKETS - 1;
    private static final long NANOS_PER_MICRO = 1_000L;

    /** Counts per bucket; incremented by recorders, read by snapshots ([2]). */
    private final LongAdder[] counts = new LongAdder[BUCKETS];
    /** The largest value recorded, 0 before any; only raised ([3]). */
    private final LongAccumulator max = new LongAccumulator(Math::max, 0L);

    /** Creates an empty histogram. */
    public LatencyHistogram() {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] = new LongAdder();
        }
    }

    /** Counts one value, in nanoseconds; negative values count as 0. */
    public void record(long nanos) {
        long value = Math.max(0L, nanos);
        counts[bucketOf(value)].increment();
        max.accumulate(value);
    }

    /**
     * The bucket that counts {@code nanos} ([1]); negative values go to bucket 0. Without a
     * branch: workers call it on every run, and a test for values under a microsecond, never
     * true while the JIT profiled a busy worker, became an uncommon trap whose first hit threw
     * away the worker's compiled run path in the middle of a burst.
     */
    public static int bucketOf(long nanos) {
        long micros = Math.max(0L, nanos) / NANOS_PER_MICRO;
        return Math.min(OVERFLOW_BUCKET, Long.SIZE - Long.numberOfLeadingZeros(micros)); // 0 for 0
    }

    /**
     * The smallest value, in nanoseconds, that bucket {@code bucket} counts.
     *
     * @throws IllegalArgumentException if {@code bucket} is not in {@code [0, BUCKETS)}
     */
    public static long lowerBoundNanos(int bucket) {
        checkBucket(bucket);
        return bucket == 0 ? 0L : NANOS_PER_MICRO << (bucket - 1);
    }

    /**
     * The bound, in nanoseconds, that values of bucket {@code bucket} stay below (exclusive);
     * {@link Long#MAX_VALUE} for the overflow bucket.
     *
     * @throws IllegalArgumentException if {@code bucket} is not in {@code [0, BUCKETS)}
     */
    public static long upperBoundNanos(int bucket) {
        checkBucket(bucket);
        return bucket == OVERFLOW_BUCKET ? Long.MAX_VALUE : NANOS_PER_MICRO << bucket;
    }

    static void checkBucket(int bucket) {
        if (bucket < 0 || bucket >= BUCKETS) {
            throw new IllegalArgumentException("bucket must be in [0, " + BUCKETS + "): " + bucket);
        }
    }

    /** The counts so far, as an immutable value; see the caveats on concurrent recording. */
    public LatencyDistribution snapshot() {
        long[] copy = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            copy[i] = counts[i].sum();
        }
        return new LatencyDistribution(copy, max.get());
    }

    @Override
    public String toString() {
        return snapshot().toString();
    }
}
