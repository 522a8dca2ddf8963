package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The network-timeout pattern: each producer thread keeps a ring of 1024 live timers with
 * delays of 10 to 30 s; each operation schedules one and cancels the oldest. The score is
 * schedule+cancel pairs per second, with 1, 2, 4 and 8 producer threads (on a 2-core machine,
 * 4 and 8 show whether a subject collapses when oversubscribed, not how it scales).
 *
 * <p>Subjects, in the same run ({@link TimerSubject#NAMES}): our executor with its default
 * shards ({@code wheel-executor}) and with one shard ({@code wheel-executor-1shard}, every
 * producer on one wheel's lock); the JDK's {@code ScheduledThreadPoolExecutor(2)} with
 * {@code setRemoveOnCancelPolicy(true)}; our Netty {@code Timer}; Netty's
 * {@code HashedWheelTimer} with a 1 ms and with its default 100 ms tick.
 *
 * <p>Netty's producers only add to unbounded queues that its one worker drains, so a producer
 * can run ahead of the work it is timed for. To time Netty at the pace its worker absorbs the
 * pairs, a producer of a Netty subject looks, once per lap of its ring, at the timer's
 * {@code pendingTimeouts()} (which counts a cancelled timeout until the worker removes it) and
 * waits while it exceeds {@value #BACKLOG_LIMIT}; our subjects and the JDK's bound their own
 * backlog (the JDK does the work on the producer's thread, ours in place or through a bounded
 * inbox), so they are not checked (the check would take our shards' locks). The JMH score for
 * Netty is therefore the rate at which its worker keeps up, give or take a backlog of at most
 * {@value #BACKLOG_LIMIT} timers.
 *
 * <p>Run (about 5 minutes on 2 cores):
 * {@code java -jar benchmarks/target/benchmarks.jar ChurnBenchmark -f 1 -wi 2 -w 2s -i 3 -r 2s}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ChurnBenchmark {

    static final int RING = 1024;
    /** The most timers a Netty subject may hold beyond the live rings before producers wait. */
    static final int BACKLOG_LIMIT = 65_536 + 8 * RING;

    /** The scheduler under test, shared by the producer threads. */
    @State(Scope.Benchmark)
    public static class Subject {
        @Param({"wheel-executor", "wheel-executor-1shard", "jdk-stpe",
                "wheel-timer", "netty-hwt-1ms", "netty-hwt-100ms"})
        String scheduler;

        TimerSubject timers;
        /** Whether producers must wait for the worker ({@link ChurnBenchmark}'s javadoc). */
        boolean unboundedQueue;

        @Setup(Level.Trial)
        public void start() {
            timers = TimerSubject.create(scheduler);
            unboundedQueue = scheduler.startsWith("netty-");
        }

        /** Waits while the subject holds more than BACKLOG_LIMIT timers; no-op for bounded subjects. */
        void absorb() {
            if (unboundedQueue) {
                while (timers.queued() > BACKLOG_LIMIT) {
                    Thread.yield();
                }
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            timers.close();
        }
    }

    /** One producer's ring of live timers and its precomputed delays. */
    @State(Scope.Thread)
    public static class Producer {
        final Object[] ring = new Object[RING];
        final long[] delaysNanos = new long[1 << 16];
        int next;
        int delayIndex;

        @Setup(Level.Trial)
        public void fill(Subject subject) {
            SplittableRandom random = new SplittableRandom(System.identityHashCode(this));
            for (int i = 0; i < delaysNanos.length; i++) {
                delaysNanos[i] = random.nextLong(TimeUnit.SECONDS.toNanos(10), TimeUnit.SECONDS.toNanos(30));
            }
            for (int i = 0; i < RING; i++) {
                ring[i] = subject.timers.arm(TimerSubject.NOOP, nextDelay());
            }
        }

        @TearDown(Level.Trial)
        public void drain(Subject subject) {
            for (Object handle : ring) {
                subject.timers.cancel(handle);
            }
        }

        long nextDelay() {
            return delaysNanos[delayIndex++ & (delaysNanos.length - 1)];
        }

        boolean churn(Subject subject) {
            TimerSubject timers = subject.timers;
            int slot = next;
            next = (slot + 1) & (RING - 1);
            boolean cancelled = timers.cancel(ring[slot]);
            ring[slot] = timers.arm(TimerSubject.NOOP, nextDelay());
            if (slot == RING - 1) {
                subject.absorb();
            }
            return cancelled;
        }
    }

    @Benchmark
    @Threads(1)
    public boolean oneProducer(Subject subject, Producer producer) {
        return producer.churn(subject);
    }

    @Benchmark
    @Threads(2)
    public boolean twoProducers(Subject subject, Producer producer) {
        return producer.churn(subject);
    }

    @Benchmark
    @Threads(4)
    public boolean fourProducers(Subject subject, Producer producer) {
        return producer.churn(subject);
    }

    @Benchmark
    @Threads(8)
    public boolean eightProducers(Subject subject, Producer producer) {
        return producer.churn(subject);
    }
}
