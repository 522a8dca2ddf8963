package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.Summary;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
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
 * <p>The subscriptions are paced, one every {@code paceMicros} (default 20 µs, 40 ms for all),
 * so that both executors get their timeouts at one rate. Unpaced ({@code paceMicros} 0), the
 * subscribing thread runs as fast as each executor's {@code schedule} and the machine let it,
 * which decides how many of the 2,000 timeouts come due together, and so how many firings
 * (each building an exception) queue behind one another: in one unpaced run on 2 vCPU the
 * rounds armed in 4 to 13 ms, on either executor. The time each round took to arm is printed.
 *
 * <p>Each subject keeps one executor (and one Reactor scheduler over it) for all its rounds,
 * as an application does. With {@code fresh}, each round makes a new executor and disposes of it
 * afterwards: its workers are new threads, and its first firings pay once what an application
 * pays once per executor (docs/decisions.md).
 *
 * <pre>
 * java -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.timingwheel.benchmarks.scenarios.ReactorTimeout 11 [paceMicros] [kept|fresh]
 * </pre>
 */
public final class ReactorTimeout {

    private static final int SUBSCRIPTIONS = 2_000;
    private static final Duration TIMEOUT = Duration.ofMillis(50);
    private static final String[] SUBJECTS = {"wheel-executor", "jdk-stpe"};
    private static final long DEFAULT_PACE_MICROS = 20;

    private static double median(long[][] rounds, int column) {
        return Summary.median(Arrays.stream(rounds).mapToDouble(r -> r[column]).sorted().toArray());
    }

    private ReactorTimeout() {
    }

    public static void main(String[] args) throws InterruptedException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 11;
        long paceNanos = TimeUnit.MICROSECONDS.toNanos(args.length > 1 ? Long.parseLong(args[1]) : DEFAULT_PACE_MICROS);
        boolean fresh = args.length > 2 && args[2].equals("fresh");
        long[][][] results = new long[SUBJECTS.length][rounds][];
        Subject[] kept = new Subject[SUBJECTS.length];
        for (int round = 0; round <= rounds; round++) {
            for (int s = 0; s < SUBJECTS.length; s++) {
                if (kept[s] == null) {
                    kept[s] = new Subject(SUBJECTS[s]);
                }
                long[] r = runRound(kept[s], paceNanos);
                if (fresh) {
                    kept[s].close();
                    kept[s] = null;
                }
                System.out.printf("round %2d %-15s p50 %6d µs  p99 %6d µs  max %6d µs  armed in %6d µs%s%n",
                        round, SUBJECTS[s], r[0], r[1], r[2], r[3], round == 0 ? "  (warm-up)" : "");
                if (round > 0) {
                    results[s][round - 1] = r;
                }
            }
        }
        for (Subject subject : kept) {
            if (subject != null) {
                subject.close();
            }
        }
        System.out.printf("%nmedian of %d rounds (%d subscriptions, %s, timeout %d ms, 2 threads each, %s)%n",
                rounds, SUBSCRIPTIONS, paceNanos > 0 ? "one every " + paceNanos / 1_000 + " µs" : "unpaced",
                TIMEOUT.toMillis(), fresh ? "a new executor every round" : "one executor for all rounds");
        for (int s = 0; s < SUBJECTS.length; s++) {
            System.out.printf("%-15s p50 %6.0f µs  p99 %6.0f µs  max %6.0f µs  armed in %6.0f µs%n", SUBJECTS[s],
                    median(results[s], 0), median(results[s], 1), median(results[s], 2), median(results[s], 3));
        }
    }

    /** One subject's executor and the Reactor scheduler over it. */
    private static final class Subject {
        final ScheduledExecutorService executor;
        final Scheduler scheduler;

        Subject(String name) {
            executor = TimerSubject.scheduledExecutor(name);
            scheduler = Schedulers.fromExecutorService(executor);
        }

        void close() throws InterruptedException {
            scheduler.dispose();
            executor.shutdownNow();
            executor.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** Lateness p50, p99 and max, and how long the subscriptions took, in µs. */
    private static long[] runRound(Subject subject, long paceNanos) throws InterruptedException {
        Histogram lateness = new Histogram(3);
        CountDownLatch fired = new CountDownLatch(SUBSCRIPTIONS);
        long start = System.nanoTime();
        for (int i = 0; i < SUBSCRIPTIONS; i++) {
            long slot = start + i * paceNanos;
            while (System.nanoTime() < slot) {
                Thread.onSpinWait(); // 20 µs apart: shorter than a park's own latency
            }
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            Mono.never().timeout(TIMEOUT, subject.scheduler).subscribe(value -> { }, error -> {
                long late = Math.max(0L, System.nanoTime() - deadline) / 1_000L;
                synchronized (lateness) {
                    lateness.recordValue(late);
                }
                fired.countDown();
            });
        }
        long armingNanos = System.nanoTime() - start;
        if (!fired.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("timeouts did not all fire in 30 s");
        }
        synchronized (lateness) {
            return new long[] {lateness.getValueAtPercentile(50), lateness.getValueAtPercentile(99),
                lateness.getMaxValue(), armingNanos / 1_000L};
        }
    }
}
