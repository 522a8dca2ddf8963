package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.netty.util.HashedWheelTimer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The cost of firing, apart from arming: {@code timers} timers armed for one instant 200 ms
 * ahead, and how long after that instant the last of them has run, per timer. The bodies do
 * nothing but count down a latch, so the figure is the scheduler's own work per firing (for
 * ours: the harvest, the due heap that orders the tick's tasks, the hand-off and the run
 * hooks; for Netty's: the walk of the tick's bucket). Each subject runs {@code rounds} times in
 * turn; the first round warms the JIT and is not printed.
 *
 * <pre>
 * java -Xmx4g -cp benchmarks/target/benchmarks.jar \
 *     io.github.timingwheel.benchmarks.executor.SameInstantBurst 200000 6
 * </pre>
 */
public final class SameInstantBurst {

    private static final long AHEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final List<String> SUBJECTS =
            List.of("wheel-executor 1 worker", "wheel-executor 2 workers", "wheel-timer tolerance 0", "netty-hwt-1ms");

    private SameInstantBurst() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: SameInstantBurst <timers> <rounds>");
            System.exit(2);
        }
        int timers = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        for (int round = 0; round < rounds; round++) {
            for (String subject : SUBJECTS) {
                long nanos = fireAll(subject, timers);
                if (round > 0) {
                    System.out.printf("round %d %-26s %,d timers ran by %.2f ms after their instant:"
                            + " %.0f ns per timer%n", round, subject, timers, nanos / 1e6, (double) nanos / timers);
                }
            }
        }
    }

    /** Arms {@code timers} timers for one instant and returns how long after it the last ran. */
    private static long fireAll(String subject, int timers) throws Exception {
        CountDownLatch ran = new CountDownLatch(timers);
        Runnable body = ran::countDown;
        long instant = System.nanoTime() + AHEAD_NANOS;
        AutoCloseable scheduler;
        switch (subject) {
            case "wheel-executor 1 worker", "wheel-executor 2 workers" -> {
                WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                        .workers(subject.endsWith("1 worker") ? 1 : 2).build();
                for (int i = 0; i < timers; i++) {
                    executor.schedule(body, instant - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
                scheduler = executor;
            }
            case "wheel-timer tolerance 0" -> {
                WheelTimer timer = WheelTimer.builder().tolerance(0, TimeUnit.MILLISECONDS).build();
                for (int i = 0; i < timers; i++) {
                    timer.newTimeout(timeout -> body.run(), instant - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
                scheduler = timer::stop;
            }
            default -> {
                HashedWheelTimer timer = new HashedWheelTimer(1, TimeUnit.MILLISECONDS);
                for (int i = 0; i < timers; i++) {
                    timer.newTimeout(timeout -> body.run(), instant - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
                scheduler = timer::stop;
            }
        }
        try {
            if (!ran.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(subject + ": timers did not all run in 60 s");
            }
            return System.nanoTime() - instant;
        } finally {
            scheduler.close();
        }
    }
}
