package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.executor.Rearmable;
import io.github.timingwheel.executor.SchedulerMetrics;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Idle timeouts: {@code connections} connections, each with a 30 s idle timeout, touched at
 * random by 2 threads as fast as they can for {@code seconds} s (none goes quiet long enough to
 * fire). Touches per second, and the CPU the scheduler's own threads used meanwhile. The ways to
 * write it, each a row:
 * <ul>
 *   <li>{@code touch}: our re-armable timeouts (executor and timer), one CAS per touch;
 *   <li>{@code cancel+schedule} / {@code cancel+newTimeout}: a cancel and a new timer per
 *       touch, on our executor, the JDK's (remove-on-cancel on) and Netty's 1 ms timer;
 *   <li>{@code lazy re-arm}: Netty's timer with the {@code IdleStateHandler} pattern written by
 *       hand: a touch writes the time, and the timeout, when it fires, arms itself again for
 *       what is left.
 * </ul>
 * The runner's subjects choose the rows: wheel-executor (touch, cancel+schedule), wheel-timer
 * (touch), jdk-stpe (cancel+schedule), netty-hwt-1ms (cancel+newTimeout, lazy re-arm); other
 * subjects have no row here.
 */
final class Idle implements Scenario {

    static final Column TOUCHES = Column.higher("touches/s 2 threads", 0);
    static final Column WORKER_CPU = Column.lower("scheduler CPU %", 1);

    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final int THREADS = 2;

    private final int connections;
    private final int seconds;

    Idle(int connections, int seconds) {
        this.connections = connections;
        this.seconds = seconds;
    }

    @Override
    public String name() {
        return "idle";
    }

    @Override
    public String description() {
        return String.format("%,d connections with a 30 s idle timeout, touched at random by %d threads flat out"
                + " for %d s", connections, THREADS, seconds);
    }

    @Override
    public List<Column> columns() {
        return List.of(TOUCHES, WORKER_CPU);
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        for (String way : ways(subject)) {
            String row = subject + " " + way;
            ThreadRecorder threads = new ThreadRecorder();
            try (Connections timeouts = create(subject, way, threads)) {
                timeouts.armAll(connections);
                long cpuBefore = threads.cpuNanos();
                long nanos = TimeUnit.SECONDS.toNanos(warmUp ? 1 : seconds);
                long touches = touchFlatOut(timeouts, nanos);
                long cpu = threads.cpuNanos() - cpuBefore;
                if (!warmUp) {
                    results.record(row, TOUCHES, touches * 1e9 / nanos);
                    results.record(row, WORKER_CPU, 100.0 * cpu / nanos);
                }
            }
        }
    }

    private static List<String> ways(String subject) {
        return switch (subject) {
            case "wheel-executor" -> List.of("touch", "cancel+schedule");
            case "wheel-timer" -> List.of("touch");
            case "jdk-stpe" -> List.of("cancel+schedule");
            case "netty-hwt-1ms" -> List.of("cancel+newTimeout", "lazy re-arm");
            default -> List.of();
        };
    }

