package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.Summary;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * How steady the machine is while a scenario runs: a fixed single-threaded workload (pointer
 * chasing over 16 MB, so it feels both the CPU and the memory system) timed before and after,
 * and the system load average. A spread of a few percent is a quiet machine; tens of percent
 * means another process, a noisy neighbour or frequency scaling, and the scenario's spread
 * should be read against it.
 */
final class MachineNoise {

    private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();
    private static final int SLOTS = 1 << 22; // 4 M ints, 16 MB
    private static final int STEPS = 2_000_000;

    private final int[] cycle = randomCycle();
    private final List<Double> millis = new ArrayList<>();
    private double loadBefore = Double.NaN;
    private double loadAfter = Double.NaN;
    /** Where each chase's end lands, so that the JIT cannot drop the chase as dead code. */
    private static volatile int chaseEnd;

    /** Times the workload {@code times} times; the first call also reads the load average. */
    void sample(int times) {
        if (millis.isEmpty()) {
            loadBefore = OS.getSystemLoadAverage();
        } else {
            loadAfter = OS.getSystemLoadAverage();
        }
        for (int i = 0; i < times; i++) {
            long start = System.nanoTime();
            chaseEnd = chase();
            millis.add((System.nanoTime() - start) / 1e6);
        }
    }

    private int chase() {
        int at = 0;
        for (int i = 0; i < STEPS; i++) {
            at = cycle[at];
        }
        return at;
    }

    /** A line such as "noise: 21 ms per calibration run, spread 3.2% (6 runs); load 0.4 -> 2.1". */
    String summary() {
        double[] sorted = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double median = Summary.median(sorted);
        double spread = sorted.length == 0 ? Double.NaN : (sorted[sorted.length - 1] - sorted[0]) / median * 100;
        return String.format("machine noise: calibration %.0f ms median, spread %.1f%% over %d runs;"
                        + " load average %.2f -> %.2f (%d CPUs)",
                median, spread, sorted.length, loadBefore, loadAfter, OS.getAvailableProcessors());
    }

    /** A single random cycle through every slot (Sattolo's algorithm), so the chase visits all. */
    private static int[] randomCycle() {
        int[] order = new int[SLOTS];
        for (int i = 0; i < SLOTS; i++) {
            order[i] = i;
        }
        SplittableRandom random = new SplittableRandom(1);
        for (int i = SLOTS - 1; i > 0; i--) {
            int j = random.nextInt(i);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        int[] next = new int[SLOTS];
        for (int i = 0; i < SLOTS; i++) {
            next[order[i]] = order[(i + 1) % SLOTS];
        }
        return next;
    }
}
