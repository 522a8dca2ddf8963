package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.benchmarks.scenarios.SchedulerThreads;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.netty.util.HashedWheelTimer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The cost of firing, apart from arming: {@code timers} timers armed for one instant 200 ms
 * ahead, and per timer, how long after that instant the last of them has run (wall) and how
 * much CPU the scheduler's own threads used from the end of arming until then (CPU). The
 * bodies do nothing but count down a latch, so the figures are the scheduler's own work per
 * firing (for ours: moving the timers down the wheel, ordering the instant's tick, the
 * hand-off and the run hooks; for Netty's: moving its queued timeouts into its wheel and the
 * walk of the tick's bucket; for the JDK's: its heap). Each subject runs {@code rounds} times
 * in turn; the first round warms the JIT and is not counted; medians and ranges are printed at
 * the end.
 *
 * <p>The CPU figure is the steadier one on a shared machine: the wall figure also counts the
 * time the scheduler's threads waited for a core. Neither counts garbage collection, whose
 * threads are not the scheduler's.
 *
 * <pre>
 * java -Xmx4g -cp benchmarks/target/benchmarks.jar \
 *     io.github.timingwheel.benchmarks.executor.SameInstantBurst 200000 9
 * </pre>
 */
public final class SameInstantBurst {

    private static final long AHEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final List<String> SUBJECTS = List.of("wheel-executor 1 worker", "wheel-executor 2 workers",
            "wheel-timer tolerance 0", "netty-hwt-1ms", "jdk-stpe 1 thread");

    private SameInstantBurst() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: SameInstantBurst <timers> <rounds>");
            System.exit(2);
        }
        int timers = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        Map<String, List<double[]>> perTimer = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (String subject : SUBJECTS) {
                double[] wallAndCpu = fireAll(subject, timers);
                if (round > 0) {
                    System.out.printf("round %d %-26s %,d timers: last ran %.2f ms after their instant;"
                            + " per timer %.0f ns wall, %.0f ns CPU%n", round, subject, timers,
                            wallAndCpu[0] * timers / 1e6, wallAndCpu[0], wallAndCpu[1]);
                    perTimer.computeIfAbsent(subject, s -> new ArrayList<>()).add(wallAndCpu);
                }
            }
        }
        System.out.printf("%nmedians of %d rounds (lowest..highest), ns per timer%n", rounds - 1);
        perTimer.forEach((subject, figures) -> System.out.printf("%-26s wall %s   CPU %s%n", subject,
                Medians.withRange(figures, 0), Medians.withRange(figures, 1)));
    }

    /**
     * Arms {@code timers} timers for one instant; returns, per timer, how long after it the last
     * ran and the scheduler threads' CPU time from the end of arming until then.
     */
    private static double[] fireAll(String subject, int timers) throws Exception {
        CountDownLatch ran = new CountDownLatch(timers);
        Runnable body = ran::countDown;
        SchedulerThreads threads = new SchedulerThreads("burst");
        long instant = System.nanoTime() + AHEAD_NANOS;
        AutoCloseable scheduler;
        switch (subject) {
            case "wheel-executor 1 worker", "wheel-executor 2 workers" -> {
                WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                        .workers(subject.endsWith("1 worker") ? 1 : 2).threadFactory(threads).build();
                for (int i = 0; i < timers; i++) {
                    executor.schedule(body, instant - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
                scheduler = executor;
            }
            case "wheel-timer tolerance 0" -> {
                WheelTimer timer = WheelTimer.builder().tolerance(0, TimeUnit.MILLISECONDS).threadFactory(threads)
                        .build();
                for (int i = 0; i < timers; i++) {
                    timer.newTimeout(timeout -> body.run(), instant - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
                scheduler = timer::stop;
            }
            case "jdk-stpe 1 thread" -> {
                ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threads);
                for (int i = 0; i < timers; i++) {
                    executor.schedule(body, instant - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
                scheduler = executor::shutdownNow;
            }
            default -> {
                HashedWheelTimer timer = new HashedWheelTimer(threads, 1, TimeUnit.MILLISECONDS);
                for (int i = 0; i < timers; i++) {
                    timer.newTimeout(timeout -> body.run(), instant - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
                scheduler = timer::stop;
            }
        }
        try {
            long cpuBefore = threads.cpuNanos();
            if (!ran.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(subject + ": timers did not all run in 60 s");
            }
            long wall = System.nanoTime() - instant;
            long cpu = threads.cpuNanos() - cpuBefore;
            return new double[] {(double) wall / timers, (double) cpu / timers};
        } finally {
            scheduler.close();
        }
    }

}
