package io.github.timingwheel.core;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link TimeSource} that moves only when told to, for deterministic tests.
 *
 * <p>It may start anywhere in the {@code long} range, including near {@link Long#MAX_VALUE}
 * or at {@link Long#MIN_VALUE}, so that tests can check arithmetic across the wrap of
 * {@link System#nanoTime()}. Advancing wraps as {@code nanoTime} does.
 *
 * <p>Thread-safe: a test thread may advance it while scheduler threads read it; every read
 * sees a value at least as new as the last completed {@code advance} (volatile semantics).
 */
public final class ManualTimeSource implements TimeSource {

    /** Written by {@link #advance}, read by any thread; an atomic add keeps concurrent advances. */
    private final AtomicLong nanos;

    /** Creates a source that starts at {@code startNanos}. */
    public ManualTimeSource(long startNanos) {
        this.nanos = new AtomicLong(startNanos);
    }

    /** Creates a source that starts at zero. */
    public ManualTimeSource() {
        this(0L);
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    /**
     * Moves the time forward.
     *
     * @param amount how far, not negative
     * @param unit the unit of {@code amount}
     * @return the new time
     * @throws IllegalArgumentException if {@code amount} is negative
     * @throws NullPointerException if {@code unit} is null
     */
    public long advance(long amount, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (amount < 0) {
            throw new IllegalArgumentException("amount must not be negative: " + amount);
        }
        return nanos.addAndGet(unit.toNanos(amount));
    }

    /** Moves the time forward by {@code nanos} nanoseconds; see {@link #advance(long, TimeUnit)}. */
    public long advanceNanos(long nanos) {
        return advance(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public String toString() {
        return "ManualTimeSource[" + nanos.get() + "]";
    }
}
