package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.benchmarks.subjects.SchedulerThreads;
import io.github.timingwheel.benchmarks.subjects.Summary;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cost of firing, apart from arming: {@code timers} timers armed for one instant
 * {@code aheadMs} ahead, and per timer, how long after that instant the last of them has run (wall) and how
 * much CPU the scheduler's own threads used from the end of arming until then (CPU). The
 * bodies do nothing but count down a latch (and note the first start), so the figures are the scheduler's own work per
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
 * <p>Beside them, how long after the instant the <em>first</em> timer started (µs): a
 * scheduler that orders or moves the whole instant's tick before it runs any of it makes the
 * first wait for all of that, which grows with the number due; one that hands out the ordered
 * front while the rest is still being ordered starts the first within its tick whatever the
 * number. (The body reads one shared word before its count-down, to note the first start; that
 * read costs every subject the same.) Each subject runs twice a round: {@code in order}, every
 * timer due at exactly the instant, so that the order they run in (by deadline, then by when
 * they were armed) is the order their nodes were allocated in; and {@code shuffled}, each due
 * at the instant plus 0 to 999 ns taken at random (a fixed seed), so that their order by
 * deadline is not their order in memory, and a scheduler that keeps exact order sorts them and
 * then walks its nodes scattered over the heap. The first start is read against the instant in
 * both, at most 1 µs before the first timer's own deadline.
 *
 * <p>The instant is {@code aheadMs} after arming starts (200 ms unless given): arming must end
 * before it, or the figures count arming; the program says so if it did not.
 *
 * <pre>
 * java -Xmx4g -cp benchmarks/target/benchmarks.jar \
 *     io.github.timingwheel.benchmarks.executor.SameInstantBurst 200000 9 [aheadMs]
 * </pre>
 */
public final class SameInstantBurst {

    private static final long DEFAULT_AHEAD_MS = 200;
    /** The first start is not yet known. */
    private static final long NOT_YET = Long.MIN_VALUE;
    /** Our executor with 1 and 2 workers, our timer with no tolerance, Netty's 1 ms timer, the JDK's with 1 thread. */
    private static final List<String> SUBJECTS =
            List.of("wheel-executor-1", "wheel-executor", "wheel-timer-tolerance-0", "netty-hwt-1ms", "jdk-stpe-1");

    private SameInstantBurst() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 && args.length != 3) {
            System.err.println("usage: SameInstantBurst <timers> <rounds> [aheadMs]");
            System.exit(2);
        }
        int timers = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        long aheadNanos =
                TimeUnit.MILLISECONDS.toNanos(args.length == 3 ? Long.parseLong(args[2]) : DEFAULT_AHEAD_MS);
        long[] inOrder = new long[timers];
        long[] shuffled = new long[timers];
        SplittableRandom random = new SplittableRandom(17);
        for (int i = 0; i < timers; i++) {
            shuffled[i] = random.nextLong(1_000L);
        }
        Map<String, List<double[]>> perTimer = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (String subject : SUBJECTS) {
                for (boolean shuffle : new boolean[] {false, true}) {
                    String label = subject + (shuffle ? " shuffled" : " in order");
                    double[] figures = fireAll(subject, timers, shuffle ? shuffled : inOrder, aheadNanos);
                    if (figures[3] != 0) {
                        System.out.printf("round %d %s: arming ended after the instant; arm further ahead%n", round,
                                label);
                    }
                    if (round > 0) {
                        System.out.printf("round %d %-35s %,d timers: first ran %.0f µs and last %.2f ms after"
                                + " their instant; per timer %.0f ns wall, %.0f ns CPU%n", round, label, timers,
                                figures[2], figures[0] * timers / 1e6, figures[0], figures[1]);
                        perTimer.computeIfAbsent(label, s -> new ArrayList<>()).add(figures);
                    }
                }
            }
        }
        System.out.printf("%nmedians of %d rounds (lowest..highest); per timer in ns, the first start in µs after"
                + " the instant%n", rounds - 1);
        perTimer.forEach((label, figures) -> System.out.printf("%-35s wall %s   CPU %s   first %s%n", label,
                Summary.withRange(figures, 0), Summary.withRange(figures, 1), Summary.withRange(figures, 2)));
    }

    /**
     * Arms {@code timers} timers for one instant, {@code offsets[i]} ns after it for the i-th;
     * returns, per timer, how long after the instant the last ran and the scheduler threads' CPU
     * time from the end of arming until then, how long after the instant the first ran (µs), and
     * 1 if arming ended after the instant (else 0).
     */
    private static double[] fireAll(String subject, int timers, long[] offsets, long aheadNanos) throws Exception {
        CountDownLatch ran = new CountDownLatch(timers);
        AtomicLong firstStart = new AtomicLong(NOT_YET);
        TimerSubject.Task body = new TimerSubject.Task() {
            @Override
            public void run() {
                if (firstStart.get() == NOT_YET) {
                    firstStart.compareAndSet(NOT_YET, System.nanoTime());
                }
                ran.countDown();
            }
        };
        SchedulerThreads threads = new SchedulerThreads("burst");
        try (TimerSubject scheduler = TimerSubject.create(subject, threads)) {
            long instant = System.nanoTime() + aheadNanos;
            for (int i = 0; i < timers; i++) {
                scheduler.arm(body, instant + offsets[i] - System.nanoTime());
            }
            boolean armedLate = System.nanoTime() - instant > 0 || firstStart.get() != NOT_YET;
            long cpuBefore = threads.cpuNanos();
            if (!ran.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(subject + ": timers did not all run in 60 s");
            }
            long wall = System.nanoTime() - instant;
            long cpu = threads.cpuNanos() - cpuBefore;
            double firstMicros = (firstStart.get() - instant) / 1e3;
            return new double[] {(double) wall / timers, (double) cpu / timers, firstMicros, armedLate ? 1 : 0};
        }
    }
}
