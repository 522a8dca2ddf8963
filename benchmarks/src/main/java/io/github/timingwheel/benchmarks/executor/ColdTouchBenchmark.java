package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.benchmarks.core.TimingWheelBenchmark;
import io.github.timingwheel.executor.RearmableFuture;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a touch of one of very many idle timeouts costs when its handle is not in the cache,
 * as in the idle scenario (a million connections touched at random), and why: the touch's CAS
 * against a plain store of the same time into objects of the same size and spread.
 *
 * <p>Each operation picks the next handle from a shuffled order (the order's array is read in
 * sequence, so the prefetcher hides it) and writes {@code System.nanoTime()} plus a timeout
 * into it:
 * <ul>
 *   <li>{@code touch}: {@link RearmableFuture#touch()} of our executor's re-armable timeouts;
 *   <li>{@code cellCas}: the same read and CAS on a 64-byte object of our own (what the touch
 *       does, without the executor around it);
 *   <li>{@code cellStore}: a plain ({@code setOpaque}) store into it, what a hand-written lazy
 *       idle check ({@code IdleStateHandler}'s pattern) does per read.
 * </ul>
 * On x86 a CAS is a locked instruction: it waits for its own cache miss and keeps later loads
 * from starting, so touches of cold handles run one miss at a time; stores retire into the
 * store buffer and many misses overlap. {@code handles} of 1,024 shows the cost when the
 * handles are in the cache.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ColdTouchBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
@State(Scope.Thread)
public class ColdTouchBenchmark {

    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    @Param({"1024", "1000000"})
    int handles;

    private WheelScheduledExecutor executor;
    private RearmableFuture<?>[] timeouts;
    private Cell[] cells;
    private int[] order;
    private int next;

    @Setup(Level.Trial)
    public void start() {
        executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        timeouts = new RearmableFuture<?>[handles];
        cells = new Cell[handles];
        for (int i = 0; i < handles; i++) { // made in turn, as connections are: neighbours in memory
            timeouts[i] = executor.scheduleRearmable(() -> { }, 30, TimeUnit.SECONDS);
            cells[i] = new Cell();
        }
        order = TimingWheelBenchmark.permutation(handles, new SplittableRandom(42));
    }

    @TearDown(Level.Trial)
    public void stop() {
        executor.shutdownNow();
    }

    private int nextIndex() {
        int i = next;
        next = i + 1 == handles ? 0 : i + 1;
        return order[i];
    }

    @Benchmark
    public boolean touch() {
        return timeouts[nextIndex()].touch();
    }

    @Benchmark
    public boolean cellCas() {
        return cells[nextIndex()].moveTo(System.nanoTime() + TIMEOUT_NANOS);
    }

    @Benchmark
    public void cellStore() {
        cells[nextIndex()].store(System.nanoTime() + TIMEOUT_NANOS);
    }

    /** A 64-byte object with one hot long, as a task is with its armed deadline. */
    static final class Cell {
        private volatile long deadline;
        long p1, p2, p3, p4, p5;

        boolean moveTo(long target) {
            for (;;) {
                long seen = deadline;
                if (seen < 0L || seen == target) {
                    return seen >= 0L;
                }
                if (DEADLINE.compareAndSet(this, seen, target)) {
                    return true;
                }
            }
        }

        void store(long target) {
            DEADLINE.setOpaque(this, target);
        }

        private static final VarHandle DEADLINE;

        static {
            try {
                DEADLINE = MethodHandles.lookup().findVarHandle(Cell.class, "deadline", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }
}
