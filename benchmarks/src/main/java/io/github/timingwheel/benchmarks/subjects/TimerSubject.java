package io.github.timingwheel.benchmarks.subjects;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * One scheduler under measurement, seen through the two operations every benchmark needs:
 * arm a timer and cancel it. The same workload code then drives ours and the baselines, through
 * {@code ScheduledExecutorService} or Netty's {@code Timer} as each offers.
 */
public abstract class TimerSubject implements AutoCloseable {

    /** Every subject, in the order tables show them. */
    public static final List<String> NAMES = List.of(
            "wheel-executor", "wheel-executor-1shard", "wheel-executor-1", "jdk-stpe",
            "wheel-timer", "netty-hwt-1ms", "netty-hwt-100ms");

    private final String name;

    TimerSubject(String name) {
        this.name = name;
    }

    public final String name() {
        return name;
    }

    /** Arms {@code task} to run after {@code delayNanos}; returns the handle to cancel. */
    public abstract Object arm(Task task, long delayNanos);

    /** Cancels a handle from {@link #arm}; true if the timer was pending. */
    public abstract boolean cancel(Object handle);

    /**
     * Runs {@code task} after {@code initialDelayNanos} and then at a fixed rate until the
     * subject closes: {@code scheduleAtFixedRate} for an executor; for a Netty {@code Timer},
     * which has no periodic timeouts, the task re-arms itself for its next ideal time, as a
     * Netty user would write it.
     */
    public abstract void armAtFixedRate(Task task, long initialDelayNanos, long periodNanos);

    @Override
    public abstract void close();

    /**
     * Creates the subject called {@code name} (one of {@link #NAMES}), with two workers for the
     * executors and one thread for the timers, as each is commonly configured.
     */
    public static TimerSubject create(String name, ThreadFactory threads) {
        return switch (name) {
            case "wheel-executor" -> new ExecutorSubject(name, WheelScheduledExecutor.builder()
                    .workers(2).threadFactory(threads).build());
            case "wheel-executor-1shard" -> new ExecutorSubject(name, WheelScheduledExecutor.builder()
                    .workers(2).shards(1).threadFactory(threads).build());
            case "wheel-executor-1" -> new ExecutorSubject(name, WheelScheduledExecutor.builder()
                    .workers(1).threadFactory(threads).build());
            case "jdk-stpe" -> {
                ScheduledThreadPoolExecutor jdk = new ScheduledThreadPoolExecutor(2, threads);
                jdk.setRemoveOnCancelPolicy(true);
                yield new ExecutorSubject(name, jdk);
            }
            case "wheel-timer" -> new TimerAdapter(name, WheelTimer.builder().threadFactory(threads).build());
            case "netty-hwt-1ms" -> new TimerAdapter(name, new HashedWheelTimer(threads, 1, TimeUnit.MILLISECONDS));
            case "netty-hwt-100ms" -> new TimerAdapter(name, new HashedWheelTimer(threads));
            default -> throw new IllegalArgumentException("unknown subject: " + name + ", expected one of " + NAMES);
        };
    }

    /** Daemon threads, so that a benchmark that fails cannot hang its JVM. */
    public static TimerSubject create(String name) {
        return create(name, runnable -> {
            Thread thread = new Thread(runnable, name + "-worker");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * A timer body that both interfaces accept as it is, so that no subject pays for an adapter
     * object per timer.
     */
    public abstract static class Task implements Runnable, TimerTask {
        @Override
        public final void run(Timeout timeout) {
            run();
        }
    }

    /** A task that does nothing; one instance serves every timer of a throughput benchmark. */
    public static final Task NOOP = new Task() {
        @Override
        public void run() {
        }
    };

    private static final class ExecutorSubject extends TimerSubject {
        private final ScheduledExecutorService executor;

        ExecutorSubject(String name, ScheduledExecutorService executor) {
            super(name);
            this.executor = executor;
        }

        @Override
        public Object arm(Task task, long delayNanos) {
            return executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public boolean cancel(Object handle) {
            return ((ScheduledFuture<?>) handle).cancel(false);
        }

        @Override
        public void armAtFixedRate(Task task, long initialDelayNanos, long periodNanos) {
            executor.scheduleAtFixedRate(task, initialDelayNanos, periodNanos, TimeUnit.NANOSECONDS);
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

    private static final class TimerAdapter extends TimerSubject {
        private final Timer timer;

        TimerAdapter(String name, Timer timer) {
            super(name);
            this.timer = timer;
        }

        @Override
        public Object arm(Task task, long delayNanos) {
            return timer.newTimeout(task, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public boolean cancel(Object handle) {
            return ((Timeout) handle).cancel();
        }

        @Override
        public void armAtFixedRate(Task task, long initialDelayNanos, long periodNanos) {
            timer.newTimeout(new FixedRate(task, System.nanoTime() + initialDelayNanos, periodNanos),
                    initialDelayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void close() {
            timer.stop();
        }
    }

    /** A Netty timer task that re-arms itself for {@code first + n * period}, skipping nothing. */
    private static final class FixedRate implements TimerTask {
        private final Task task;
        private final long period;
        /** The ideal start of the next run, in System.nanoTime(); touched only by the runs. */
        private long next;

        FixedRate(Task task, long first, long period) {
            this.task = task;
            this.next = first;
            this.period = period;
        }

        @Override
        public void run(Timeout timeout) {
            task.run();
            next += period;
            try {
                timeout.timer().newTimeout(this, Math.max(0, next - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (IllegalStateException | RejectedExecutionException stopped) {
                // the timer is stopping: the series ends here
            }
        }
    }
}
