package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.SchedulerThreads;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * A mass expiry: {@code timers} timers armed from one thread for one instant {@code aheadMs}
 * ahead, each body counting its run. Per subject, two rows: {@code in order}, every timer due at
 * exactly the instant, so that the order they run in (by deadline, then by when they were
 * armed) is the order their nodes were allocated in; and {@code shuffled}, each due at the
 * instant plus 0 to 999 ns taken at random (a fixed seed), so that their order by deadline is not
 * their order in memory, and a scheduler that keeps exact order sorts them and then walks nodes
 * scattered over the heap. Columns: how long after the instant the first body started (µs) and
 * the last (ms); the last over the number of timers (ns per timer, wall); the CPU time of the
 * subject's own threads from the end of arming to the last run, per timer; and early starts
 * (a body that started before the instant; none should).
 *
 * <p>Hostile because everything due lands in one tick: a scheduler that moves, orders or hands
 * over the whole tick before it runs any of it makes the first timer wait for all of that, a
 * wait that grows with the number due, where a bounded step would start the first within its
 * tick. {@link io.github.timingwheel.benchmarks.executor.SameInstantBurst} is the same
 * measurement as a program of its own, on subjects of its own choosing (among them
 * {@code wheel-timer-tolerance-0} and {@code jdk-stpe-1}); this one runs on the runner's
 * subjects, as they are given (our {@code WheelTimer} with its default tolerance, which may
 * start a timer up to that much late on purpose).
 *
 * <p>The body adds one to a striped counter, and notes the first start with one read of a shared
 * word (a compare-and-set only while no start is noted) and the last with a striped maximum; a
 * {@code CountDownLatch} counted down by every body would be one contended word for two workers.
 * The first start is read against the instant in both orders, at most 1 µs before the first
 * timer's own deadline when shuffled. A run whose arming ended after the instant prints a line.
 */
final class SameInstant implements Scenario {

    private static final long NOT_YET = Long.MIN_VALUE;

    static final Column FIRST_US = Column.lower("first ran us after", 0);
    static final Column LAST_MS = Column.lower("last ran ms after", 1);
    static final Column WALL_PER_TIMER = Column.lower("ns/timer (wall)", 0);
    static final Column CPU_PER_TIMER = Column.lower("CPU ns/timer", 0);
    static final Column EARLY = Column.lower("early", 0);

    private final int timers;
    private final int aheadMs;

    SameInstant(int timers, int aheadMs) {
        this.timers = timers;
        this.aheadMs = aheadMs;
    }

    @Override
    public String name() {
        return "same-instant";
    }

    @Override
    public String description() {
        return String.format("%,d timers armed for one instant %d ms ahead, in allocation order and shuffled;"
                + " when the first and the last ran", timers, aheadMs);
    }

    @Override
    public List<Column> columns() {
        return List.of(FIRST_US, LAST_MS, WALL_PER_TIMER, CPU_PER_TIMER, EARLY);
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        int count = warmUp ? Math.max(1, timers / 10) : timers;
        long[] inOrder = new long[count];
        long[] shuffled = new long[count];
        SplittableRandom random = new SplittableRandom(17);
        for (int i = 0; i < count; i++) {
            shuffled[i] = random.nextLong(1_000L);
        }
        fire(subject, warmUp, results, "in order", inOrder);
        fire(subject, warmUp, results, "shuffled", shuffled);
    }

    private void fire(String subject, boolean warmUp, Results results, String order, long[] offsets)
            throws Exception {
        int count = offsets.length;
        LongAdder ran = new LongAdder();
        LongAdder early = new LongAdder();
        AtomicLong firstStart = new AtomicLong(NOT_YET);
        LongAccumulator lastStart = new LongAccumulator(Math::max, Long.MIN_VALUE);
        SchedulerThreads threads = new SchedulerThreads("same");
        long instant;
        long cpuNanos;
        boolean armedLate;
        try (TimerSubject subjectTimers = TimerSubject.create(subject, threads)) {
            long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(aheadMs);
            instant = at;
            TimerSubject.Task body = new TimerSubject.Task() {
                @Override
                public void run() {
                    long now = System.nanoTime();
                    if (firstStart.get() == NOT_YET) {
                        firstStart.compareAndSet(NOT_YET, now);
                    }
                    if (now - at < 0) {
                        early.increment();
                    }
                    lastStart.accumulate(now);
                    ran.increment();
                }
            };
            for (int i = 0; i < count; i++) {
                subjectTimers.arm(body, instant + offsets[i] - System.nanoTime());
            }
            armedLate = System.nanoTime() - instant > 0 || firstStart.get() != NOT_YET;
            long cpuBefore = threads.cpuNanos();
            Waiting.until(() -> ran.sum() >= count, aheadMs + 60_000L);
            cpuNanos = threads.cpuNanos() - cpuBefore;
        }
        if (warmUp) {
            return;
        }
        String row = subject + " " + order;
        if (armedLate) {
            System.out.printf("   %s: arming ended after the instant; its figures count arming%n", row);
        }
        if (ran.sum() < count) {
            System.out.printf("   %s: %,d of %,d ran within 60 s of the instant%n", row, ran.sum(), count);
        }
        long last = lastStart.get() - instant;
        results.record(row, FIRST_US, (firstStart.get() - instant) / 1e3);
        results.record(row, LAST_MS, last / 1e6);
        results.record(row, WALL_PER_TIMER, (double) last / count);
        results.record(row, CPU_PER_TIMER, (double) cpuNanos / count);
        results.record(row, EARLY, early.sum());
    }
}
