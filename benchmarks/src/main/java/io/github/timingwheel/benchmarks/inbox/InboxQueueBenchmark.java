package io.github.timingwheel.benchmarks.inbox;

import java.util.Queue;
import java.util.concurrent.TimeUnit;
import org.jctools.queues.MpscChunkedArrayQueue;
import org.jctools.queues.atomic.MpscChunkedAtomicArrayQueue;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The executor's inbox alone: the two JCTools builds of the bounded multi-producer queue it
 * uses, {@code MpscChunkedAtomicArrayQueue} (VarHandle/atomic field updaters) against
 * {@code MpscChunkedArrayQueue} (sun.misc.Unsafe), with the inbox's sizes (chunks of 1,024, at
 * most 65,536). Two producers offer while one consumer polls, as producers and the lock holder
 * do; a producer that finds the queue full, and the consumer that finds it empty, go on. The
 * auxiliary counters {@code offered} and {@code polled} count only the operations that moved an
 * element, per microsecond; {@code polled} is the queue's throughput.
 *
 * <p>Run on each JDK: {@code java -jar benchmarks/target/benchmarks.jar InboxQueueBenchmark
 * -f 1 -wi 3 -w 2s -i 5 -r 2s}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Group)
public class InboxQueueBenchmark {

    private static final Object ELEMENT = new Object();

    @Param({"atomic", "unsafe"})
    String build;

    Queue<Object> queue;

    @Setup(Level.Trial)
    public void create() {
        queue = build.equals("atomic")
                ? new MpscChunkedAtomicArrayQueue<>(1024, 65_536)
                : new MpscChunkedArrayQueue<>(1024, 65_536);
    }

    /** Successful operations only, so that a full or empty queue does not inflate the score. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Done {
        public long offered;
        public long polled;
    }

    @Benchmark
    @Group("mpsc")
    @GroupThreads(2)
    public void offer(Done done) {
        if (queue.offer(ELEMENT)) {
            done.offered++;
        }
    }

    @Benchmark
    @Group("mpsc")
    @GroupThreads(1)
    public void poll(Done done, Blackhole hole) {
        Object element = queue.poll();
        if (element != null) {
            done.polled++;
        }
        hole.consume(element);
    }
}
