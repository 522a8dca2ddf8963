package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.SchedulerThreads;
import io.github.timingwheel.executor.Rearmable;
import io.github.timingwheel.executor.SchedulerMetrics;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
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
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import org.HdrHistogram.Histogram;

/**
 * Idle timeouts, in two phases on one scheduler. First {@code connections} connections, each
 * with a 30 s idle timeout, touched at random by 2 threads for {@code seconds} s (none goes
 * quiet long enough to fire): flat out ({@code idle}), or together at a fixed {@code rate}
 * ({@code idle-rate}), each thread touching in small batches and spinning on
 * {@code System.nanoTime()} until its next batch is due; a subject that cannot keep up falls
 * short of the rate and the table shows by how much. Touches per second, and the CPU the
 * scheduler's own threads used meanwhile. Then, with those still pending, a sample of
 * {@value #QUIET_SAMPLE} connections (or all, if fewer) with a 100 ms idle timeout, touched by
 * the same 2 threads in turn, together at {@value #QUIET_RATE} touches a second (every subject
 * sustains that) for half a second, and then left quiet: how late each timeout fired after the
 * last deadline its touches set, and how many fired before it (early: must be none). The quiet
 * phase is paced alike for every subject because its last round of touches sets the deadlines:
 * flat out, a subject whose touch is faster would get its 10,000 deadlines within a shorter
 * span (1.3 ms at 7.5 M touches/s, 9 ms at the JDK's 1.1 M) and so a harder burst to fire.
 * The ways to write it, each a row:
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
 *
 * <p>The deadline a firing is compared with: in the quiet phase each sample connection is
 * touched by one thread only (its half of the sample, in a shuffled order, over and over), which
 * reads the clock before each touch. That time plus 100 ms is never later than the deadline the
 * touch set (the touch reads the clock after it), so a firing before it is early for certain,
 * and the lateness is an upper bound: too high by the time from that clock read to the touch's
 * own, nanoseconds unless the thread was preempted in between (the clock read after the touch
 * would err the other way, and a preemption after the touch would then show as an early
 * firing that was not). The last such time is read after the threads are joined, so every
 * touch it stands for happened-before the quiet period. A connection whose thread may have left
 * it untouched for 100 ms (the start of one touch to the end of the next: a stall) may rightly
 * have fired while being touched: it is left out of the lateness, and counted on a line of its
 * own.
 */
final class Idle implements Scenario {

    static final Column WORKER_CPU = Column.lower("scheduler CPU %", 1);
    static final Column FIRED = Column.higher("quiet fired", 0);
    static final Column LATE_P50 = Column.lower("late p50 us", 0);
    static final Column LATE_P99 = Column.lower("late p99 us", 0);
    static final Column LATE_MAX = Column.lower("late max us", 0);
    static final Column EARLY = Column.lower("early", 0);

    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long QUIET_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long QUIET_TOUCH_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final int QUIET_SAMPLE = 10_000;
    /** Touches per second of both threads together in the quiet phase, for every subject. */
    private static final long QUIET_RATE = 500_000;
    /** The idle timeout of the priming round of the quiet phase (Quiet.prime). */
    private static final long PRIMING_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int THREADS = 2;
    /** Touches between two looks at the stop flag, flat out. */
    private static final int FLAT_OUT_BATCH = 256;
    /** Touches per paced batch: at 10 M/s over 2 threads, a batch every 12.8 µs per thread. */
    private static final int PACED_BATCH = 64;
    private static final long NOT_FIRED = Long.MIN_VALUE;

    private final int connections;
    private final int seconds;
    /** Touches per second of both threads together; 0 for flat out. */
    private final long rate;
    private final Column touches;
    /** The achieved rate as a share of the one asked for; null when flat out. */
    private final Column ofRate;

    /** Flat out. */
    Idle(int connections, int seconds) {
        this(connections, seconds, 0L);
    }

    /** @param rate touches per second of both threads together; 0 for flat out */
    Idle(int connections, int seconds, long rate) {
        this.connections = connections;
        this.seconds = seconds;
        this.rate = rate;
        this.touches = rate == 0
                ? Column.higher("touches/s 2 threads", 0)
                : Column.higher(String.format("touches/s (asked %,d)", rate), 0);
        this.ofRate = rate == 0 ? null : Column.higher("% of asked", 1);
    }

    @Override
    public String name() {
        return rate == 0 ? "idle" : "idle-rate";
    }

    @Override
    public String description() {
        String pace = rate == 0 ? "flat out" : String.format("together at %,d touches/s (paced; a subject that"
                + " cannot keep up falls short)", rate);
        return String.format("%,d connections with a 30 s idle timeout, touched at random by %d threads %s for %d s;"
                + " then %,d with a 100 ms idle timeout touched in turn at %,d touches/s for %d ms and left quiet:"
                + " how late each fired after its last deadline (µs)", connections, THREADS, pace, seconds,
                Math.min(QUIET_SAMPLE, connections), QUIET_RATE, TimeUnit.NANOSECONDS.toMillis(QUIET_TOUCH_NANOS));
    }

