package io.github.timingwheel.benchmarks.subjects;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One scheduler under measurement, seen through the two operations every benchmark needs:
 * arm a timer and cancel it. The same workload code then drives ours and the baselines, through
 * {@code ScheduledExecutorService} or Netty's {@code Timer} as each offers.
 *
 * <p>{@code jdk-stpe} runs with {@code setRemoveOnCancelPolicy(true)}, so that a cancelled task
 * leaves its heap at once, as ours does; {@code baseline-executor} and {@code baseline-timer}
 * are ours as built from another commit, loaded from {@code -Dbaseline.classpath} (see
 * {@link Baseline} and {@code benchmarks/ab.sh}).
 *
 * <p>Our executor comes as {@code wheel-executor} (2 workers), {@code wheel-executor-1} (1
 * worker) and {@code wheel-executor-default} (the builder's default number of workers, one per
 * processor); our timer as {@code wheel-timer} (its default tolerance) and
 * {@code wheel-timer-tolerance-0}; the JDK's as {@code jdk-stpe} (2 threads) and
 * {@code jdk-stpe-1} (1 thread). {@code jdk-fjp} is {@code new ForkJoinPool(2)} used as a
 * {@code ScheduledExecutorService}, which it is from JDK 25 on (its {@code schedule} goes to the
 * pool's delay scheduler thread, which relays due tasks to the pool); on an earlier JDK,
 * {@link #create} throws {@link Unavailable} for it, and the runner skips it with a note.
 */
public abstract class TimerSubject implements AutoCloseable {

    /** Every subject, in the order tables show them. */
    public static final List<String> NAMES = List.of(
            "wheel-executor", "wheel-executor-1shard", "wheel-executor-8shards", "wheel-executor-16shards", "wheel-executor-1",
            "wheel-executor-default", "jdk-stpe", "jdk-stpe-1", "jdk-fjp", "wheel-timer", "wheel-timer-tolerance-0",
            "netty-hwt-1ms", "netty-hwt-100ms", "baseline-executor", "baseline-timer");

    private final String name;

    TimerSubject(String name) {
        this.name = name;
    }

    public final String name() {
        return name;
    }

    /** Arms {@code task} to run after {@code delayNanos}; returns the handle to cancel. */
    public abstract Object arm(Task task, long delayNanos);

    /**
     * Hands {@code task} over to run as soon as it can: {@code execute} for an executor, a
     * zero-delay {@code newTimeout} for a Netty {@code Timer}.
     */
    public abstract void runNow(Task task);

    /** Cancels a handle from {@link #arm}; true if the timer was pending. */
    public abstract boolean cancel(Object handle);

    /**
     * Runs {@code task} after {@code initialDelayNanos} and then at a fixed rate until the
     * subject closes: {@code scheduleAtFixedRate} for an executor; for a Netty {@code Timer},
     * which has no periodic timeouts, the task re-arms itself for its next ideal time, as a
     * Netty user would write it.
     */
    public abstract void armAtFixedRate(Task task, long initialDelayNanos, long periodNanos);

    /**
     * The number of timers the subject's own structures hold at this moment, cancelled ones not
     * yet removed and armed ones not yet linked included where the subject counts them; -1 if
     * it cannot say. Less the timers a scenario keeps live, this is the work a subject has
     * accepted but not yet absorbed: Netty's {@code pendingTimeouts()} counts a cancelled
     * timeout until its worker removes it; the JDK's and our executors' {@code getQueue().size()}
     * and our Timer's {@code pendingTimeouts()} count what their wheels or heap hold (ours take
     * each shard's lock to read it).
     */
    public abstract long queued();

    @Override
    public abstract void close();

    /**
     * Creates the subject called {@code name} (one of {@link #NAMES}), with two workers for the
     * executors and one thread for the timers, as each is commonly configured, unless the name
     * says otherwise.
     */
    public static TimerSubject create(String name, ThreadFactory threads) {
        return switch (name) {
            case "wheel-timer" -> {
                WheelTimer timer = WheelTimer.builder().threadFactory(threads).build();
                yield new TimerAdapter(name, timer, timer::pendingTimeouts);
            }
            case "wheel-timer-tolerance-0" -> {
                WheelTimer timer = WheelTimer.builder().tolerance(0, TimeUnit.MILLISECONDS).threadFactory(threads)
                        .build();
                yield new TimerAdapter(name, timer, timer::pendingTimeouts);
            }
            case "netty-hwt-1ms" -> {
                HashedWheelTimer timer = new HashedWheelTimer(threads, 1, TimeUnit.MILLISECONDS);
                yield new TimerAdapter(name, timer, timer::pendingTimeouts);
            }
            case "netty-hwt-100ms" -> {
                HashedWheelTimer timer = new HashedWheelTimer(threads);
                yield new TimerAdapter(name, timer, timer::pendingTimeouts);
            }
            case "baseline-timer" -> {
                Timer timer = Baseline.timer(threads);
                yield new TimerAdapter(name, timer, Baseline.pendingTimeouts(timer));
            }
            default -> new ExecutorSubject(name, scheduledExecutor(name, threads));
        };
    }

    /**
     * The executor of the subject called {@code name}, for a benchmark that drives a
     * {@code ScheduledExecutorService} itself (a Reactor scheduler over it, a task group): made
     * as {@link #create} makes it.
     *
     * @throws IllegalArgumentException if {@code name} is not an executor's (a timer's, or unknown)
     */
    public static ScheduledExecutorService scheduledExecutor(String name, ThreadFactory threads) {
        return switch (name) {
            case "wheel-executor" -> WheelScheduledExecutor.builder().workers(2).threadFactory(threads).build();
            case "wheel-executor-1shard" -> WheelScheduledExecutor.builder()
                    .workers(2).shards(1).threadFactory(threads).build();
            case "wheel-executor-8shards" -> WheelScheduledExecutor.builder()
                    .workers(2).shards(8).threadFactory(threads).build();
            case "wheel-executor-16shards" -> WheelScheduledExecutor.builder()
                    .workers(2).shards(16).threadFactory(threads).build();
            case "wheel-executor-1" -> WheelScheduledExecutor.builder().workers(1).threadFactory(threads).build();
            case "wheel-executor-default" -> WheelScheduledExecutor.builder().threadFactory(threads).build();
            case "jdk-fjp" -> forkJoinPool(threads);
            case "jdk-stpe", "jdk-stpe-1" -> {
                ScheduledThreadPoolExecutor jdk = new ScheduledThreadPoolExecutor(name.equals("jdk-stpe") ? 2 : 1,
                        threads);
                jdk.setRemoveOnCancelPolicy(true);
                yield jdk;
            }
            case "baseline-executor" -> Baseline.executor(threads);
            default -> throw new IllegalArgumentException(NAMES.contains(name)
                    ? name + " is a timer, not an executor"
                    : "unknown subject: " + name + ", expected one of " + NAMES);
        };
    }

    /** {@link #scheduledExecutor(String, ThreadFactory)} with daemon threads. */
    public static ScheduledExecutorService scheduledExecutor(String name) {
        return scheduledExecutor(name, daemons(name));
    }

    /** A subject that this JVM cannot make (the JDK's {@code ForkJoinPool} before JDK 25). */
    public static final class Unavailable extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Unavailable(String message) {
            super(message);
        }
    }

    /**
     * {@code new ForkJoinPool(2)} as a {@code ScheduledExecutorService} (JDK 25 and later), its
     * workers daemons; when {@code threads} is a {@link SchedulerThreads}, it is given them to
     * count (the pool's delay scheduler thread is made by the pool itself and not counted).
     */
    private static ScheduledExecutorService forkJoinPool(ThreadFactory threads) {
        if (!ScheduledExecutorService.class.isAssignableFrom(ForkJoinPool.class)) {
            throw new Unavailable("jdk-fjp: ForkJoinPool is a ScheduledExecutorService only from JDK 25 on; this is "
                    + System.getProperty("java.runtime.version"));
        }
        ForkJoinPool.ForkJoinWorkerThreadFactory factory = pool -> {
            ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            thread.setDaemon(true);
            if (threads instanceof SchedulerThreads counted) {
                counted.adopt(thread);
            }
            return thread;
        };
        Object pool = new ForkJoinPool(2, factory, null, false);
        return (ScheduledExecutorService) pool;
    }

    /** Daemon threads, so that a benchmark that fails cannot hang its JVM. */
    public static TimerSubject create(String name) {
        return create(name, daemons(name));
    }

    /** Daemon threads named {@code <name>-worker}. */
    private static ThreadFactory daemons(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-worker");
            thread.setDaemon(true);
            return thread;
        };
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
        public void runNow(Task task) {
            executor.execute(task);
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
        public long queued() {
            return executor instanceof ThreadPoolExecutor pool ? pool.getQueue().size() : -1;
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
        private final LongSupplier pending;

        TimerAdapter(String name, Timer timer, LongSupplier pending) {
            super(name);
            this.timer = timer;
            this.pending = pending;
        }

        @Override
        public long queued() {
            return pending.getAsLong();
        }

        @Override
        public Object arm(Task task, long delayNanos) {
            return timer.newTimeout(task, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void runNow(Task task) {
            timer.newTimeout(task, 0L, TimeUnit.NANOSECONDS);
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
