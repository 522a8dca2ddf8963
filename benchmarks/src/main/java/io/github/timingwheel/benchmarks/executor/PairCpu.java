package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.benchmarks.subjects.SchedulerThreads;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * CPU time per schedule+cancel pair, the network-timeout pattern (each producer keeps 1,024
 * live timers of 10-30 s and cancels the oldest as it arms a new one), summed over the
 * producers and the scheduler's workers: what a pair costs the machine, wherever the work runs.
 *
 * <p>Thread CPU time moves much less with the machine's load than wall time does, so two
 * builds can be compared on a busy machine: run this class against each build's jars, one
 * after the other, several rounds each (the first rounds warm the JIT). Wall-clock pairs per
 * second are printed too, but on a loaded machine they say how much CPU the producers got.
 * The clock stops when a zero-delay task queued after the last pair has run, so work the
 * scheduler left queued counts.
 *
 * <pre>
 * java -Xmx4g -cp benchmarks/target/benchmarks.jar \
 *     io.github.timingwheel.benchmarks.executor.PairCpu wheel-executor 1 4000000 5
 * # an older build first on the class path: its classes win over the shaded ones
 * java -Xmx4g -cp old/wheel-executor.jar:old/wheel-core.jar:benchmarks/target/benchmarks.jar \
 *     io.github.timingwheel.benchmarks.executor.PairCpu wheel-executor 1 4000000 5
 * </pre>
 *
 * <p>Arguments: a subject of {@link TimerSubject#NAMES} (as the scenarios make it: our executor
 * with 2 workers, the JDK's with 2 threads and remove-on-cancel, ...), producers, pairs per
 * producer, rounds.
 */
public final class PairCpu {

    private static final int LIVE = 1024;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private PairCpu() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: PairCpu <subject> <producers> <pairs per producer> <rounds>; subjects: "
                    + TimerSubject.NAMES);
            System.exit(2);
        }
        String subject = args[0];
        int producers = Integer.parseInt(args[1]);
        int pairs = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        for (int round = 0; round < rounds; round++) {
            runRound(subject, producers, pairs, round);
        }
    }

    private static void runRound(String subject, int producers, int pairs, int round) throws Exception {
        SchedulerThreads workers = new SchedulerThreads("pair");
        try (TimerSubject timers = TimerSubject.create(subject, workers)) {
            awaitFired(timers, TimeUnit.MILLISECONDS.toNanos(1)); // workers started
            long[] producerCpu = new long[producers];
            CyclicBarrier start = new CyclicBarrier(producers + 1);
            Thread[] threads = new Thread[producers];
            for (int p = 0; p < producers; p++) {
                int index = p;
                threads[p] = new Thread(() -> producerCpu[index] = churn(timers, pairs, start));
                threads[p].start();
            }
            long workerCpuBefore = workers.cpuNanos();
            start.await();
            long startNanos = System.nanoTime();
            for (Thread t : threads) {
                t.join();
            }
            awaitFired(timers, 0L); // absorbed
            long wallNanos = System.nanoTime() - startNanos;
            long workerCpu = workers.cpuNanos() - workerCpuBefore;
            long producersCpu = 0;
            for (long cpu : producerCpu) {
                producersCpu += cpu;
            }
            double total = (double) pairs * producers;
            System.out.printf("%s producers %d round %d: CPU ns/pair producers %.0f workers %.0f total %.0f;"
                            + " wall %.2f M pairs/s%n",
                    subject, producers, round, producersCpu / total, workerCpu / total,
                    (producersCpu + workerCpu) / total, total / wallNanos * 1e3);
        }
    }

    /** Arms a timer and waits until it has fired: what was queued before it has been moved. */
    private static void awaitFired(TimerSubject timers, long delayNanos) throws InterruptedException {
        CountDownLatch fired = new CountDownLatch(1);
        timers.arm(new TimerSubject.Task() {
            @Override
            public void run() {
                fired.countDown();
            }
        }, delayNanos);
        if (!fired.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(timers.name() + ": a timer did not fire in 60 s");
        }
    }

    /** One producer's pairs; returns its CPU time for them. */
    private static long churn(TimerSubject timers, int pairs, CyclicBarrier start) {
        Object[] live = new Object[LIVE];
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
            start.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        long before = THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < pairs; i++) {
            int slot = i & (LIVE - 1);
            if (live[slot] != null) {
                timers.cancel(live[slot]);
            }
            live[slot] = timers.arm(TimerSubject.NOOP,
                    TimeUnit.MILLISECONDS.toNanos(10_000 + random.nextInt(20_000)));
        }
        for (Object handle : live) {
            if (handle != null) {
                timers.cancel(handle);
            }
        }
        return THREADS.getCurrentThreadCpuTime() - before;
    }
}