    @Override
    public List<Column> columns() {
        return rate == 0
                ? List.of(touches, WORKER_CPU, FIRED, LATE_P50, LATE_P99, LATE_MAX, EARLY)
                : List.of(touches, ofRate, WORKER_CPU, FIRED, LATE_P50, LATE_P99, LATE_MAX, EARLY);
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        for (String way : ways(subject)) {
            String row = subject + " " + way;
            SchedulerThreads threads = new SchedulerThreads("idle");
            try (Connections timeouts = create(subject, way, threads)) {
                timeouts.arm(connections, IDLE_NANOS, Connections.IGNORE);
                long cpuBefore = threads.cpuNanos();
                long[] touched = touch(TimeUnit.SECONDS.toNanos(warmUp ? 1 : seconds), rate, t -> new RandomTouches(timeouts,
                        connections, t));
                long cpu = threads.cpuNanos() - cpuBefore;
                Quiet quiet = new Quiet(timeouts, Math.min(QUIET_SAMPLE, connections));
                quiet.run();
                if (!warmUp) {
                    double perSecond = touched[0] * 1e9 / touched[1];
                    results.record(row, touches, perSecond);
                    if (ofRate != null) {
                        results.record(row, ofRate, 100.0 * perSecond / rate);
                    }
                    results.record(row, WORKER_CPU, 100.0 * cpu / touched[1]);
                    quiet.record(row, results);
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

    // ---------------------------------------------------------------------------------------
    // Touching: 2 threads, flat out or paced.

    /** What one touching thread does; made before the threads start, read after they end. */
    private interface Toucher {
        void touch(int count);
    }

    /**
     * Runs one {@link Toucher} per thread for {@code nanos}: flat out ({@code rate} 0), or paced
     * to {@code rate} together, each thread spinning on the clock until its next batch is due
     * (a thread that is behind goes on at once, to catch up).
     *
     * @return the touches, and the nanoseconds from the start to the stop
     */
    private long[] touch(long nanos, long rate, IntFunction<Toucher> touchers) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        CyclicBarrier start = new CyclicBarrier(THREADS + 1);
        LongAdder touches = new LongAdder();
        double batchNanos = rate == 0 ? 0 : PACED_BATCH * 1e9 * THREADS / rate;
        Thread[] workers = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            Toucher toucher = touchers.apply(t);
            workers[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                long count = 0;
                if (rate == 0) {
                    while (!stop.get()) {
                        toucher.touch(FLAT_OUT_BATCH);
                        count += FLAT_OUT_BATCH;
                    }
                } else {
                    long begin = System.nanoTime();
                    for (long batch = 0; !stop.get(); batch++) {
                        long due = begin + (long) (batch * batchNanos);
                        while (System.nanoTime() - due < 0 && !stop.get()) {
                            Thread.onSpinWait(); // no sleep: a sleep is tens of µs late, a batch 12.8 µs long
                        }
                        toucher.touch(PACED_BATCH);
                        count += PACED_BATCH;
                    }
                }
                touches.add(count);
            }, "idle-toucher-" + t);
            workers[t].start();
        }
        start.await();
        long begin = System.nanoTime();
        long until = begin + nanos;
        while (System.nanoTime() - until < 0) {
            TimeUnit.MILLISECONDS.sleep(Math.max(1L, Math.min(10L, (until - System.nanoTime()) / 1_000_000L)));
        }
        stop.set(true);
        long elapsed = System.nanoTime() - begin;
        for (Thread worker : workers) {
            worker.join();
        }
        return new long[] {touches.sum(), elapsed};
    }

    /** The first phase: connections at random. */
    private static final class RandomTouches implements Toucher {
        private final Connections timeouts;
        private final int connections;
        private final SplittableRandom random;

        RandomTouches(Connections timeouts, int connections, int thread) {
            this.timeouts = timeouts;
            this.connections = connections;
            this.random = new SplittableRandom(thread);
        }

        @Override
        public void touch(int count) {
            for (int i = 0; i < count; i++) {
                timeouts.touch(random.nextInt(connections));
            }
        }
    }

    /**
     * The quiet phase (see the class comment): the sample armed with a 100 ms idle timeout,
     * touched, left quiet, and each firing compared with the last deadline its touches set.
     */
    private final class Quiet {
        private final Connections timeouts;
        private final int sample;
        /** When each connection went idle (System.nanoTime()), or NOT_FIRED; written by the scheduler. */
        private final AtomicLongArray firedAt;
        private final LongAdder fired = new LongAdder();
        private final LongAdder firedAgain = new LongAdder();
        /** The clock before each connection's last touch; index i written only by thread i % THREADS. */
        private final long[] lastTouched;
        /** Connections left untouched for a whole idle timeout while being touched; as lastTouched. */
        private final boolean[] stalled;
        private final Histogram lateness = new Histogram(3);
        private long early;
        private long leftOut;

        Quiet(Connections timeouts, int sample) {
            this.timeouts = timeouts;
            this.sample = sample;
            this.firedAt = new AtomicLongArray(sample);
            this.lastTouched = new long[sample];
            this.stalled = new boolean[sample];
        }

        void run() throws Exception {
            prime();
            forgetFirings();
            Arrays.fill(lastTouched, System.nanoTime()); // before every arm: no later than its deadline
            timeouts.arm(sample, QUIET_IDLE_NANOS, this::wentIdle);
            touch(QUIET_TOUCH_NANOS, QUIET_RATE, this::toucher); // joins the threads: lastTouched is final now
            Waiting.until(() -> fired.sum() >= sample, TimeUnit.NANOSECONDS.toMillis(QUIET_IDLE_NANOS) + 5_000L);
            for (int i = 0; i < sample; i++) {
                long at = firedAt.get(i);
                if (at == NOT_FIRED) {
                    continue;
                }
                if (stalled[i]) {
                    leftOut++;
                    continue;
                }
                long late = at - (lastTouched[i] + QUIET_IDLE_NANOS);
                if (late < 0) {
                    early++;
                } else {
                    lateness.recordValue(late);
                }
            }
        }

        /**
         * Lets the sample go idle once, each touched once after arming, through this instance
         * and this callback, before the measured quiet phase, and forgets it. The phase before
         * touches timeouts that never fire, so without it the quiet phase's firings were the
         * first runs on the instance's worker threads: their per-thread state (a counter cell,
         * a producer's stamp for the lazy re-arm) did not exist yet, and compiled code that had
         * never met that case was thrown away while the sample came due (the burst scenario's
         * compile log showed such traps at its window's opening).
         */
        private void prime() throws InterruptedException {
            forgetFirings();
            timeouts.arm(sample, PRIMING_IDLE_NANOS, this::wentIdle);
            for (int i = 0; i < sample; i++) {
                timeouts.touch(i); // moves each deadline by the time arming took: a lazy re-arm
            }
            Waiting.until(() -> fired.sum() >= sample, TimeUnit.NANOSECONDS.toMillis(PRIMING_IDLE_NANOS) + 5_000L);
        }

        /** Marks every connection of the sample as not gone idle, and zeroes the counts. */
        private void forgetFirings() {
            for (int i = 0; i < sample; i++) {
                firedAt.set(i, NOT_FIRED);
            }
            fired.reset();
            firedAgain.reset();
        }

        private void wentIdle(int connection) {
            long now = System.nanoTime();
            if (firedAt.compareAndSet(connection, NOT_FIRED, now)) {
                fired.increment();
            } else {
                firedAgain.increment();
            }
        }

        /** Thread {@code t}'s half of the sample, in a shuffled order, over and over. */
        private Toucher toucher(int t) {
            int[] mine = IntStream.range(0, sample).filter(i -> i % THREADS == t).toArray();
            SplittableRandom random = new SplittableRandom(t);
            for (int i = mine.length - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                int swap = mine[i];
                mine[i] = mine[j];
                mine[j] = swap;
            }
            int[] next = new int[1];
            return count -> {
                for (int k = 0; k < count; k++) {
                    int i = mine[next[0]];
                    next[0] = next[0] + 1 == mine.length ? 0 : next[0] + 1;
                    long before = System.nanoTime();
                    timeouts.touch(i);
                    if (System.nanoTime() - lastTouched[i] >= QUIET_IDLE_NANOS) {
                        stalled[i] = true; // it may rightly have gone idle before this touch
                    }
                    lastTouched[i] = before;
                }
            };
        }

        void record(String row, Results results) {
            results.record(row, FIRED, fired.sum());
            boolean none = lateness.getTotalCount() == 0;
            results.record(row, LATE_P50, none ? Double.NaN : lateness.getValueAtPercentile(50) / 1e3);
            results.record(row, LATE_P99, none ? Double.NaN : lateness.getValueAtPercentile(99) / 1e3);
            results.record(row, LATE_MAX, none ? Double.NaN : lateness.getMaxValue() / 1e3);
            results.record(row, EARLY, early);
            if (fired.sum() < sample || leftOut > 0 || firedAgain.sum() > 0) {
                System.out.printf("   (%s: of %,d quiet connections %,d fired, %,d of them left out after a stall"
                        + " of 100 ms in their touching, %,d fired again)%n", row, sample, fired.sum(), leftOut,
                        firedAgain.sum());
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // The ways to write an idle timeout.

    /** The connections' idle timeouts, written one way, on one scheduler. */
    private abstract static class Connections implements AutoCloseable {
        /** Connections whose going idle nobody watches. */
        static final IntConsumer IGNORE = i -> { };
        private static final Runnable CLOSE = () -> { }; // a connection that went idle: nothing to close here
        private static final TimerTask CLOSE_TIMEOUT = timeout -> { };

        /**
         * Arms connections 0 to {@code count - 1}, each going idle after {@code idleNanos}
         * untouched, when {@code onIdle} is called with its number on a scheduler thread. They
         * replace the set {@link #touch} works on; an earlier set stays armed, untouched.
         */
        abstract void arm(int count, long idleNanos, IntConsumer onIdle);

        /** A read on connection {@code i}: push its timeout back. Any thread. */
        abstract void touch(int i);

        @Override
        public abstract void close();

        static Runnable task(IntConsumer onIdle, int i) {
            return onIdle == IGNORE ? CLOSE : () -> onIdle.accept(i);
        }

        static TimerTask timerTask(IntConsumer onIdle, int i) {
            return onIdle == IGNORE ? CLOSE_TIMEOUT : timeout -> onIdle.accept(i);
        }
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
        void arm(int count, long idleNanos, IntConsumer onIdle) {
            Rearmable[] armed = new Rearmable[count];
            for (int i = 0; i < count; i++) {
                armed[i] = executor != null
                        ? executor.scheduleRearmable(task(onIdle, i), idleNanos, TimeUnit.NANOSECONDS)
                        : timer.newRearmableTimeout(timerTask(onIdle, i), idleNanos, TimeUnit.NANOSECONDS);
            }
            handles = armed;
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
        private long idleNanos;
        private Runnable[] tasks;
        private AtomicReferenceArray<ScheduledFuture<?>> pending;

        CancelAndSchedule(ScheduledExecutorService executor) {
            this.executor = executor;
        }

        @Override
        void arm(int count, long idleNanos, IntConsumer onIdle) {
            Runnable[] bodies = new Runnable[count];
            AtomicReferenceArray<ScheduledFuture<?>> armed = new AtomicReferenceArray<>(count);
            for (int i = 0; i < count; i++) {
                bodies[i] = task(onIdle, i);
                armed.set(i, executor.schedule(bodies[i], idleNanos, TimeUnit.NANOSECONDS));
            }
            this.idleNanos = idleNanos;
            this.tasks = bodies;
            this.pending = armed;
        }

        @Override
        void touch(int i) {
            ScheduledFuture<?> next = executor.schedule(tasks[i], idleNanos, TimeUnit.NANOSECONDS);
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
        private long idleNanos;
        private TimerTask[] tasks;
        private AtomicReferenceArray<Timeout> pending;

        CancelAndNewTimeout(Timer timer) {
            this.timer = timer;
        }

        @Override
        void arm(int count, long idleNanos, IntConsumer onIdle) {
            TimerTask[] bodies = new TimerTask[count];
            AtomicReferenceArray<Timeout> armed = new AtomicReferenceArray<>(count);
            for (int i = 0; i < count; i++) {
                bodies[i] = timerTask(onIdle, i);
                armed.set(i, timer.newTimeout(bodies[i], idleNanos, TimeUnit.NANOSECONDS));
            }
            this.idleNanos = idleNanos;
            this.tasks = bodies;
            this.pending = armed;
        }

        @Override
        void touch(int i) {
            Timeout next = timer.newTimeout(tasks[i], idleNanos, TimeUnit.NANOSECONDS);
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
        void arm(int count, long idleNanos, IntConsumer onIdle) {
            AtomicLongArray touched = new AtomicLongArray(count);
            long now = System.nanoTime();
            for (int i = 0; i < count; i++) {
                touched.set(i, now);
                timer.newTimeout(new Check(touched, i, idleNanos, onIdle), idleNanos, TimeUnit.NANOSECONDS);
            }
            lastTouch = touched;
        }

        @Override
        void touch(int i) {
            lastTouch.setOpaque(i, System.nanoTime());
        }

        private final class Check implements TimerTask {
            private final AtomicLongArray touched;
            private final int connection;
            private final long idleNanos;
            private final IntConsumer onIdle;

            Check(AtomicLongArray touched, int connection, long idleNanos, IntConsumer onIdle) {
                this.touched = touched;
                this.connection = connection;
                this.idleNanos = idleNanos;
                this.onIdle = onIdle;
            }

            @Override
            public void run(Timeout timeout) {
                long left = touched.getOpaque(connection) + idleNanos - System.nanoTime();
                if (left > 0) {
                    timer.newTimeout(this, left, TimeUnit.NANOSECONDS);
                } else {
                    onIdle.accept(connection);
                }
            }
        }

        @Override
        public void close() {
            timer.stop();
        }
    }
}
