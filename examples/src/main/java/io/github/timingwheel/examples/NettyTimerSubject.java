package io.github.timingwheel.examples;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A Netty {@link Timer}: Netty's {@code HashedWheelTimer} and our {@code WheelTimer} alike.
 * {@code Timer} has no pending count, so each brings its own ({@code pendingTimeouts()}).
 */
final class NettyTimerSubject implements Subject<Timeout> {

    private final String name;
    private final Timer timer;
    private final LongSupplier pendingTimeouts;
    private final RecordingThreadFactory threads;

    NettyTimerSubject(String name, Timer timer, LongSupplier pendingTimeouts, RecordingThreadFactory threads) {
        this.name = name;
        this.timer = timer;
        this.pendingTimeouts = pendingTimeouts;
        this.threads = threads;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Timeout schedule(Probe probe, long delayNanos) {
        return timer.newTimeout(probe, delayNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean cancel(Timeout handle) {
        return handle.cancel();
    }

    @Override
    public long pending() {
        return pendingTimeouts.getAsLong();
    }

    @Override
    public List<Thread> threads() {
        return threads.threads();
    }

    @Override
    public void close() {
        timer.stop();
    }
}
