package io.github.timingwheel.core;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Arrays;

/**
 * What a {@link LatencyHistogram} had counted when its {@link LatencyHistogram#snapshot()} was
 * taken: a count per bucket and the largest value. Immutable.
 *
 * <p>Percentiles come from the buckets, so they are upper bounds: {@link #percentileNanos}
 * returns the upper edge of the bucket that holds the percentile, or the exact maximum if that
 * is smaller. With log2 buckets the true value is at least half of it (or below 1 µs).
 */
public final class LatencyDistribution {

    private static final MathContext THREE_DIGITS = new MathContext(3);

    private final long[] counts;
    private final long maxNanos;
    private final long totalCount;

    LatencyDistribution(long[] counts, long maxNanos) {
        this.counts = counts;
        this.maxNanos = maxNanos;
        this.totalCount = Arrays.stream(counts).sum();
    }

    /**
     * A distribution of counts kept elsewhere in {@link LatencyHistogram}'s buckets: for a
     * recorder that keeps them its own way (per thread, say) and reports them in this form.
     *
     * @param counts a count per bucket, {@link LatencyHistogram#BUCKETS} of them; copied
     * @param maxNanos the largest value counted, 0 if none
     * @throws NullPointerException if {@code counts} is null
     * @throws IllegalArgumentException if {@code counts} has the wrong length or a negative
     *     count, or {@code maxNanos} is negative
     */
    public static LatencyDistribution of(long[] counts, long maxNanos) {
        if (counts.length != LatencyHistogram.BUCKETS) {
            throw new IllegalArgumentException("counts must have " + LatencyHistogram.BUCKETS
                    + " buckets: " + counts.length);
        }
        for (long count : counts) {
            if (count < 0) {
                throw new IllegalArgumentException("counts must not be negative: " + Arrays.toString(counts));
            }
        }
        if (maxNanos < 0) {
            throw new IllegalArgumentException("maxNanos must not be negative: " + maxNanos);
        }
        return new LatencyDistribution(counts.clone(), maxNanos);
    }

    /** The number of values counted. */
    public long totalCount() {
        return totalCount;
    }

    /**
     * The number of values in bucket {@code bucket}; its edges are
     * {@link LatencyHistogram#lowerBoundNanos} and {@link LatencyHistogram#upperBoundNanos}.
     *
     * @throws IllegalArgumentException if {@code bucket} is not in {@code [0, BUCKETS)}
     */
    public long count(int bucket) {
        LatencyHistogram.checkBucket(bucket);
        return counts[bucket];
    }

    /** The largest value counted, exact, in nanoseconds; 0 if none. */
    public long maxNanos() {
        return maxNanos;
    }

    /**
     * An upper bound of the {@code percentile}-th percentile, in nanoseconds: the upper edge of
     * the bucket where it falls, or the maximum if smaller; 0 if nothing was counted.
     *
     * @param percentile in {@code (0, 100]}, for example 50 or 99.9
     * @throws IllegalArgumentException if {@code percentile} is out of range or NaN
     */
    public long percentileNanos(double percentile) {
        if (!(percentile > 0.0 && percentile <= 100.0)) {
            throw new IllegalArgumentException("percentile must be in (0, 100]: " + percentile);
        }
        if (totalCount == 0L) {
            return 0L;
        }
        long rank = Math.max(1L, (long) Math.ceil(percentile / 100.0 * totalCount));
        long seen = 0L;
        int bucket = 0;
        while (bucket < LatencyHistogram.OVERFLOW_BUCKET && (seen += counts[bucket]) < rank) {
            bucket++;
        }
        return Math.min(LatencyHistogram.upperBoundNanos(bucket), maxNanos);
    }

    /** For example {@code n=120 p50<=2us p99<=1.02ms max=1.5ms}; bounds as {@link #percentileNanos}. */
    @Override
    public String toString() {
        if (totalCount == 0L) {
            return "n=0";
        }
        return "n=" + totalCount
                + " p50<=" + format(percentileNanos(50.0))
                + " p99<=" + format(percentileNanos(99.0))
                + " max=" + format(maxNanos);
    }

    /** A duration in the largest unit that keeps it at 1 or more, to three significant digits. */
    static String format(long nanos) {
        if (nanos < 1_000L) {
            return nanos + "ns";
        }
        if (nanos < 1_000_000L) {
            return threeDigits(nanos, 1_000L) + "us";
        }
        if (nanos < 1_000_000_000L) {
            return threeDigits(nanos, 1_000_000L) + "ms";
        }
        return threeDigits(nanos, 1_000_000_000L) + "s";
    }

    private static String threeDigits(long nanos, long unit) {
        return BigDecimal.valueOf(nanos).divide(BigDecimal.valueOf(unit), THREE_DIGITS)
                .stripTrailingZeros().toPlainString();
    }
}
