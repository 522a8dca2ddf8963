package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The examples' demo's paced run on an oversubscribed machine: {@code producers} threads
 * together arm {@code timers} timers at {@code rate} per second (each keeps its share of the pace,
 * parking when ahead, checked every 64 timers), in the network-timeout pattern of the demo's
 * {@code Workload} with its defaults: half are short timers (1 to 50 ms), half request timeouts
 * (1 to 30 s); 90% are cancelled a little later, as the reply to their request comes (each
 * producer keeps 64 such requests open and cancels the oldest as it opens a new one); the short
 * ones left fire, and the request timeouts left are cancelled when the producers are done.
 * Meanwhile {@code spinners} threads spin flat out, three times the cores of the 2-core machine
 * it was planned for. Reports how late each fired timer started against its own deadline (read
 * before it was armed), p50, p99, p99.9 and max, and how many started early (none should).
 *
 * <p>Hostile because a timer's lateness then depends on how the scheduler's threads fare
 * against the operating system's scheduler: a worker descheduled while it holds what the others
 * need (a lock, the leader's role, a tick half handed out) makes everything due meanwhile wait a
 * whole time slice or more, and the producers compete for the same cores. This is where a server
 * meets its timeouts: when it is overloaded. {@link Contention} has 2 spinners and one producer at
 * 10,000 timers a second; this is 6 spinners and the demo's 4 producers at 500,000.
 *
 * <p>Each thread that runs bodies records into a histogram of its own ({@link LatenessProbe.Sink}),
 * so that the measurement adds no contended line to the firing path. A body and its cancel settle
 * which of the two happened with a compare-and-set, as the demo's probe does, since
 * {@code ScheduledThreadPoolExecutor}'s {@code cancel(false)} returns true for a task already
 * running.
 */
final class Oversubscribed implements Scenario {

    /** The demo's defaults ({@code DemoOptions}). */
    private static final int IN_FLIGHT = 64;
    private static final int LONG_PERCENT = 50;
    private static final int CANCEL_PERCENT = 90;
    private static final long SHORT_MIN = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long SHORT_MAX = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long LONG_MIN = TimeUnit.SECONDS.toNanos(1);
    private static final long LONG_MAX = TimeUnit.SECONDS.toNanos(30);
    /** How long to wait for the short timers beyond the end of arming. */
    private static final long SETTLE_MILLIS = 30_000L;

    static final Column FIRED = Lateness.FIRED;
    static final Column CANCELLED = Column.higher("cancelled", 0);
    static final Column P50 = Lateness.P50;
    static final Column P99 = Lateness.P99;
    static final Column P999 = Lateness.P999;
    static final Column MAX = Lateness.MAX;
    static final Column EARLY = Lateness.EARLY;

    private final int timers;
    private final long rate;
    private final int producers;
    private final int spinners;

    Oversubscribed(int timers, long rate, int producers, int spinners) {
        this.timers = timers;
        this.rate = rate;
        this.producers = producers;
        this.spinners = spinners;
    }

    @Override
    public String name() {
        return "oversubscribed";
    }

    @Override
    public String description() {
        return String.format("the demo's paced run: %d producers arm %,d timers at %,d/s together (half 1-50 ms, half"
                + " 1-30 s; 90%% cancelled after 64 more), while %d threads spin flat out; how late each fired (µs)",
                producers, timers, rate, spinners);
    }

    @Override
    public List<Column> columns() {
        return List.of(FIRED, CANCELLED, P50, P99, P999, MAX, EARLY);
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        int total = warmUp ? Math.max(producers, timers / 5) : timers;
        LatenessProbe.Sink sink = new LatenessProbe.Sink();
        LongAdder cancelled = new LongAdder();
        Contention.Spinners spinning = new Contention.Spinners(spinners);
        try (TimerSubject subjectTimers = TimerSubject.create(subject)) {
            List<Producer> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int share = total / producers + (p < total % producers ? 1 : 0);
                threads.add(new Producer(p, subjectTimers, share, sink, cancelled));
            }
            threads.forEach(Thread::start);
            for (Producer producer : threads) {
                producer.join();
                if (producer.failure != null) {
                    throw new IllegalStateException(subject + ": a producer failed", producer.failure);
                }
            }
            for (Producer producer : threads) {
                producer.cancelLeftovers();
            }
            Waiting.until(() -> sink.fired.sum() + cancelled.sum() >= total, SETTLE_MILLIS);
        } finally {
            spinning.stop();
        }
        if (warmUp) {
            return;
        }
        if (sink.fired.sum() + cancelled.sum() < total) {
            System.out.printf("   %s: %,d timers neither fired nor were cancelled within %d s%n", subject,
                    total - sink.fired.sum() - cancelled.sum(), SETTLE_MILLIS / 1000);
        }
        Histogram late = sink.lateness();
        results.record(subject, FIRED, sink.fired.sum());
        results.record(subject, CANCELLED, cancelled.sum());
        results.record(subject, P50, late.getValueAtPercentile(50) / 1e3);
        results.record(subject, P99, late.getValueAtPercentile(99) / 1e3);
        results.record(subject, P999, late.getValueAtPercentile(99.9) / 1e3);
        results.record(subject, MAX, late.getMaxValue() / 1e3);
        results.record(subject, EARLY, sink.early.sum());
    }

    /** One thread of requests, as the demo's {@code Workload.Producer}. */
    private final class Producer extends Thread {
        private final TimerSubject timers;
        private final int count;
        private final double nanosPerTimer;
        private final SplittableRandom random;
        private final LatenessProbe.Sink sink;
        private final LongAdder cancelled;
        private final Object[] inFlight = new Object[IN_FLIGHT];
        private final Probe[] inFlightProbes = new Probe[IN_FLIGHT];
        private int open;
        private int next;
        private final List<Object> leftovers = new ArrayList<>();
        private final List<Probe> leftoverProbes = new ArrayList<>();
        Throwable failure;

        Producer(int index, TimerSubject timers, int count, LatenessProbe.Sink sink, LongAdder cancelled) {
            super("oversubscribed-producer-" + index);
            setDaemon(true);
            this.timers = timers;
            this.count = count;
            this.nanosPerTimer = 1e9 * producers / rate;
            this.random = new SplittableRandom(42 + index);
            this.sink = sink;
            this.cancelled = cancelled;
        }

        @Override
        public void run() {
            try {
                long start = System.nanoTime();
                for (int i = 1; i <= count; i++) {
                    armOne();
                    if ((i & 63) == 0) {
                        long ahead = start + (long) (i * nanosPerTimer) - System.nanoTime();
                        if (ahead > 0) {
                            LockSupport.parkNanos(ahead);
                        }
                    }
                }
                for (int i = 0; i < open; i++) {
                    cancel(inFlight[i], inFlightProbes[i]);
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        private void armOne() {
            boolean requestTimeout = random.nextInt(100) < LONG_PERCENT;
            long delay = requestTimeout ? random.nextLong(LONG_MIN, LONG_MAX + 1)
                    : random.nextLong(SHORT_MIN, SHORT_MAX + 1);
            Probe probe = new Probe(System.nanoTime() + delay, sink);
            Object handle = timers.arm(probe, delay);
            if (random.nextInt(100) < CANCEL_PERCENT) {
                if (open < IN_FLIGHT) {
                    inFlight[open] = handle;
                    inFlightProbes[open] = probe;
                    open++;
                    return;
                }
                cancel(inFlight[next], inFlightProbes[next]);
                inFlight[next] = handle;
                inFlightProbes[next] = probe;
                next = (next + 1) % IN_FLIGHT;
            } else if (requestTimeout) {
                leftovers.add(handle);
                leftoverProbes.add(probe);
            }
        }

        private void cancel(Object handle, Probe probe) {
            if (timers.cancel(handle) && probe.settleCancelled()) {
                cancelled.increment();
            }
        }

        /** The request timeouts whose reply never came; called by the main thread after join. */
        void cancelLeftovers() {
            for (int i = 0; i < leftovers.size(); i++) {
                cancel(leftovers.get(i), leftoverProbes.get(i));
            }
        }
    }

    /** A timer body that records its lateness unless its cancel won, as the demo's probe. */
    private static final class Probe extends TimerSubject.Task {
        private static final AtomicIntegerFieldUpdater<Probe> STATE =
                AtomicIntegerFieldUpdater.newUpdater(Probe.class, "state");
        private static final int PENDING = 0;
        private static final int FIRED = 1;
        private static final int CANCELLED = 2;

        private final long deadline;
        private final LatenessProbe.Sink sink;
        private volatile int state;

        Probe(long deadline, LatenessProbe.Sink sink) {
            this.deadline = deadline;
            this.sink = sink;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            if (STATE.compareAndSet(this, PENDING, FIRED)) {
                long late = now - deadline;
                if (late < 0) {
                    sink.early.increment();
                } else {
                    sink.record(deadline, late);
                }
                sink.fired.increment();
            }
        }

        boolean settleCancelled() {
            return STATE.compareAndSet(this, PENDING, CANCELLED);
        }
    }
}
