package io.github.timingwheel.benchmarks.core;

import io.github.timingwheel.benchmarks.subjects.HeapMeter;
import io.github.timingwheel.core.TimerNode;
import io.github.timingwheel.core.TimingWheel;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jol.info.ClassLayout;

/**
 * Retained heap bytes per pending task in a {@link TimingWheel}, at 1 thousand, 1 million and
 * 10 million pending, and what is still retained once every task has been cancelled. Not a JMH
 * benchmark: a plain program that reads the heap after full collections.
 *
 * <p>Run it (after {@code mvn -B -q -pl benchmarks -am package -DskipTests}):
 * <pre>
 * java -Xmx8g -cp benchmarks/target/benchmarks.jar io.github.timingwheel.benchmarks.core.RetainedBytes
 * </pre>
 *
 * <h2>Method</h2>
 * For each count: allocate the holder array (it stays in the baseline), create the wheel, read
 * the baseline; create {@code count} {@link Task}s, each scheduled 1 to 60 minutes ahead, read
 * again: (filled - baseline) / count is the retained size of one pending task, node included.
 * Then cancel every task and clear the holder array: whatever the wheel still keeps alive shows
 * as (cancelled - baseline) / count, which should be about 0 (the wheel unlinks at once). Each
 * reading is the heap in use after full collections, repeated until it stops shrinking
 * ({@link HeapMeter}, as the scenarios read it).
 *
 * <h2>Caveats</h2>
 * <ul>
 *   <li>{@code System.gc()} must not be disabled ({@code -XX:+DisableExplicitGC}) and must be a
 *       full collection (the default for G1, Parallel and Serial).
 *   <li>A reading can be off by a few hundred kilobytes (collector bookkeeping), a fraction of
 *       a byte per task at 1 million and more. A silent first round keeps one-time allocations
 *       (class initialisation, the first string concatenation) out of the measured rounds.
 *   <li>The sizes depend on the JVM's object layout (compressed references, header size):
 *       the JOL layouts printed first say which one applies.
 * </ul>
 */
public final class RetainedBytes {

    private RetainedBytes() {
    }

    /**
     * A task as a user would write it: the node plus one payload reference. With compressed
     * references, 40 bytes of {@link TimerNode} plus 4, aligned to 48.
     */
    static final class Task extends TimerNode {
        final Runnable action;

        Task(Runnable action) {
            this.action = action;
        }
    }

    private static final Runnable NOTHING = () -> { };
    private static final int[] COUNTS = {1_000, 1_000_000, 10_000_000};

    public static void main(String[] args) throws InterruptedException {
        describeJvm();
        System.out.println(ClassLayout.parseClass(TimerNode.class).toPrintable());
        System.out.println(ClassLayout.parseClass(Task.class).toPrintable());
        long nodeSize = ClassLayout.parseClass(TimerNode.class).instanceSize();
        long taskSize = ClassLayout.parseClass(Task.class).instanceSize();
        System.out.printf("JOL instance size: TimerNode %d bytes, %s %d bytes%n%n",
                nodeSize, Task.class.getSimpleName(), taskSize);

        System.out.printf("%12s %16s %16s %16s %18s%n", "pending", "retained bytes",
                "bytes/task", "beyond the Task", "after cancel/task");
        // A silent first round, so that one-time allocations (class initialisation, the first
        // string concatenation's bootstrap) do not land between a baseline and its reading.
        measure(COUNTS[0], taskSize, false);
        for (int count : COUNTS) {
            measure(count, taskSize, true);
        }
    }

    private static void measure(int count, long taskSize, boolean print) throws InterruptedException {
        SplittableRandom random = new SplittableRandom(42);
        long minDelay = TimeUnit.MINUTES.toNanos(1);
        long maxDelay = TimeUnit.MINUTES.toNanos(60);

        Task[] tasks = new Task[count];
        TimingWheel<Task> wheel = new TimingWheel<>(0L);
        long baseline = HeapMeter.retainedBytes();

        for (int i = 0; i < count; i++) {
            Task task = new Task(NOTHING);
            tasks[i] = task;
            wheel.schedule(task, random.nextLong(minDelay, maxDelay + 1));
        }
        long filled = HeapMeter.retainedBytes();
        if (wheel.size() != count) {
            throw new IllegalStateException("size after fill: " + wheel.size());
        }

        for (Task task : tasks) {
            if (!wheel.cancel(task)) {
                throw new IllegalStateException("cancel failed: " + task);
            }
        }
        Arrays.fill(tasks, null);
        long cancelled = HeapMeter.retainedBytes();
        if (!wheel.isEmpty()) {
            throw new IllegalStateException("size after cancel: " + wheel.size());
        }
        Reference.reachabilityFence(wheel);
        Reference.reachabilityFence(tasks);
        if (!print) {
            return;
        }
        double perTask = (double) (filled - baseline) / count;
        System.out.printf("%,12d %,16d %16.2f %16.2f %18.3f%n", count, filled - baseline, perTask,
                perTask - taskSize, (double) (cancelled - baseline) / count);
    }

    private static void describeJvm() {
        Runtime runtime = Runtime.getRuntime();
        System.out.printf("JVM: %s %s, max heap %,d MB, GC: %s%n",
                System.getProperty("java.vm.name"), System.getProperty("java.vm.version"),
                runtime.maxMemory() >> 20,
                ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .map(GarbageCollectorMXBean::getName).toList());
        System.out.println(ManagementFactory.getRuntimeMXBean().getInputArguments());
        System.out.println();
    }
}
