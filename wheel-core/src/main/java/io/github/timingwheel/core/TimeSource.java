package io.github.timingwheel.core;

/**
 * A monotonic source of nanosecond time, as {@link System#nanoTime()} defines it: values are
 * meaningful only as differences, and may wrap across zero.
 *
 * <p>Every scheduler in this project reads time only through a {@code TimeSource}, so that tests
 * can drive it with a {@link ManualTimeSource} instead of sleeping.
 *
 * <p>Implementations must be safe to call from any thread and must never go backwards.
 */
@FunctionalInterface
public interface TimeSource {

    /** Returns the current time in nanoseconds; only differences between two calls mean anything. */
    long nanoTime();

    /** Returns the time source backed by {@link System#nanoTime()}. */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }
}

/** The {@link System#nanoTime()} source; an enum so that it is a serializable singleton. */
enum SystemTimeSource implements TimeSource {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public String toString() {
        return "TimeSource.system()";
    }
}
