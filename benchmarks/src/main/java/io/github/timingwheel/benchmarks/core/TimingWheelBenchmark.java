package io.github.timingwheel.benchmarks.core;

import io.github.timingwheel.core.ManualTimeSource;
import io.github.timingwheel.core.TimerNode;
import io.github.timingwheel.core.TimingWheel;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one {@link TimingWheel} operation with 1 thousand and with 10 million nodes
 * pending, to show whether it grows with the number pending (the design asks that schedule and
 * cancel do not).
 *
 * <p>Run it (after {@code mvn -B -q -pl benchmarks -am package -DskipTests}):
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar TimingWheelBenchmark -f 1 -wi 3 -w 2s -i 5 -r 2s
 * </pre>
 * Add {@code -p pending=10000000} for one size only, {@code -prof gc} to confirm that no measured
 * operation allocates, {@code -bm sample} on {@code advance} to see the latency of single steps.
 *
 * <h2>What each benchmark measures</h2>
 * All times are wheel times from a fixed origin and every input comes from arrays filled in
 * {@code @Setup} from a fixed seed, so runs are deterministic. The wheel has the default shape
 * (1 ms tick, 4 levels of 256 slots). No measured operation allocates.
 * <ul>
 *   <li>{@link #schedule}: one {@code schedule} of a spare node, deadline 1 to 60 minutes ahead.
 *       Measured in batches of {@value #BATCH} (one JMH invocation); a per-invocation teardown,
 *       not measured, cancels the batch again, so pending moves between N and N + {@value #BATCH}.
 *   <li>{@link #cancel}: one {@code cancel} of a pending node picked at random (a walk over a
 *       shuffled permutation of all N). Measured in batches of {@value #BATCH}; a teardown, not
 *       measured, schedules the batch again with fresh deadlines, so pending moves between
 *       N - {@value #BATCH} and N. At 10 million the node and its two list neighbours are almost
 *       never in cache, so this is a cold cancel: mostly three cache misses.
 *   <li>{@link #scheduleThenCancel}: schedule one spare node, then cancel it: the pattern of a
 *       request timeout that is armed and disarmed at once. Pending moves between N and N + 1.
 *       No per-invocation fixture, so it also cross-checks the two batched figures.
 *   <li>{@link #cancelThenReschedule}: cancel a random pending node and schedule it again with
 *       a fresh deadline (a lease renewed, an idle timeout reset). Pending stays at N.
 *   <li>{@link #advance}: one step of a driver in steady state. The time source moves by
 *       {@value #STEP_MILLIS} ms (one tick), the wheel is polled until nothing is due, and
 *       each node that fired is scheduled again 1 to 60 minutes ahead, so pending stays at N.
 *       Every node keeps being renewed, so the wheel holds a stationary mix of deadlines: the
 *       fill in setup draws each first deadline from the stationary residual-life distribution
 *       of that renewal process, so no warm-up transient (a minute with nothing due) is measured.
 *       With delays uniform in [1, 60] min (mean 30.5 min) about {@code N * 1 ms / 30.5 min}
 *       nodes fire per step: 0.00055 at 1 thousand pending, 5.5 at 10 million. So the per-step
 *       score grows with N by construction; the auxiliary counter {@code fired} (shown in
 *       AverageTime mode as time per fired node) divides the same time by the nodes fired,
 *       and is the figure to compare: poll and re-schedule of one node, plus its share of the
 *       cascades. A renewed node lands in level 3 or 2 (60 minutes is 3.6 million 1 ms ticks)
 *       and moves down once per level, so up to four list moves before it reaches the due heap.
 *       Cascades are spread out: while one level-3 slot passes (262,144 steps, 4.4 minutes of
 *       wheel time), the next one, about 14% of all pending nodes (1.4 million at 10 million
 *       pending), moves down a share per step, about 5 nodes, rather than all in the step at
 *       its start; {@code -bm sample} shows the steps. At 10 million, {@code -r 20s} or more
 *       still gives a steadier average.
 * </ul>
 *
 * <h2>Caveats</h2>
 * <ul>
 *   <li>Single-threaded: the wheel is confined to one thread by contract; contention and the
 *       hand-off into the wheel are the executor's business and are not measured here.
 *   <li>Batched figures include JMH's per-invocation timestamps (tens of ns per {@value #BATCH}
 *       operations, well under 1%) and run after a teardown that touched the same nodes.
 *   <li>At 10 million pending the nodes take 400 MB: differences between the sizes are mostly
 *       cache and TLB misses (a dependent load that misses costs some 200 to 300 ns on a
 *       virtual machine), not extra steps of the algorithm. Nodes are scheduled in an order
 *       unrelated to their addresses, as in a heap that has run for a while, so list neighbours
 *       are not neighbours in memory.
 *   <li>The collector matters at 10 million: with G1 (the default) every link store between
 *       old nodes in different heap regions takes G1's post-write-barrier slow path (dirty
 *       card, refinement, remembered-set update), which makes a cold cancel and a cascade move
 *       many times dearer than with Parallel GC. Compare with
 *       {@code -jvmArgsAppend "-Xms6g -Xmx6g -XX:+UseParallelGC"} (on the command line this
 *       replaces the annotation's JVM arguments, so repeat the heap size).
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms6g", "-Xmx6g"})
public class TimingWheelBenchmark {

    /** Operations per invocation of the batched benchmarks. */
    static final int BATCH = 256;
    /** How far {@link #advance} moves the time source per operation. */
    static final int STEP_MILLIS = 1;

    static final long MIN_DELAY_NANOS = TimeUnit.MINUTES.toNanos(1);
    static final long MAX_DELAY_NANOS = TimeUnit.MINUTES.toNanos(60);
    /** Size of the precomputed delay table, a power of two; read with a wrapping cursor. */
    static final int DELAYS = 1 << 16;
    static final long SEED = 0x5DEECE66DL;

    /** The node type the benchmarks schedule: a bare {@link TimerNode}, 40 bytes. */
    static final class Node extends TimerNode {
    }

    // -------------------------------------------------------------------------------------------
    // States.

    /** Delays uniform in [1, 60] minutes, in nanoseconds, from a fixed seed. */
    static long[] delayTable(SplittableRandom random) {
        long[] delays = new long[DELAYS];
        for (int i = 0; i < DELAYS; i++) {
            delays[i] = random.nextLong(MIN_DELAY_NANOS, MAX_DELAY_NANOS + 1);
        }
        return delays;
    }

    static Node[] allocate(int count) {
        Node[] nodes = new Node[count];
        for (int i = 0; i < count; i++) {
            nodes[i] = new Node();
        }
        return nodes;
    }

    /** A random permutation of 0..count-1 (Fisher-Yates); other benchmarks use it too. */
    public static int[] permutation(int count, SplittableRandom random) {
        int[] order = new int[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        for (int i = count - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        return order;
    }

    /**
     * A wheel at time 0 holding {@code pending} nodes due 1 to 60 minutes ahead, a shuffled
     * permutation of them for random picks, and a table of fresh delays.
     */
    @State(Scope.Thread)
    public static class Filled {
        @Param({"1000", "10000000"})
        int pending;

        TimingWheel<Node> wheel;
        Node[] nodes;
        /** A random permutation of 0..pending-1: the order in which nodes are picked. */
        int[] order;
        int orderCursor;
        long[] delays;
        int delayCursor;

        @Setup(Level.Trial)
        public void fill() {
            SplittableRandom random = new SplittableRandom(SEED);
            delays = delayTable(random);
            wheel = new TimingWheel<>(0L);
            nodes = allocate(pending);
            // Scheduled in an order unrelated to their addresses, as in a heap that has run for
            // a while; then picked in another random order.
            for (int i : permutation(pending, random)) {
                wheel.schedule(nodes[i], random.nextLong(MIN_DELAY_NANOS, MAX_DELAY_NANOS + 1));
            }
            order = permutation(pending, random);
        }

        /** The next fresh deadline; time stays at 0 in these benchmarks. */
        final long nextDeadline() {
            return delays[delayCursor++ & (DELAYS - 1)];
        }

        /** The next pending node in random order. */
        final Node nextRandomNode() {
            Node node = nodes[order[orderCursor]];
            if (++orderCursor == pending) {
                orderCursor = 0;
            }
            return node;
        }

        @TearDown(Level.Trial)
        public void check() {
            if (wheel.size() != pending) {
                throw new IllegalStateException("pending drifted: " + wheel.size() + " != " + pending);
            }
        }
    }

    /** {@link Filled} plus one spare node for the schedule-then-cancel pair. */
    @State(Scope.Thread)
    public static class FilledWithSpare extends Filled {
        final Node spare = new Node();
    }

    /** {@link Filled} plus {@value #BATCH} spare nodes, cancelled after each batch (not timed). */
    @State(Scope.Thread)
    public static class ScheduleBatch extends Filled {
        final Node[] spares = new Node[BATCH];

        @Setup(Level.Trial)
        public void allocateSpares() {
            for (int i = 0; i < BATCH; i++) {
                spares[i] = new Node();
            }
        }

        @TearDown(Level.Invocation)
        public void cancelSpares() {
            for (Node spare : spares) {
                wheel.cancel(spare);
            }
        }
    }

    /** {@link Filled} that picks {@value #BATCH} victims per batch and reschedules them after. */
    @State(Scope.Thread)
    public static class CancelBatch extends Filled {
        final Node[] victims = new Node[BATCH];

        @Setup(Level.Invocation)
        public void pickVictims() {
            for (int i = 0; i < BATCH; i++) {
                victims[i] = nextRandomNode();
            }
        }

        @TearDown(Level.Invocation)
        public void rescheduleVictims() {
            for (Node victim : victims) {
                wheel.schedule(victim, nextDeadline());
            }
        }
    }

    /**
     * A wheel driven by a {@link ManualTimeSource}, filled with {@code pending} nodes whose
     * deadlines follow the stationary distribution of "renew 1 to 60 minutes ahead on firing".
     */
    @State(Scope.Thread)
    public static class Renewing {
        @Param({"1000", "10000000"})
        int pending;

        final ManualTimeSource time = new ManualTimeSource(0L);
        final long stepNanos = TimeUnit.MILLISECONDS.toNanos(STEP_MILLIS);
        TimingWheel<Node> wheel;
        long[] delays;
        int delayCursor;

        @Setup(Level.Trial)
        public void fill() {
            SplittableRandom random = new SplittableRandom(SEED);
            delays = delayTable(random);
            wheel = new TimingWheel<>(time.nanoTime());
            Node[] nodes = allocate(pending);
            for (int i : permutation(pending, random)) { // see Filled.fill
                wheel.schedule(nodes[i], stationaryResidual(random));
            }
        }

        /**
         * Time to the next firing, seen at a random moment, of a node renewed with delays D
         * uniform in [1, 60] min: the interval covering that moment is length-biased (density
         * proportional to d), and the moment is uniform within it.
         */
        static long stationaryResidual(SplittableRandom random) {
            while (true) {
                long d = random.nextLong(MIN_DELAY_NANOS, MAX_DELAY_NANOS + 1);
                if (random.nextDouble() * MAX_DELAY_NANOS < d) {
                    return (long) (random.nextDouble() * d);
                }
            }
        }

        @TearDown(Level.Trial)
        public void check() {
            if (wheel.size() != pending) {
                throw new IllegalStateException("pending drifted: " + wheel.size() + " != " + pending);
            }
        }
    }

    /**
     * Nodes fired by {@link #advance}. An OPERATIONS counter is normalised like the primary
     * score, so in AverageTime mode JMH reports it as time per fired node.
     */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Fired {
        public long fired;

        @Setup(Level.Iteration)
        public void reset() {
            fired = 0;
        }
    }

    // -------------------------------------------------------------------------------------------
    // Benchmarks.

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void schedule(ScheduleBatch s) {
        TimingWheel<Node> wheel = s.wheel;
        Node[] spares = s.spares;
        for (int i = 0; i < BATCH; i++) {
            wheel.schedule(spares[i], s.nextDeadline());
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int cancel(CancelBatch s) {
        TimingWheel<Node> wheel = s.wheel;
        Node[] victims = s.victims;
        int cancelled = 0;
        for (int i = 0; i < BATCH; i++) {
            if (wheel.cancel(victims[i])) {
                cancelled++;
            }
        }
        return cancelled;
    }

    @Benchmark
    public boolean scheduleThenCancel(FilledWithSpare s) {
        s.wheel.schedule(s.spare, s.nextDeadline());
        return s.wheel.cancel(s.spare);
    }

    @Benchmark
    public Node cancelThenReschedule(Filled s) {
        Node node = s.nextRandomNode();
        s.wheel.cancel(node);
        s.wheel.schedule(node, s.nextDeadline());
        return node;
    }

    @Benchmark
    public int advance(Renewing s, Fired counter) {
        TimingWheel<Node> wheel = s.wheel;
        long now = s.time.advanceNanos(s.stepNanos);
        int fired = 0;
        for (Node node = wheel.poll(now); node != null; node = wheel.poll(now)) {
            wheel.schedule(node, wheel.deadlineAfter(now, s.delays[s.delayCursor++ & (DELAYS - 1)]));
            fired++;
        }
        counter.fired += fired;
        return fired;
    }
}
