package io.github.timingwheel.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link LatencyHistogram}'s buckets at their edges, its snapshot, and recording from threads. */
class LatencyHistogramTest {

    @Test
    void bucketZero_isBelowOneMicrosecond() {
        assertThat(LatencyHistogram.bucketOf(0L)).isZero();
        assertThat(LatencyHistogram.bucketOf(999L)).isZero();
        assertThat(LatencyHistogram.bucketOf(1_000L)).isEqualTo(1);
        assertThat(LatencyHistogram.lowerBoundNanos(0)).isZero();
        assertThat(LatencyHistogram.upperBoundNanos(0)).isEqualTo(1_000L);
    }

    @Test
    void negativeValues_countAsZero() {
        assertThat(LatencyHistogram.bucketOf(-1L)).isZero();
        assertThat(LatencyHistogram.bucketOf(Long.MIN_VALUE)).isZero();
        LatencyHistogram histogram = new LatencyHistogram();
        histogram.record(-5L);
        assertThat(histogram.snapshot().count(0)).isEqualTo(1L);
        assertThat(histogram.snapshot().maxNanos()).isZero();
    }

    /** Bucket i holds [2^(i-1) µs, 2^i µs): its lower edge, the value below it, the value below its upper edge. */
    @Test
    void everyFiniteBucket_startsAtAPowerOfTwoMicroseconds() {
        for (int bucket = 1; bucket < LatencyHistogram.OVERFLOW_BUCKET; bucket++) {
            long lower = 1_000L << (bucket - 1);
            long upper = 1_000L << bucket;
            assertThat(LatencyHistogram.lowerBoundNanos(bucket)).as("lower edge of %d", bucket).isEqualTo(lower);
            assertThat(LatencyHistogram.upperBoundNanos(bucket)).as("upper edge of %d", bucket).isEqualTo(upper);
            assertThat(LatencyHistogram.bucketOf(lower)).as("%d ns", lower).isEqualTo(bucket);
            assertThat(LatencyHistogram.bucketOf(lower - 1)).as("%d ns", lower - 1).isEqualTo(bucket - 1);
            assertThat(LatencyHistogram.bucketOf(upper - 1)).as("%d ns", upper - 1).isEqualTo(bucket);
            assertThat(LatencyHistogram.upperBoundNanos(bucket - 1)).isEqualTo(lower);
        }
    }

    @Test
    void readableEdges() {
        assertThat(LatencyHistogram.upperBoundNanos(1)).isEqualTo(2_000L);
        assertThat(LatencyHistogram.upperBoundNanos(10)).isEqualTo(1_024_000L);
        assertThat(LatencyHistogram.upperBoundNanos(20)).isEqualTo(1_048_576_000L);
    }

