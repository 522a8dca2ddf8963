package io.github.timingwheel.examples;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The body of one timer: when it runs, it records how late it is against its own deadline,
 * read with {@link System#nanoTime()} before the timer was armed (so the scheduler's own
 * deadline is never earlier than this one).
 *
 * <p>Each timer ends exactly once, fired or cancelled, whatever the scheduler's cancel returns:
 * {@code ScheduledThreadPoolExecutor}'s {@code cancel(false)} returns true for a task whose
 * body has already started, so the probe settles the race itself with a compare-and-set.
 */
final class Probe implements Runnable, TimerTask {

    private static final int PENDING = 0;
    private static final int FIRED = 1;
    private static final int CANCELLED = 2;
    private static final AtomicIntegerFieldUpdater<Probe> STATE =
            AtomicIntegerFieldUpdater.newUpdater(Probe.class, "state");

    private final long deadlineNanos;
    private final Firings firings;
    private volatile int state;

    Probe(long deadlineNanos, Firings firings) {
        this.deadlineNanos = deadlineNanos;
        this.firings = firings;
    }

    /** Runs as a {@code Runnable} (executors). */
    @Override
    public void run() {
        long now = System.nanoTime();
        if (STATE.compareAndSet(this, PENDING, FIRED)) {
            firings.record(now - deadlineNanos);
        }
    }

    /** Runs as a Netty {@code TimerTask}. */
    @Override
    public void run(Timeout timeout) {
        run();
    }

    /** Marks the timer cancelled; false if its body won the race and fired. */
    boolean settleCancelled() {
        return STATE.compareAndSet(this, PENDING, CANCELLED);
    }

    /** What the probes of one run saw: how many fired, how late, how many early. */
    static final class Firings {
        /** Lateness in nanoseconds; three significant digits, resized as needed. */
        private final Histogram lateness = new ConcurrentHistogram(3);
        private final LongAdder fired = new LongAdder();
        private final LongAdder early = new LongAdder();

        void record(long lateNanos) {
            fired.increment();
            if (lateNanos < 0) {
                early.increment();
            }
            lateness.recordValue(Math.max(0L, lateNanos));
        }

        long fired() {
            return fired.sum();
        }

        long early() {
            return early.sum();
        }

        Histogram lateness() {
            return lateness;
        }
    }
}
