package io.github.timingwheel.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link TickDivisor} against the division it replaces. */
class TickDivisorTest {

    private static final long[] DIVISORS = {1L, 2L, 3L, 7L, 10L, 1_000L, 1_000_000L, 1_048_576L,
            999_999_937L, 1_000_000_000L, 3_600_000_000_000L, (1L << 62) + 1, Long.MAX_VALUE};

    @Test
    void dividesExactlyAtTheEdges() {
        for (long d : DIVISORS) {
            TickDivisor divisor = new TickDivisor(d);
            for (long x : edgesFor(d)) {
                assertThat(divisor.divide(x)).as("%d / %d", x, d).isEqualTo(x / d);
            }
        }
    }

    @Test
    void dividesExactlyAtRandom() {
        SplittableRandom random = new SplittableRandom(20261124L);
        for (int i = 0; i < 2_000; i++) {
            long d = i < DIVISORS.length ? DIVISORS[i] : 1L + random.nextLong(Long.MAX_VALUE >>> random.nextInt(63));
            TickDivisor divisor = new TickDivisor(d);
            for (int j = 0; j < 500; j++) {
                long x = random.nextLong(Long.MAX_VALUE >>> random.nextInt(63)) + (j == 0 ? 0 : 1);
                assertThat(divisor.divide(x)).as("%d / %d", x, d).isEqualTo(x / d);
            }
        }
    }

    @Test
    void refusesANonPositiveDivisor() {
        assertThatThrownBy(() -> new TickDivisor(0L)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("divisor");
    }

    /** Multiples of d, one either side of them, and the ends of the range. */
    private static long[] edgesFor(long d) {
        long[] edges = new long[64];
        int n = 0;
        edges[n++] = 0L;
        edges[n++] = Long.MAX_VALUE;
        edges[n++] = Long.MAX_VALUE - 1;
        for (long k : new long[] {1L, 2L, 3L, 1_000L, Long.MAX_VALUE / d, Long.MAX_VALUE / d - 1}) {
            if (k <= 0 || k > Long.MAX_VALUE / d) {
                continue;
            }
            long multiple = k * d;
            edges[n++] = multiple;
            edges[n++] = multiple - 1;
            if (multiple < Long.MAX_VALUE) {
                edges[n++] = multiple + 1;
            }
        }
        return java.util.Arrays.copyOf(edges, n);
    }
}