    private long touchFlatOut(Connections timeouts, long nanos) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        CyclicBarrier start = new CyclicBarrier(THREADS + 1);
        LongAdder touches = new LongAdder();
        Thread[] workers = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            long seed = t;
            workers[t] = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                long count = 0;
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                while (!stop.get()) {
                    for (int i = 0; i < 256; i++) {
                        timeouts.touch(random.nextInt(connections));
                    }
                    count += 256;
                }
                touches.add(count);
            }, "idle-toucher-" + t);
            workers[t].start();
        }
        start.await();
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() - until < 0) {
            TimeUnit.MILLISECONDS.sleep(10); // the measured span, not a wait for a result
        }
        stop.set(true);
        for (Thread worker : workers) {
            worker.join();
        }
        return touches.sum();
    }

    // ---------------------------------------------------------------------------------------
    // The ways to write an idle timeout.

    /** The connections' idle timeouts, written one way. */
    private abstract static class Connections implements AutoCloseable {
        static final Runnable CLOSE = () -> { }; // a connection that went idle: nothing to close here

        abstract void armAll(int count);

        /** A read on connection {@code i}: push its timeout back. Any thread. */
        abstract void touch(int i);

        @Override
        public abstract void close();
    }

    private static Connections create(String subject, String way, ThreadFactory threads) {
        return switch (subject + " " + way) {
            case "wheel-executor touch" -> new Rearmables(WheelScheduledExecutor.builder().workers(1)
                    .threadFactory(threads).build(), null);
            case "wheel-timer touch" -> new Rearmables(null, WheelTimer.builder().threadFactory(threads).build());
            case "wheel-executor cancel+schedule" -> new CancelAndSchedule(WheelScheduledExecutor.builder()
                    .workers(1).threadFactory(threads).build());
            case "jdk-stpe cancel+schedule" -> {
                ScheduledThreadPoolExecutor jdk = new ScheduledThreadPoolExecutor(1, threads);
                jdk.setRemoveOnCancelPolicy(true);
                yield new CancelAndSchedule(jdk);
            }
            case "netty-hwt-1ms cancel+newTimeout" ->
                    new CancelAndNewTimeout(new HashedWheelTimer(threads, 1, TimeUnit.MILLISECONDS));
            case "netty-hwt-1ms lazy re-arm" -> new LazyRearm(new HashedWheelTimer(threads, 1, TimeUnit.MILLISECONDS));
            default -> throw new IllegalArgumentException(subject + " " + way);
        };
    }

    /** Ours: one re-armable timeout per connection, one CAS per touch. */
    private static final class Rearmables extends Connections {
        private final WheelScheduledExecutor executor;
        private final WheelTimer timer;
        private Rearmable[] handles;

        Rearmables(WheelScheduledExecutor executor, WheelTimer timer) {
            this.executor = executor;
            this.timer = timer;
        }

        @Override
        void armAll(int count) {
            handles = new Rearmable[count];
            for (int i = 0; i < count; i++) {
                handles[i] = executor != null
                        ? executor.scheduleRearmable(CLOSE, IDLE_NANOS, TimeUnit.NANOSECONDS)
                        : timer.newRearmableTimeout(t -> { }, IDLE_NANOS, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        void touch(int i) {
            handles[i].touch();
        }

        @Override
        public void close() {
            SchedulerMetrics metrics = executor != null ? executor.metrics() : timer.metrics();
            System.out.printf("   (%s: %,d re-arms)%n", executor != null ? "executor" : "timer", metrics.rearms());
            if (executor != null) {
                executor.shutdownNow();
            } else {
                timer.stop();
            }
        }
    }

    /** A cancel and a new schedule per touch, on any ScheduledExecutorService. */
    private static final class CancelAndSchedule extends Connections {
        private final ScheduledExecutorService executor;
        private AtomicReferenceArray<ScheduledFuture<?>> pending;

        CancelAndSchedule(ScheduledExecutorService executor) {
            this.executor = executor;
        }

        @Override
        void armAll(int count) {
            pending = new AtomicReferenceArray<>(count);
            for (int i = 0; i < count; i++) {
                pending.set(i, executor.schedule(CLOSE, IDLE_NANOS, TimeUnit.NANOSECONDS));
            }
        }

        @Override
        void touch(int i) {
            ScheduledFuture<?> next = executor.schedule(CLOSE, IDLE_NANOS, TimeUnit.NANOSECONDS);
            pending.getAndSet(i, next).cancel(false);
        }

        @Override
        public void close() {
            executor.shutdownNow();
        }
    }

    /** A cancel and a new timeout per touch, on a Netty Timer. */
    private static final class CancelAndNewTimeout extends Connections {
        private final Timer timer;
        private AtomicReferenceArray<Timeout> pending;

        CancelAndNewTimeout(Timer timer) {
            this.timer = timer;
        }

        @Override
        void armAll(int count) {
            pending = new AtomicReferenceArray<>(count);
            for (int i = 0; i < count; i++) {
                pending.set(i, timer.newTimeout(t -> { }, IDLE_NANOS, TimeUnit.NANOSECONDS));
            }
        }

        @Override
        void touch(int i) {
            Timeout next = timer.newTimeout(t -> { }, IDLE_NANOS, TimeUnit.NANOSECONDS);
            pending.getAndSet(i, next).cancel();
        }

        @Override
        public void close() {
            timer.stop();
        }
    }

    /**
     * Netty's IdleStateHandler pattern by hand: a touch records the time; the timeout, when it
     * fires, arms itself again for what is left, or the connection is idle.
     */
    private static final class LazyRearm extends Connections {
        private final Timer timer;
        private AtomicLongArray lastTouch;

        LazyRearm(Timer timer) {
            this.timer = timer;
        }

        @Override
        void armAll(int count) {
            lastTouch = new AtomicLongArray(count);
            long now = System.nanoTime();
            for (int i = 0; i < count; i++) {
                lastTouch.set(i, now);
                timer.newTimeout(new Check(i), IDLE_NANOS, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        void touch(int i) {
            lastTouch.setOpaque(i, System.nanoTime());
        }

        private final class Check implements TimerTask {
            private final int connection;

            Check(int connection) {
                this.connection = connection;
            }

            @Override
            public void run(Timeout timeout) {
                long left = lastTouch.getOpaque(connection) + IDLE_NANOS - System.nanoTime();
                if (left > 0) {
                    timer.newTimeout(this, left, TimeUnit.NANOSECONDS);
                } else {
                    CLOSE.run();
                }
            }
        }

        @Override
        public void close() {
            timer.stop();
        }
    }

    /** A thread factory that keeps its threads, to read their CPU time. */
    private static final class ThreadRecorder implements ThreadFactory {
        private final List<Thread> threads = new CopyOnWriteArrayList<>();
        private final ThreadMXBean bean = ManagementFactory.getThreadMXBean();

        @Override
        public Thread newThread(Runnable runnable) {
            Thread thread = new Thread(runnable, "idle-scheduler-" + threads.size());
            thread.setDaemon(true);
            threads.add(thread);
            return thread;
        }

        long cpuNanos() {
            long sum = 0;
            for (Thread thread : threads) {
                long cpu = bean.getThreadCpuTime(thread.getId());
                sum += Math.max(0L, cpu);
            }
            return sum;
        }
    }
}
