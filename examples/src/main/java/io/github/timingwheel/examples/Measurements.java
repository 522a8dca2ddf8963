package io.github.timingwheel.examples;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** The two measurements beside the run: heap per pending timer, and CPU while idle. */
final class Measurements {

    /** Timers pending while idle CPU is measured: a handful, far ahead. */
    static final int IDLE_TIMERS = 10;
    static final long IDLE_TIMER_DELAY_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Delays of the timers whose heap is measured: request timeouts that do not fire meanwhile. */
    static final long FOOTPRINT_MIN_DELAY_NANOS = TimeUnit.SECONDS.toNanos(5);
    static final long FOOTPRINT_MAX_DELAY_NANOS = TimeUnit.SECONDS.toNanos(35);

    private Measurements() {
    }

    /**
     * The CPU time the scheduler's threads use over {@code windowNanos} while it holds only
     * {@link #IDLE_TIMERS} timers, all due long after the window.
     */
    static <H> long idleCpuNanos(Subject<H> subject, long windowNanos) {
        Probe.Firings ignored = new Probe.Firings();
        List<H> handles = new ArrayList<>();
        for (int i = 0; i < IDLE_TIMERS; i++) {
            long delay = IDLE_TIMER_DELAY_NANOS + i;
            handles.add(subject.schedule(new Probe(System.nanoTime() + delay, ignored), delay));
        }
        long before = cpuNanos(subject.threads());
        LockSupport.parkNanos(windowNanos); // the measurement window itself
        long used = cpuNanos(subject.threads()) - before;
        handles.forEach(subject::cancel);
        return used;
    }

    private static long cpuNanos(List<Thread> threads) {
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (Thread thread : threads) {
            long nanos = bean.getThreadCpuTime(thread.getId());
            total += Math.max(0L, nanos); // -1 for a thread that has ended
        }
        return total;
    }

    /**
     * The heap that each pending timer keeps: arms {@code timers} timers (delays of 5 to 35 s,
     * one shared body so that only the scheduler's own objects count), compares the heap in use
     * after full collections with the heap before, and cancels them.
     */
    static <H> double bytesPerPendingTimer(Subject<H> subject, int timers, long seed) {
        Probe body = new Probe(Long.MAX_VALUE, new Probe.Firings());
        subject.cancel(subject.schedule(body, FOOTPRINT_MAX_DELAY_NANOS)); // starts lazy threads
        SplittableRandom random = new SplittableRandom(seed);
        List<H> handles = new ArrayList<>(timers); // allocated before the baseline: not counted
        long baseline = heapUsedAfterGc();
        for (int i = 0; i < timers; i++) {
            handles.add(subject.schedule(body,
                    random.nextLong(FOOTPRINT_MIN_DELAY_NANOS, FOOTPRINT_MAX_DELAY_NANOS)));
        }
        long loaded = heapUsedAfterGc();
        handles.forEach(subject::cancel);
        return (double) (loaded - baseline) / timers;
    }

    private static long heapUsedAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
