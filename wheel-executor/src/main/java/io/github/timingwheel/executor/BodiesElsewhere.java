package io.github.timingwheel.executor;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The threads of a task executor that run bodies of one {@link WheelScheduledExecutor} now, so
 * that its {@code shutdownNow()} interrupts them as it interrupts its workers, which a body run
 * elsewhere does not hold.
 */
final class BodiesElsewhere {

    /*
     * Implementation notes
     *
     * [1] No body starts uninterrupted after shutdownNow: run() adds its thread, then reads
     *     'stopped'; shutdownNow writes 'stopped' (volatile), then reads the set. Each side
     *     writes, then reads what the other writes, so at least one of them sees the other:
     *     the body interrupts itself, or shutdownNow finds its thread and interrupts it, as
     *     ThreadPoolExecutor's runWorker interrupts a worker that takes a task after STOP.
     * [2] The interrupt is the executor's, not the task executor's: once the body ends, a
     *     stopping executor clears it, so that it does not reach the next task of a pooled task
     *     executor (a virtual thread per task ends anyway).
     */

    /** Threads in a body now: added and removed by each of them, read by shutdownNow. */
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();
    /** Set once by shutdownNow ([1]). */
    private volatile boolean stopped;

    /** Runs {@code task}'s body on the calling thread of the task executor ([1], [2]). */
    void run(ScheduledTask<?> task) {
        Thread self = Thread.currentThread();
        running.add(self);
        try {
            if (stopped) {
                self.interrupt();
            }
            task.runBody();
        } finally {
            running.remove(self);
            if (stopped) {
                Thread.interrupted(); // [2]
            }
        }
    }

    /** Interrupts every body running now, and every one that starts from now on ([1]). */
    void stop() {
        stopped = true;
        for (Thread thread : running) {
            thread.interrupt();
        }
    }
}
