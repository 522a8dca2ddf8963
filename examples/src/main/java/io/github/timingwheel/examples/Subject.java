package io.github.timingwheel.examples;

import java.util.List;

/**
 * One scheduler under test, seen through what the demo needs from it. {@code H} is the
 * scheduler's own handle (a {@code ScheduledFuture} or a Netty {@code Timeout}), so that the
 * demo adds no object per timer to what it measures.
 *
 * @param <H> the handle that {@link #schedule} returns and {@link #cancel} takes
 */
interface Subject<H> extends AutoCloseable {

    /** The column title in the report. */
    String name();

    /** Arms a timer that runs {@code probe} after {@code delayNanos}. */
    H schedule(Probe probe, long delayNanos);

    /** Cancels a timer; true if this call cancelled it before it ran. */
    boolean cancel(H handle);

    /** How many timers the scheduler holds now, as it counts them. */
    long pending();

    /** The threads the scheduler made, for measuring their CPU time. */
    List<Thread> threads();

    /** Stops the scheduler and waits for its threads. */
    @Override
    void close();
}
