package io.github.timingwheel.core;

import java.math.BigInteger;

/**
 * Exact {@code x / divisor} for non-negative longs by a multiply and a shift, for the wheel's
 * tick: a 64-bit division costs tens of cycles, and a cascade divides once per node it moves.
 */
final class TickDivisor {

    /*
     * Implementation notes
     *
     * [1] Granlund and Montgomery, "Division by invariant integers using multiplication"
     *     (PLDI 1994). For a divisor d that is not a power of two, with s its bit length
     *     (2^(s-1) < d < 2^s, so s >= 2), take m = ceil(2^(62+s) / d), which is below 2^63.
     *     For 0 <= x < 2^63, q = floor(x * m / 2^(62+s)) is the high 64 bits of x * m shifted
     *     right by s - 2. x * m / 2^(62+s) = x / d + x * (m - 2^(62+s) / d) / 2^(62+s), and the
     *     second term lies in [0, 2^(1-s)), below 1/2, so q is floor(x / d) or one more; one
     *     multiply and a compare put it right. x - q * d lies in (-d, d), so it does not
     *     overflow.
     * [2] A power of two is a shift.
     */

    private final long divisor;
    /** m of [1], or 0 for a power of two. */
    private final long multiplier;
    /** s - 2 of [1], or log2(divisor) for a power of two. */
    private final int shift;

    /**
     * @param divisor at least 1
     * @throws IllegalArgumentException if {@code divisor} is not positive
     */
    TickDivisor(long divisor) {
        if (divisor <= 0) {
            throw new IllegalArgumentException("divisor must be positive: " + divisor);
        }
        this.divisor = divisor;
        if (Long.bitCount(divisor) == 1) {
            this.multiplier = 0L;
            this.shift = Long.numberOfTrailingZeros(divisor);
        } else {
            int bits = Long.SIZE - Long.numberOfLeadingZeros(divisor);
            BigInteger d = BigInteger.valueOf(divisor);
            BigInteger[] qr = BigInteger.ONE.shiftLeft(62 + bits).divideAndRemainder(d);
            BigInteger ceiling = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
            this.multiplier = ceiling.longValueExact(); // below 2^63 ([1])
            this.shift = bits - 2;
        }
    }

    /** {@code x / divisor} for {@code x >= 0}. */
    long divide(long x) {
        if (multiplier == 0L) {
            return x >>> shift;
        }
        long q = Math.multiplyHigh(x, multiplier) >>> shift;
        return x - q * divisor < 0 ? q - 1 : q;
    }
}