    @Test
    void theOverflowBucket_holdsEverythingFromAboutEighteenMinutes() {
        long lower = 1_000L << 30;
        assertThat(LatencyHistogram.lowerBoundNanos(LatencyHistogram.OVERFLOW_BUCKET)).isEqualTo(lower);
        assertThat(LatencyHistogram.upperBoundNanos(LatencyHistogram.OVERFLOW_BUCKET)).isEqualTo(Long.MAX_VALUE);
        assertThat(LatencyHistogram.bucketOf(lower - 1)).isEqualTo(LatencyHistogram.OVERFLOW_BUCKET - 1);
        assertThat(LatencyHistogram.bucketOf(lower)).isEqualTo(LatencyHistogram.OVERFLOW_BUCKET);
        assertThat(LatencyHistogram.bucketOf(Long.MAX_VALUE)).isEqualTo(LatencyHistogram.OVERFLOW_BUCKET);
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, LatencyHistogram.BUCKETS, Integer.MIN_VALUE})
    void bucketsOutOfRange_areRejectedByName(int bucket) {
        assertThatThrownBy(() -> LatencyHistogram.lowerBoundNanos(bucket))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bucket");
        assertThatThrownBy(() -> LatencyHistogram.upperBoundNanos(bucket))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bucket");
        assertThatThrownBy(() -> new LatencyHistogram().snapshot().count(bucket))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bucket");
    }

    @Test
    void snapshot_countsEachValueInItsBucket_andKeepsTheExactMaximum() {
        LatencyHistogram histogram = new LatencyHistogram();
        long[] values = {0L, 999L, 1_000L, 1_999L, 2_000L, 3_999L, 4_000L, 1_500_000L, 7L << 40};
        for (long value : values) {
            histogram.record(value);
        }

        LatencyDistribution snapshot = histogram.snapshot();

        assertThat(snapshot.totalCount()).isEqualTo(values.length);
        assertThat(snapshot.count(0)).isEqualTo(2L);
        assertThat(snapshot.count(1)).isEqualTo(2L);
        assertThat(snapshot.count(2)).isEqualTo(2L);
        assertThat(snapshot.count(3)).isEqualTo(1L);
        assertThat(snapshot.count(11)).as("1.5 ms in [1.024, 2.048) ms").isEqualTo(1L);
        assertThat(snapshot.count(LatencyHistogram.OVERFLOW_BUCKET)).isEqualTo(1L);
        assertThat(snapshot.maxNanos()).isEqualTo(7L << 40);
        histogram.record(1L);
        assertThat(snapshot.totalCount()).as("a snapshot does not change").isEqualTo(values.length);
    }

    @Test
    void percentiles_areTheUpperEdgeOfTheirBucket_cappedAtTheMaximum() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (int i = 0; i < 98; i++) {
            histogram.record(500L); // bucket 0
        }
        histogram.record(1_500L); // bucket 1: [1, 2) µs
        histogram.record(3_000_000L); // bucket 12: [2.048, 4.096) ms

        LatencyDistribution snapshot = histogram.snapshot();

        assertThat(snapshot.percentileNanos(50.0)).isEqualTo(1_000L);
        assertThat(snapshot.percentileNanos(98.0)).isEqualTo(1_000L);
        assertThat(snapshot.percentileNanos(99.0)).isEqualTo(2_000L);
        assertThat(snapshot.percentileNanos(99.5)).as("capped at the max").isEqualTo(3_000_000L);
        assertThat(snapshot.percentileNanos(100.0)).isEqualTo(3_000_000L);
        assertThat(snapshot).hasToString("n=100 p50<=1us p99<=2us max=3ms");
    }

    @Test
    void percentileInTheOverflowBucket_isTheMaximum() {
        LatencyHistogram histogram = new LatencyHistogram();
        histogram.record(Long.MAX_VALUE);
        assertThat(histogram.snapshot().percentileNanos(50.0)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void emptySnapshot() {
        LatencyDistribution empty = new LatencyHistogram().snapshot();
        assertThat(empty.totalCount()).isZero();
        assertThat(empty.percentileNanos(99.0)).isZero();
        assertThat(empty).hasToString("n=0");
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.0, -1.0, 100.000001, Double.NaN, Double.POSITIVE_INFINITY})
    void percentilesOutOfRange_areRejectedByName(double percentile) {
        LatencyDistribution snapshot = new LatencyHistogram().snapshot();
        assertThatThrownBy(() -> snapshot.percentileNanos(percentile))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("percentile");
    }

    @Test
    void format_usesTheLargestUnitWithThreeDigits() {
        assertThat(LatencyDistribution.format(0L)).isEqualTo("0ns");
        assertThat(LatencyDistribution.format(999L)).isEqualTo("999ns");
        assertThat(LatencyDistribution.format(1_000L)).isEqualTo("1us");
        assertThat(LatencyDistribution.format(1_024_000L)).isEqualTo("1.02ms");
        assertThat(LatencyDistribution.format(2_048_000L)).isEqualTo("2.05ms");
        assertThat(LatencyDistribution.format(999_999_999L)).isEqualTo("1000ms");
        assertThat(LatencyDistribution.format(1_073_741_824_000L)).isEqualTo("1070s");
    }

    @Test
    void recordingFromManyThreads_losesNoValue() throws InterruptedException {
        LatencyHistogram histogram = new LatencyHistogram();
        int threads = 4;
        int perThread = 50_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> recorders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long value = 1_000L << t; // thread t fills bucket t + 1
            Thread recorder = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    histogram.record(value);
                }
            });
            recorder.start();
            recorders.add(recorder);
        }
        start.countDown();
        for (Thread recorder : recorders) {
            recorder.join();
        }

        LatencyDistribution snapshot = histogram.snapshot();
        assertThat(snapshot.totalCount()).isEqualTo((long) threads * perThread);
        for (int t = 0; t < threads; t++) {
            assertThat(snapshot.count(t + 1)).isEqualTo(perThread);
        }
        assertThat(snapshot.maxNanos()).isEqualTo(1_000L << (threads - 1));
    }

    @Test
    void distributionOf_countsKeptElsewhere_isTheSameAsASnapshotOfThem() {
        LatencyHistogram histogram = new LatencyHistogram();
        long[] counts = new long[LatencyHistogram.BUCKETS];
        for (long value : new long[] {0L, 999L, 1_500L, 3_000_000L, 3_000_000L}) {
            histogram.record(value);
            counts[LatencyHistogram.bucketOf(value)]++;
        }
        LatencyDistribution kept = LatencyDistribution.of(counts, 3_000_000L);
        counts[0] = 1_000; // copied: a later change does not show
        LatencyDistribution snapshot = histogram.snapshot();
        for (int bucket = 0; bucket < LatencyHistogram.BUCKETS; bucket++) {
            assertThat(kept.count(bucket)).as("bucket %d", bucket).isEqualTo(snapshot.count(bucket));
        }
        assertThat(kept.totalCount()).isEqualTo(5);
        assertThat(kept.maxNanos()).isEqualTo(snapshot.maxNanos());
        assertThat(kept.count(0)).isEqualTo(2);
    }

    @Test
    void distributionOf_badCounts_areRefusedNamingTheArgument() {
        assertThatThrownBy(() -> LatencyDistribution.of(new long[3], 0L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("counts");
        long[] negative = new long[LatencyHistogram.BUCKETS];
        negative[4] = -1;
        assertThatThrownBy(() -> LatencyDistribution.of(negative, 0L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("counts");
        assertThatThrownBy(() -> LatencyDistribution.of(new long[LatencyHistogram.BUCKETS], -1L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxNanos");
        assertThatThrownBy(() -> LatencyDistribution.of(null, 0L)).isInstanceOf(NullPointerException.class);
    }
}
