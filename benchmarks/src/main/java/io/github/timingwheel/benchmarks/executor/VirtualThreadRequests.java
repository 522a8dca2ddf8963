package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
 * <p>Per request, in each round: the process's CPU time and the wall time from the first start
 * to the last end, each less that of the {@code none} subject in the same round, whose virtual
 * threads only read the clock; what remains is what arming and cancelling cost. The CPU figure
 * is the steadier one on a shared machine. Subjects take turns; the first round warms up and is
 * not counted; medians and ranges come last.
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
        List<String> subjects = new ArrayList<>();
        subjects.add(NONE);
        subjects.addAll(args.length == 3 ? Arrays.asList(args[2].split(",")) : DEFAULT_SUBJECTS);
        if (newVirtualThreadPerTask() == null) {
            System.err.println("VirtualThreadRequests needs JDK 21 or later (virtual threads): "
                    + Runtime.version());
            System.exit(2);
        }
        System.out.printf("# %,d requests per round, a virtual thread each; %s; %d CPUs%n", requests,
                Runtime.version(), Runtime.getRuntime().availableProcessors());
        Map<String, List<double[]>> perRequest = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            double[] none = null;
            for (String subject : subjects) {
                double[] cpuAndWall = round(subject, requests);
                if (subject.equals(NONE)) {
                    none = cpuAndWall;
                }
                double cpu = cpuAndWall[0] - none[0];
                double wall = cpuAndWall[1] - none[1];
                if (round > 0) {
                    System.out.printf("round %d %-18s CPU %,6.0f ns, wall %,6.0f ns per request%s%n", round, subject,
                            subject.equals(NONE) ? cpuAndWall[0] : cpu, subject.equals(NONE) ? cpuAndWall[1] : wall,
                            subject.equals(NONE) ? " (virtual threads that only read the clock)" : " beyond none");
                    if (!subject.equals(NONE)) {
                        perRequest.computeIfAbsent(subject, s -> new ArrayList<>()).add(new double[] {cpu, wall});
                    }
                }
            }
        }
        System.out.printf("%nmedians of %d rounds (lowest..highest), ns per request beyond 'none'%n", rounds - 1);
        perRequest.forEach((subject, values) -> System.out.printf("%-18s CPU %s   wall %s%n", subject,
                median(values, 0), median(values, 1)));
        System.exit(0); // Netty's timer thread is not a daemon
    }

    /** One round: CPU and wall nanoseconds per request. */
    private static double[] round(String subject, int requests) throws Exception {
        TimerSubject timers = subject.equals(NONE) ? null : TimerSubject.create(subject);
        try {
            Runnable request = timers == null
                    ? VirtualThreadRequests::readClock
                    : () -> timers.cancel(timers.arm(TimerSubject.NOOP,
                            TimeUnit.MILLISECONDS.toNanos(10_000 + ThreadLocalRandom.current().nextInt(20_000))));
            System.gc();
            long cpuBefore = processCpuNanos();
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
            return new double[] {(double) cpu / requests, (double) wall / requests};
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

    /** Executors.newVirtualThreadPerTaskExecutor() where it exists (JDK 21+), else null. */
    private static ExecutorService newVirtualThreadPerTask() throws ReflectiveOperationException {
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (NoSuchMethodException beforeJdk21) {
            return null;
        }
    }

    private static String median(List<double[]> values, int column) {
        List<Double> sorted = new ArrayList<>();
        for (double[] v : values) {
            sorted.add(v[column]);
        }
        Collections.sort(sorted);
        return String.format("%,5.0f (%,.0f..%,.0f)", sorted.get(sorted.size() / 2), sorted.get(0),
                sorted.get(sorted.size() - 1));
    }
}
