package io.github.timingwheel.benchmarks.scenarios;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * The collectors' accumulated collection time, so that a scenario can say how much of a window
 * the JVM spent collecting: a young pause that evacuates a million pending timers stops every
 * subject for tens of milliseconds, and a round it lands in reads as late whatever the subject.
 * Also their count of collections, by which the runner sees one happen ({@link FreshEden}).
 */
final class GcTime {

    private GcTime() {
    }

    /** Milliseconds spent collecting so far, over every collector (G1: its pauses). */
    static long totalMillis() {
        long total = 0;
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0L, collector.getCollectionTime());
        }
        return total;
    }

    /** Collections so far, over every collector. */
    static long collections() {
        long total = 0;
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0L, collector.getCollectionCount());
        }
        return total;
    }
}
