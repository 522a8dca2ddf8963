package io.github.timingwheel.benchmarks.subjects;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/** Heap in use after full collections: the retained size of what is still reachable. */
public final class HeapMeter {

    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private HeapMeter() {
    }

    /** Collects until the used heap stops shrinking (at most a few rounds) and returns it. */
    public static long retainedBytes() throws InterruptedException {
        long previous = Long.MAX_VALUE;
        long used = usedAfterGc();
        for (int round = 0; round < 5 && used < previous; round++) {
            previous = used;
            used = usedAfterGc();
        }
        return Math.min(previous, used);
    }

    private static long usedAfterGc() throws InterruptedException {
        System.gc();
        Thread.sleep(50); // let reference processing and concurrent phases settle
        return MEMORY.getHeapMemoryUsage().getUsed();
    }
}
