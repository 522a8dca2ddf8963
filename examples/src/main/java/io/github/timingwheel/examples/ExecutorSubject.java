package io.github.timingwheel.examples;

import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ScheduledExecutorService} that is also a {@link ThreadPoolExecutor}: the JDK's
 * {@code ScheduledThreadPoolExecutor} and our {@code WheelScheduledExecutor} alike, driven
 * through the same code.
 */
final class ExecutorSubject implements Subject<ScheduledFuture<?>> {

    private final String name;
    private final ScheduledExecutorService executor;
    private final ThreadPoolExecutor pool;
    private final RecordingThreadFactory threads;

    <E extends ThreadPoolExecutor & ScheduledExecutorService> ExecutorSubject(String name, E executor,
            RecordingThreadFactory threads) {
        this.name = name;
        this.executor = executor;
        this.pool = executor;
        this.threads = threads;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public ScheduledFuture<?> schedule(Probe probe, long delayNanos) {
        return executor.schedule(probe, delayNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean cancel(ScheduledFuture<?> handle) {
        return handle.cancel(false);
    }

    @Override
    public long pending() {
        return pool.getQueue().size();
    }

    @Override
    public List<Thread> threads() {
        return threads.threads();
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
