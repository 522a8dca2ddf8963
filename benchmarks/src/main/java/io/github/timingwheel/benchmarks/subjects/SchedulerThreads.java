package io.github.timingwheel.benchmarks.subjects;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A thread factory that keeps the scheduler threads it made, to read what they cost: their CPU
 * time, and on Linux their voluntary context switches (each time a thread gave up the CPU to
 * wait: a park that slept, a blocked lock, a sleep), which any scheduler has, whether or not it
 * counts its own wake-ups. Daemon threads, each with a name no other factory gives (the kernel
 * keeps the first 15 characters, by which the switches are found).
 */
public final class SchedulerThreads implements ThreadFactory {

    private static final AtomicInteger FACTORIES = new AtomicInteger();
    private static final Path TASKS = Path.of("/proc/self/task");

    private final String prefix;
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final ThreadMXBean bean = ManagementFactory.getThreadMXBean();

    /** @param prefix a few letters: names are {@code <prefix><factory>-<thread>} */
    public SchedulerThreads(String prefix) {
        this.prefix = prefix + FACTORIES.incrementAndGet() + "-";
    }

    @Override
    public Thread newThread(Runnable runnable) {
        Thread thread = new Thread(runnable, prefix + threads.size());
        thread.setDaemon(true);
        threads.add(thread);
        return thread;
    }

    /**
     * Counts {@code thread}, made by another factory (a {@code ForkJoinPool}'s workers), as one
     * of this factory's, and gives it a name of this factory's; call it before it starts.
     */
    public void adopt(Thread thread) {
        thread.setName(prefix + threads.size());
        threads.add(thread);
    }

    /** The CPU time of every thread made so far, in nanoseconds (a thread that ended counts 0). */
    public long cpuNanos() {
        long sum = 0;
        for (Thread thread : threads) {
            long cpu = bean.getThreadCpuTime(thread.getId());
            sum += Math.max(0L, cpu);
        }
        return sum;
    }

    /**
     * The voluntary context switches of the live threads made so far, from
     * {@code /proc/self/task/<tid>/status}, the thread found by its name in {@code comm}; -1
     * where that cannot be read (not Linux). Threads made later count from 0, threads that ended
     * drop out: read it while the scheduler runs, and its thread set does not change.
     */
    public long voluntaryContextSwitches() {
        if (!Files.isDirectory(TASKS)) {
            return -1L;
        }
        long sum = 0;
        int found = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                String comm;
                try {
                    comm = Files.readString(task.resolve("comm")).trim();
                } catch (IOException ended) {
                    continue; // a thread that ended while we looked
                }
                if (!comm.startsWith(prefix) || !isOurs(comm)) {
                    continue;
                }
                for (String line : Files.readAllLines(task.resolve("status"))) {
                    if (line.startsWith("voluntary_ctxt_switches:")) {
                        sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        found++;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1L;
        }
        return found == 0 && !threads.isEmpty() ? -1L : sum;
    }

    private boolean isOurs(String comm) {
        for (Thread thread : threads) {
            String name = thread.getName();
            if (name.substring(0, Math.min(15, name.length())).equals(comm) && thread.isAlive()) {
                return true;
            }
        }
        return false;
    }
}
