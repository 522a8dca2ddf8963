package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import io.github.timingwheel.core.TimerNode;
import io.github.timingwheel.core.TimingWheel;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jol.info.ClassLayout;

/**
 * What one schedule+cancel pair costs on one producer thread, broken into the steps of our
 * executor's in-place hot path, beside whole pairs on each subject: the limit a single producer
 * can reach, measured rather than guessed.
 *
 * <p>Every benchmark is one step of the network-timeout pattern (a ring of 1,024 live timers,
 * 10 to 30 s out; each pair cancels the oldest and arms a new one), average time per operation:
 * <ul>
 *   <li>{@link #clockRead}: {@code System.nanoTime()}, once per schedule;
 *   <li>{@link #allocate}: one task object, a {@link TimerNode} with the six fields our
 *       executor's task adds (state, payload, runner, waiters, owner, decorated); the setup
 *       prints its JOL size beside the real task's, so that a difference is visible;
 *   <li>{@link #sequence}: one {@code getAndIncrement} on an uncontended atomic counter, as the
 *       queue-wide sequence took per queued task until per-thread stamps replaced it (kept as
 *       the measure of that step);
 *   <li>{@link #tryLockUnlock}: an uncontended {@code ReentrantLock.tryLock()} and
 *       {@code unlock()}, which schedule and cancel each take once on their shard;
 *   <li>{@link #linkUnlink}: the wheel work of a pair on a {@link TimingWheel} holding the ring:
 *       unlink the oldest node and link it again with a new deadline (no allocation);
 *   <li>{@link #inPlaceModel}: the sum of those steps in the order the executor takes them
 *       (clock, allocation, sequence, lock, link, unlock; lock, unlink, unlock), on one thread,
 *       without the future's state machine, the shard choice or the leader's wake-up;
 *   <li>{@link #wholePair}: the pair through a real subject, {@code subject} one of
 *       {@code wheel-executor} (its default shards), {@code wheel-executor-1shard},
 *       {@code wheel-timer}, {@code netty-hwt-1ms} ({@code newTimeout} + {@code cancel}) and
 *       {@code jdk-stpe} ({@code schedule} + {@code cancel}, with
 *       {@code setRemoveOnCancelPolicy(true)}).
 * </ul>
 * {@code wholePair} less {@code inPlaceModel} is what our executor spends outside the modelled
 * steps (the future, decoration, shard choice, counters, waking the leader).
 *
 * <h2>Caveats</h2>
 * <ul>
 *   <li>Netty's {@code newTimeout} and {@code cancel} only queue the work; its worker does the
 *       rest on another thread. As in {@link ChurnBenchmark}, the producer waits once per lap of
 *       its ring while Netty holds more than {@link ChurnBenchmark#BACKLOG_LIMIT} timers, so its
 *       figure is the pace at which its worker keeps up, which on 2 cores competes with the
 *       producer for the second core (as our executor's leader and the JDK's workers do).
 *   <li>The steps are measured alone, hot in cache; their sum is a floor, not a prediction.
 *   <li>The lock and the counter are uncontended: {@link ChurnBenchmark} gives the contended
 *       picture with 1 to 8 producers.
 * </ul>
 *
 * <p>Run (about 2 minutes on 2 cores):
 * {@code java -jar benchmarks/target/benchmarks.jar PairCostBenchmark -f 1 -wi 2 -w 1s -i 3 -r 2s}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class PairCostBenchmark {

    static final int RING = ChurnBenchmark.RING;

    /** A stand-in for our executor's task: the wheel node plus the task's six fields. */
    static final class TaskLike extends TimerNode {
        volatile int state;
        Object payload;
        volatile Thread runner;
        volatile Object waiters;
        Object owner;
        Object decorated;

        TaskLike(Object owner) {
            this.owner = owner;
        }
    }

    /** The pieces of the modelled hot path, one set per thread. */
    @State(Scope.Thread)
    public static class Steps {
        final ReentrantLock lock = new ReentrantLock();
        final AtomicLong sequences = new AtomicLong();
        final long[] delaysNanos = delays();
        TimingWheel<TaskLike> wheel;
        TaskLike[] ring;
        long origin;
        int next;
        int delayIndex;

        @Setup(Level.Trial)
        public void fill() {
            origin = System.nanoTime();
            wheel = new TimingWheel<>(origin);
            ring = new TaskLike[RING];
            for (int i = 0; i < RING; i++) {
                ring[i] = new TaskLike(this);
                wheel.schedule(ring[i], origin + nextDelay(), sequences.getAndIncrement());
            }
            printSizes();
        }

        long nextDelay() {
            return delaysNanos[delayIndex++ & (delaysNanos.length - 1)];
        }
    }

    /** A real scheduler with a ring of live timers, for {@link #wholePair}. */
    @State(Scope.Thread)
    public static class Subject {
        @Param({"wheel-executor", "wheel-executor-1shard", "wheel-timer", "netty-hwt-1ms", "jdk-stpe"})
        String subject;

        final long[] delaysNanos = delays();
        TimerSubject timers;
        Object[] ring;
        boolean unboundedQueue;
        int next;
        int delayIndex;

        @Setup(Level.Trial)
        public void start() {
            timers = TimerSubject.create(subject);
            unboundedQueue = subject.startsWith("netty-");
            ring = new Object[RING];
            for (int i = 0; i < RING; i++) {
                ring[i] = timers.arm(TimerSubject.NOOP, delaysNanos[delayIndex++ & (delaysNanos.length - 1)]);
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            timers.close();
        }
    }

    @Benchmark
    public long clockRead() {
        return System.nanoTime();
    }

    @Benchmark
    public Object allocate(Steps steps) {
        return new TaskLike(steps);
    }

    @Benchmark
    public long sequence(Steps steps) {
        return steps.sequences.getAndIncrement();
    }

    @Benchmark
    public boolean tryLockUnlock(Steps steps) {
        ReentrantLock lock = steps.lock;
        if (lock.tryLock()) {
            lock.unlock();
            return true;
        }
        return false;
    }

    @Benchmark
    public boolean linkUnlink(Steps steps) {
        int slot = steps.next;
        steps.next = (slot + 1) & (RING - 1);
        TaskLike node = steps.ring[slot];
        boolean cancelled = steps.wheel.cancel(node);
        steps.wheel.schedule(node, steps.origin + steps.nextDelay(), slot);
        return cancelled;
    }

    @Benchmark
    public boolean inPlaceModel(Steps steps) {
        int slot = steps.next;
        steps.next = (slot + 1) & (RING - 1);
        ReentrantLock lock = steps.lock;
        // cancel the oldest: lock, unlink, unlock
        boolean cancelled = false;
        if (lock.tryLock()) {
            try {
                cancelled = steps.wheel.cancel(steps.ring[slot]);
            } finally {
                lock.unlock();
            }
        }
        // schedule a new one: clock, allocation, sequence, lock, link, unlock
        long deadline = System.nanoTime() + steps.nextDelay();
        TaskLike task = new TaskLike(steps);
        long sequence = steps.sequences.getAndIncrement();
        if (lock.tryLock()) {
            try {
                steps.wheel.schedule(task, deadline, sequence);
            } finally {
                lock.unlock();
            }
        }
        steps.ring[slot] = task;
        return cancelled;
    }

    @Benchmark
    public boolean wholePair(Subject subject) {
        int slot = subject.next;
        subject.next = (slot + 1) & (RING - 1);
        TimerSubject timers = subject.timers;
        boolean cancelled = timers.cancel(subject.ring[slot]);
        subject.ring[slot] = timers.arm(TimerSubject.NOOP,
                subject.delaysNanos[subject.delayIndex++ & (subject.delaysNanos.length - 1)]);
        if (slot == RING - 1 && subject.unboundedQueue) {
            while (timers.queued() > ChurnBenchmark.BACKLOG_LIMIT) {
                Thread.yield();
            }
        }
        return cancelled;
    }

    private static long[] delays() {
        SplittableRandom random = new SplittableRandom(7);
        long[] delays = new long[1 << 16];
        for (int i = 0; i < delays.length; i++) {
            delays[i] = random.nextLong(TimeUnit.SECONDS.toNanos(10), TimeUnit.SECONDS.toNanos(30));
        }
        return delays;
    }

    /** Prints the stand-in's size beside the real task's, once per fork. */
    private static void printSizes() {
        try (TimerSubject executor = TimerSubject.create("wheel-executor")) {
            Object task = executor.arm(TimerSubject.NOOP, TimeUnit.HOURS.toNanos(1));
            System.out.printf("%n  instance sizes: %s %d B, stand-in %s %d B%n", task.getClass().getName(),
                    ClassLayout.parseInstance(task).instanceSize(), TaskLike.class.getSimpleName(),
                    ClassLayout.parseClass(TaskLike.class).instanceSize());
            executor.cancel(task);
        }
    }
}
