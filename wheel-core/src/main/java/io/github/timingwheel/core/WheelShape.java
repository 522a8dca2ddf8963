package io.github.timingwheel.core;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The geometry of a {@link TimingWheel}: how wide a tick is, how many slots each level has and
 * how many levels there are. Immutable; build one with {@link #builder()} or take
 * {@link #defaults()}.
 *
 * <p>Level 0 slots are one tick wide; each slot of level {@code l} spans
 * {@code slotsPerLevel^l} ticks, so the wheel places deadlines at least
 * {@code tick * slotsPerLevel^levels} ahead in O(1) (each level keeps a second lap, so up to
 * twice that); later deadlines wait in an overflow list that is re-examined once per turn of
 * the top level.
 *
 * <p>The default shape, a 1 ms tick with 4 levels of 256 slots, places deadlines at least
 * 2^32 ms (about 49.7 days) ahead without using the overflow list. With two laps a level, its
 * level 0 takes every deadline up to 256 to 512 ms ahead, so the timeouts of a burst of that
 * length are placed once and never moved down a level, where with 64 slots a level a burst
 * armed for the next second is moved down from level 1 while it fires, which costs its
 * driver CPU exactly when it has least to spare (docs/decisions.md). A bucket is made only when
 * a deadline first falls in its slot, so the wider levels cost little memory where they are
 * not used.
 */
public final class WheelShape {

    /**
     * The largest {@code levels * log2(slotsPerLevel)}: tick numbers are below 2^63, and bit
     * {@code levels * log2(slotsPerLevel)}, the top level's second lap, is still below the sign.
     */
    static final int MAX_TOTAL_BITS = 62;
    /** The most slots one level may have; more only slows the search for the next slot. */
    public static final int MAX_SLOTS_PER_LEVEL = 1 << 16;

    private static final WheelShape DEFAULTS = builder().build();

    private final long tickNanos;
    private final int slotsPerLevel;
    private final int levels;

    private WheelShape(Builder builder) {
        this.tickNanos = builder.tickNanos;
        this.slotsPerLevel = builder.slotsPerLevel;
        this.levels = builder.levels;
    }

    /** A 1 ms tick, 256 slots per level, 4 levels. */
    public static WheelShape defaults() {
        return DEFAULTS;
    }

    /** Starts a builder with the default values. */
    public static Builder builder() {
        return new Builder();
    }

    /** The width of one level-0 slot, in nanoseconds. */
    public long tickNanos() {
        return tickNanos;
    }

    /** The number of slots in each level, a power of two. */
    public int slotsPerLevel() {
        return slotsPerLevel;
    }

    /** The number of levels. */
    public int levels() {
        return levels;
    }

    /** {@code log2(slotsPerLevel)}: how many bits of a tick number one level consumes. */
    int slotBits() {
        return Integer.numberOfTrailingZeros(slotsPerLevel);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof WheelShape that
                && tickNanos == that.tickNanos
                && slotsPerLevel == that.slotsPerLevel
                && levels == that.levels;
    }

    @Override
    public int hashCode() {
        return Objects.hash(tickNanos, slotsPerLevel, levels);
    }

    @Override
    public String toString() {
        return "WheelShape[tickNanos=" + tickNanos + ", slotsPerLevel=" + slotsPerLevel
                + ", levels=" + levels + "]";
    }

    /** Builds a {@link WheelShape}; every setter checks its argument at once. */
    public static final class Builder {
        private long tickNanos = TimeUnit.MILLISECONDS.toNanos(1);
        private int slotsPerLevel = 256;
        private int levels = 4;

        private Builder() {
        }

        /**
         * Sets the tick, the width of a level-0 slot (default 1 ms). The tick only buckets
         * deadlines: tasks still fire at their exact deadline, not at a tick boundary.
         *
         * @throws IllegalArgumentException if {@code tick} is not positive
         * @throws NullPointerException if {@code unit} is null
         */
        public Builder tick(long tick, TimeUnit unit) {
            Objects.requireNonNull(unit, "unit");
            if (tick <= 0) {
                throw new IllegalArgumentException("tick must be positive: " + tick);
            }
            this.tickNanos = unit.toNanos(tick);
            return this;
        }

        /**
         * Sets the number of slots in each level (default 256).
         *
         * @throws IllegalArgumentException if {@code slotsPerLevel} is not a power of two
         *     between 2 and {@link #MAX_SLOTS_PER_LEVEL}
         */
        public Builder slotsPerLevel(int slotsPerLevel) {
            if (slotsPerLevel < 2 || slotsPerLevel > MAX_SLOTS_PER_LEVEL
                    || Integer.bitCount(slotsPerLevel) != 1) {
                throw new IllegalArgumentException("slotsPerLevel must be a power of two in [2, "
                        + MAX_SLOTS_PER_LEVEL + "]: " + slotsPerLevel);
            }
            this.slotsPerLevel = slotsPerLevel;
            return this;
        }

        /**
         * Sets the number of levels (default 4).
         *
         * @throws IllegalArgumentException if {@code levels} is not positive
         */
        public Builder levels(int levels) {
            if (levels < 1) {
                throw new IllegalArgumentException("levels must be positive: " + levels);
            }
            this.levels = levels;
            return this;
        }

        /**
         * Returns the shape.
         *
         * @throws IllegalArgumentException if {@code levels * log2(slotsPerLevel)} exceeds 62,
         *     so that the levels would span more ticks than a {@code long} holds
         */
        public WheelShape build() {
            long totalBits = (long) levels * Integer.numberOfTrailingZeros(slotsPerLevel); // no int overflow
            if (totalBits > MAX_TOTAL_BITS) {
                throw new IllegalArgumentException("levels * log2(slotsPerLevel) must not exceed "
                        + MAX_TOTAL_BITS + ": levels=" + levels + ", slotsPerLevel=" + slotsPerLevel);
            }
            return new WheelShape(this);
        }
    }
}
