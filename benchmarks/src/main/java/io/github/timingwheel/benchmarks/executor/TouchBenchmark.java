package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.executor.RearmableFuture;
import io.github.timingwheel.executor.RearmableTimeout;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of pushing an idle timeout back, one thread, one timeout: a touch of our re-armable
 * timeouts (executor and timer) against a cancel plus a new schedule on ours and on the JDK's
 * executor. With {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes allocated per touch:
 * 0 for the touches, a task (and, on the JDK, its heap slot) per cancel+schedule.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar TouchBenchmark -prof gc -f 1 -wi 3 -w 1s -i 3 -r 1s}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Thread)
public class TouchBenchmark {

    private static final long IDLE_SECONDS = 30L;
    private static final Runnable CLOSE = () -> { };

    private WheelScheduledExecutor executor;
    private WheelTimer timer;
    private ScheduledThreadPoolExecutor jdk;
    private RearmableFuture<Void> rearmable;
    private RearmableTimeout rearmableTimeout;
    private ScheduledFuture<?> ours;
    private ScheduledFuture<?> theirs;

    @Setup(Level.Trial)
    public void start() {
        executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        timer = WheelTimer.builder().daemon(true).build();
        jdk = new ScheduledThreadPoolExecutor(1);
        jdk.setRemoveOnCancelPolicy(true);
        rearmable = executor.scheduleRearmable(CLOSE, IDLE_SECONDS, TimeUnit.SECONDS);
        rearmableTimeout = timer.newRearmableTimeout(t -> { }, IDLE_SECONDS, TimeUnit.SECONDS);
        ours = executor.schedule(CLOSE, IDLE_SECONDS, TimeUnit.SECONDS);
        theirs = jdk.schedule(CLOSE, IDLE_SECONDS, TimeUnit.SECONDS);
    }

    @TearDown(Level.Trial)
    public void stop() {
        executor.shutdownNow();
        timer.stop();
        jdk.shutdownNow();
    }

    @Benchmark
    public boolean touchExecutor() {
        return rearmable.touch();
    }

    @Benchmark
    public boolean touchTimer() {
        return rearmableTimeout.touch();
    }

    @Benchmark
    public ScheduledFuture<?> cancelAndScheduleOurs() {
        ours.cancel(false);
        ours = executor.schedule(CLOSE, IDLE_SECONDS, TimeUnit.SECONDS);
        return ours;
    }

    @Benchmark
    public ScheduledFuture<?> cancelAndScheduleJdk() {
        theirs.cancel(false);
        theirs = jdk.schedule(CLOSE, IDLE_SECONDS, TimeUnit.SECONDS);
        return theirs;
    }
}
