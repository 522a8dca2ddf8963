package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A reactive client's timeouts: {@code Mono.never().timeout(50 ms)} subscribed 2,000 times in a
 * row over {@code Schedulers.fromExecutorService(executor)}, with our executor and the JDK's
 * (2 threads each), taking turns in one JVM. Reactor arms each timeout with
 * {@code schedule(Callable, delay)}; when it fires, the subscriber gets a
 * {@code TimeoutException}, whose creation (a stack trace) is most of the task's work.
 *
 * <p>Lateness is the time from a subscription's deadline (its subscribe time plus 50 ms) to
 * its error callback, so it includes the task's own work and Reactor's path to the
 * subscriber, for both executors alike. Per round it prints p50, p99 and max in µs; at the end
 * the median of each over the rounds (the first round of each is a warm-up and not counted).
 *
 * <pre>
 * java -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.timingwheel.benchmarks.scenarios.ReactorTimeout 11
 * </pre>
 */
public final class ReactorTimeout {

    private static final int SUBSCRIPTIONS = 2_000;
    private static final Duration TIMEOUT = Duration.ofMillis(50);
    private static final String[] SUBJECTS = {"wheel-executor", "jdk-stpe"};

    private ReactorTimeout() {
    }

    public static void main(String[] args) throws InterruptedException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 11;
        long[][][] results = new long[SUBJECTS.length][rounds][];
        for (int round = 0; round <= rounds; round++) {
            for (int s = 0; s < SUBJECTS.length; s++) {
                long[] r = runRound(SUBJECTS[s]);
                System.out.printf("round %2d %-15s p50 %6d µs  p99 %6d µs  max %6d µs%s%n",
                        round, SUBJECTS[s], r[0], r[1], r[2], round == 0 ? "  (warm-up)" : "");
                if (round > 0) {
                    results[s][round - 1] = r;
                }
            }
        }
        System.out.printf("%nmedian of %d rounds (%d subscriptions, timeout %d ms, 2 threads each)%n",
                rounds, SUBSCRIPTIONS, TIMEOUT.toMillis());
        for (int s = 0; s < SUBJECTS.length; s++) {
            System.out.printf("%-15s p50 %6d µs  p99 %6d µs  max %6d µs%n", SUBJECTS[s],
                    median(results[s], 0), median(results[s], 1), median(results[s], 2));
        }
    }

    private static long[] runRound(String subject) throws InterruptedException {
        ScheduledExecutorService executor = subject.equals("jdk-stpe")
                ? new ScheduledThreadPoolExecutor(2)
                : WheelScheduledExecutor.builder().workers(2).build();
        Scheduler scheduler = Schedulers.fromExecutorService(executor);
        Histogram lateness = new Histogram(3);
        CountDownLatch fired = new CountDownLatch(SUBSCRIPTIONS);
        try {
            for (int i = 0; i < SUBSCRIPTIONS; i++) {
                long deadline = System.nanoTime() + TIMEOUT.toNanos();
                Mono.never().timeout(TIMEOUT, scheduler).subscribe(value -> { }, error -> {
                    long late = Math.max(0L, System.nanoTime() - deadline) / 1_000L;
                    synchronized (lateness) {
                        lateness.recordValue(late);
                    }
                    fired.countDown();
                });
            }
            if (!fired.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(subject + ": timeouts did not all fire in 30 s");
            }
        } finally {
            scheduler.dispose();
            executor.shutdownNow();
            executor.awaitTermination(10, TimeUnit.SECONDS);
        }
        synchronized (lateness) {
            return new long[] {
                lateness.getValueAtPercentile(50), lateness.getValueAtPercentile(99), lateness.getMaxValue()};
        }
    }

    private static long median(long[][] rounds, int column) {
        long[] values = Arrays.stream(rounds).mapToLong(r -> r[column]).sorted().toArray();
        return values[values.length / 2];
    }
}
