package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.SchedulerThreads;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Timers one at a time on a scheduler with nothing else to do: a quiet server's timeouts. One
 * thread arms a timer, waits for it to run, rests 3 ms, and arms the next, so that every timer
 * finds the scheduler parked with nothing pending. For each subject and delay: how late each
 * timer started against the caller's clock (read before arming, so the arming itself counts),
 * p10 / p50 / p90 / p99, and the voluntary context switches of the subject's threads per timer
 * (each a park that slept: the wake-ups one timer costs). Subjects take turns by delay; each is
 * made afresh per delay and given 20 unrecorded timers first.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar \
 *     io.github.timingwheel.benchmarks.scenarios.IsolatedTimers 300 [subject,...]
 * </pre>
 */
public final class IsolatedTimers {

    private static final long[] DELAYS_MS = {5, 25, 100};
    private static final List<String> DEFAULT_SUBJECTS =
            List.of("wheel-executor", "wheel-executor-1", "jdk-stpe", "wheel-timer", "netty-hwt-1ms");
    private static final long REST_NANOS = TimeUnit.MILLISECONDS.toNanos(3);
    private static final int WARM_UP = 20;

    private IsolatedTimers() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: IsolatedTimers <timers per subject and delay> [subject,...]");
            System.exit(2);
        }
        int timers = Integer.parseInt(args[0]);
        List<String> subjects = args.length == 2 ? List.of(args[1].split(",")) : DEFAULT_SUBJECTS;
        System.out.printf("%d timers per subject and delay, one at a time, %d ms apart%n", timers,
                TimeUnit.NANOSECONDS.toMillis(REST_NANOS));
        System.out.printf("%-18s %8s %8s %8s %8s %8s %16s%n", "subject", "delay ms", "p10 us", "p50 us",
                "p90 us", "p99 us", "switches/timer");
        for (long delayMs : DELAYS_MS) {
            for (String name : subjects) {
                SchedulerThreads threads = new SchedulerThreads("iso");
                try (TimerSubject subject = TimerSubject.create(name, threads)) {
                    lateness(subject, delayMs, WARM_UP);
                    long switchesBefore = threads.voluntaryContextSwitches();
                    Histogram late = lateness(subject, delayMs, timers);
                    long switches = threads.voluntaryContextSwitches() - switchesBefore;
                    System.out.printf("%-18s %8d %8d %8d %8d %8d %16.2f%n", name, delayMs,
                            late.getValueAtPercentile(10) / 1000, late.getValueAtPercentile(50) / 1000,
                            late.getValueAtPercentile(90) / 1000, late.getValueAtPercentile(99) / 1000,
                            switchesBefore < 0 ? Double.NaN : switches / (double) timers);
                }
            }
        }
    }

    /** Arms {@code timers} timers one after another and records how late each started (ns). */
    private static Histogram lateness(TimerSubject subject, long delayMs, int timers) throws InterruptedException {
        Histogram late = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        long delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMs);
        for (int i = 0; i < timers; i++) {
            CountDownLatch ran = new CountDownLatch(1);
            long[] startedAt = new long[1];
            long armedAt = System.nanoTime();
            subject.arm(new TimerSubject.Task() {
                @Override
                public void run() {
                    startedAt[0] = System.nanoTime();
                    ran.countDown(); // after the write: the await below sees it
                }
            }, delayNanos);
            if (!ran.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException(subject.name() + ": a timer of " + delayMs + " ms did not run in 10 s");
            }
            late.recordValue(Math.max(0L, startedAt[0] - armedAt - delayNanos));
            LockSupport.parkNanos(REST_NANOS);
        }
        return late;
    }
}
