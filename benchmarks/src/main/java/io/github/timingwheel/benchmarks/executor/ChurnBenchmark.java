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
 * schedule+cancel pairs per second, per producer count.
 *
 * <p>Subjects, in the same run ({@link TimerSubject#NAMES}): our executor with the lock-free
 * inbox ({@code wheel-executor}) and with producers inserting under the wheel's lock
 * ({@code wheel-executor-1shard}, every task in one wheel); the JDK's
 * {@code ScheduledThreadPoolExecutor(2)} with {@code setRemoveOnCancelPolicy(true)}; our Netty
 * {@code Timer}; Netty's {@code HashedWheelTimer} with a 1 ms and with its default 100 ms tick.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ChurnBenchmark -f 1 -wi 3 -w 2s -i 5 -r 2s}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ChurnBenchmark {

    static final int RING = 1024;

    /** The scheduler under test, shared by the producer threads. */
    @State(Scope.Benchmark)
    public static class Subject {
        @Param({"wheel-executor", "wheel-executor-1shard", "jdk-stpe",
                "wheel-timer", "netty-hwt-1ms", "netty-hwt-100ms"})
        String scheduler;

        TimerSubject timers;

        @Setup(Level.Trial)
        public void start() {
            timers = TimerSubject.create(scheduler);
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

        boolean churn(TimerSubject timers) {
            int slot = next;
            next = (slot + 1) & (RING - 1);
            boolean cancelled = timers.cancel(ring[slot]);
            ring[slot] = timers.arm(TimerSubject.NOOP, nextDelay());
            return cancelled;
        }
    }

    @Benchmark
    @Threads(1)
    public boolean oneProducer(Subject subject, Producer producer) {
        return producer.churn(subject.timers);
    }

    @Benchmark
    @Threads(2)
    public boolean twoProducers(Subject subject, Producer producer) {
        return producer.churn(subject.timers);
    }
}
