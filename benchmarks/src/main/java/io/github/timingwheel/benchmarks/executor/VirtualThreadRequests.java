package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.benchmarks.subjects.Summary;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A virtual thread per request (JDK 21 and later): each of {@code requests} virtual threads
 * arms one timeout of 10 to 30 s and cancels it, as a server that runs every request on a
 * virtual thread of its own and bounds it with a timeout does. A producer that schedules once
 * and is gone pays what a long-lived one pays only once: whatever the scheduler keeps per
 * thread is made, and dropped, per request.
 *
 * <p>Per request, in each round: the process's CPU time, the wall time from the first start
 * to the last end, and the bytes allocated, each less the mean of the two runs of the {@code none} subject just before
 * and just after (its virtual threads only read the clock), so that the host's drift between
 * runs cancels; what remains is what arming and cancelling cost. The CPU figure is the steadier
 * one on a shared machine (its clock counts in steps of 10 ms: a round of 2,000,000 requests
 * reads it to 5 ns per request). Subjects take turns; the first round warms up and is not
 * counted; medians and ranges come last.
 *
 * <pre>
 * java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.timingwheel.benchmarks.executor.VirtualThreadRequests 400000 9
 * </pre>
 *
 * <p>Arguments: requests per round, rounds, and optionally a comma-separated list of subjects
 * of {@link TimerSubject#NAMES} (default: our executor and timer, the JDK's, Netty's 1 ms).
 */
public final class VirtualThreadRequests {

    private static final String NONE = "none";
    private static final List<String> DEFAULT_SUBJECTS = List.of("wheel-executor", "wheel-timer", "jdk-stpe",
            "netty-hwt-1ms");

    private VirtualThreadRequests() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: VirtualThreadRequests <requests> <rounds> [subject,subject,...]");
            System.exit(2);
        }
        int requests = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        List<String> subjects = new ArrayList<>(args.length == 3 ? Arrays.asList(args[2].split(",")) : DEFAULT_SUBJECTS);
        if (newVirtualThreadPerTask() == null) {
            System.err.println("VirtualThreadRequests needs JDK 21 or later (virtual threads): "
                    + Runtime.version());
            System.exit(2);
        }
        System.out.printf("# %,d requests per round, a virtual thread each; %s; %d CPUs%n", requests,
                Runtime.version(), Runtime.getRuntime().availableProcessors());
        Map<String, List<double[]>> perRequest = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            double[] before = round(NONE, requests);
            for (String subject : subjects) {
                double[] cpuAndWall = round(subject, requests);
                double[] after = round(NONE, requests);
                double cpu = cpuAndWall[0] - (before[0] + after[0]) / 2;
                double wall = cpuAndWall[1] - (before[1] + after[1]) / 2;
                double bytes = cpuAndWall[2] - (before[2] + after[2]) / 2;
                if (round > 0) {
                    System.out.printf("round %d %-18s CPU %,6.0f ns, wall %,6.0f ns, %,5.0f bytes per request beyond none"
                            + " (none: CPU %,.0f and %,.0f ns, wall %,.0f and %,.0f ns)%n", round, subject, cpu, wall,
                            bytes, before[0], after[0], before[1], after[1]);
                    perRequest.computeIfAbsent(subject, k -> new ArrayList<>()).add(new double[] {cpu, wall, bytes});
                }
                before = after;
            }
        }
        System.out.printf("%nmedians of %d rounds (lowest..highest), ns per request beyond 'none'%n", rounds - 1);
        perRequest.forEach((subject, values) -> System.out.printf("%-18s CPU %s   wall %s   bytes %s%n", subject,
                Summary.withRange(values, 0), Summary.withRange(values, 1), Summary.withRange(values, 2)));
        System.exit(0); // Netty's timer thread is not a daemon
    }

    /** One round: CPU and wall nanoseconds, and bytes allocated, per request. */
    private static double[] round(String subject, int requests) throws Exception {
        TimerSubject timers = subject.equals(NONE) ? null : TimerSubject.create(subject);
        try {
            Runnable request = timers == null
                    ? VirtualThreadRequests::readClock
                    : () -> timers.cancel(timers.arm(TimerSubject.NOOP,
                            TimeUnit.MILLISECONDS.toNanos(10_000 + ThreadLocalRandom.current().nextInt(20_000))));
            System.gc();
            long cpuBefore = processCpuNanos();
            long bytesBefore = allocatedBytes();
            long start = System.nanoTime();
            ExecutorService perRequest = newVirtualThreadPerTask();
            for (int i = 0; i < requests; i++) {
                perRequest.execute(request);
            }
            perRequest.shutdown();
            if (!perRequest.awaitTermination(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("requests still running after 5 minutes");
            }
            long wall = System.nanoTime() - start;
            long cpu = processCpuNanos() - cpuBefore;
            long bytes = allocatedBytes() - bytesBefore;
            return new double[] {(double) cpu / requests, (double) wall / requests, (double) bytes / requests};
        } finally {
            if (timers != null) {
                timers.close();
            }
        }
    }

    private static volatile long sink;

    private static void readClock() {
        sink = System.nanoTime();
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * Bytes allocated by every thread so far, ThreadMXBean.getTotalThreadAllocatedBytes (JDK 21+;
     * a virtual thread's allocations count to its carrier).
     */
    private static long allocatedBytes() throws ReflectiveOperationException {
        return (long) com.sun.management.ThreadMXBean.class.getMethod("getTotalThreadAllocatedBytes")
                .invoke(ManagementFactory.getThreadMXBean());
    }

    /** Executors.newVirtualThreadPerTaskExecutor() where it exists (JDK 21+), else null. */
    private static ExecutorService newVirtualThreadPerTask() throws ReflectiveOperationException {
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (NoSuchMethodException beforeJdk21) {
            return null;
        }
    }
}
