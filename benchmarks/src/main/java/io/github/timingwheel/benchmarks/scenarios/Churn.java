package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.HeapMeter;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The network-timeout pattern: each producer keeps a ring of {@code ring} live timers with
 * delays of 10 to 30 s; each step cancels the oldest and arms a new one. Pairs per second with
 * each producer count ({@code seconds} each, after as long again of warm-up within the round;
 * 4 producers on a 2-core machine show whether a subject collapses when oversubscribed); then
 * every ring timer is cancelled and the heap retained after a full GC is compared with the heap
 * before the subject was created: what the subject still holds after millions of timers came
 * and went (its fixed structures, and anything kept of cancelled ones).
 *
 * <p>The clock stops when the subject has absorbed every pair, not when the producers stop:
 * each producer arms a zero-delay marker after its last pair, and the span ends when the last
 * marker fires ({@link Absorption}). Beside each rate: {@code absorb ms}, from the producers'
 * stop to the last marker (what the subject still owed), and {@code backlog}, the timers its
 * structures held at the stop beyond the live rings ({@link TimerSubject#queued()}: for Netty,
 * cancelled timeouts its worker has not yet removed; the markers not yet fired, at most one per
 * producer, count too).
 */
final class Churn implements Scenario {

    static final Column RETAINED = Column.lower("retained KB after", 0);
    /**
     * The timers' delays, uniform in [min, max): 10 to 30 s, network timeouts that are almost
     * always cancelled long before they are due; {@code -Dchurn.delay.ms=1-50} for short timers,
     * which land in the wheel's first level and keep its harvests, and their shard locks, busy.
     */
    private static final long[] DELAY_RANGE_MS = delayRange(System.getProperty("churn.delay.ms", "10000-30000"));
    private static final long MIN_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(DELAY_RANGE_MS[0]);
    private static final long MAX_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(DELAY_RANGE_MS[1]);

    private static long[] delayRange(String range) {
        String[] bounds = range.split("-", 2);
        long min = Long.parseLong(bounds[0].trim());
        long max = Long.parseLong(bounds[1].trim());
        if (min < 0 || max <= min) {
            throw new IllegalArgumentException("churn.delay.ms must be min-max with 0 <= min < max: " + range);
        }
        return new long[] {min, max};
    }

    private final int ring;
    private final int seconds;
    private final int[] threadCounts;

    /**
     * @param threadCounts the producer counts to measure, in order (each producer keeps its own
     *     ring; every ring is filled before the first count runs, so the number pending is the
     *     same for every count)
     */
    Churn(int ring, int seconds, int... threadCounts) {
        this.ring = ring;
        this.seconds = seconds;
        this.threadCounts = threadCounts.clone();
    }

    @Override
    public String name() {
        return "churn";
    }

    @Override
    public String description() {
        return String.format("each producer keeps %,d live timers (%,d-%,d ms); each step cancels the oldest and"
                + " arms one; %d s with each of %s producers, timed until a zero-delay marker armed after the"
                + " last pair fired", ring, DELAY_RANGE_MS[0], DELAY_RANGE_MS[1], seconds, Arrays.toString(threadCounts));
    }

    static Column pairs(int threads) {
        return Column.higher("pairs/s " + threads + (threads == 1 ? " thread" : " threads"), 0);
    }

    static Column absorb(int threads) {
        return Column.lower("absorb ms " + threads + "t", 1);
    }

    static Column backlog(int threads) {
        return Column.lower("backlog " + threads + "t", 0);
    }

    @Override
    public List<Column> columns() {
        List<Column> columns = new ArrayList<>();
        for (int threads : threadCounts) {
            columns.add(pairs(threads));
            columns.add(absorb(threads));
            columns.add(backlog(threads));
        }
        columns.add(RETAINED);
        return columns;
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        Producer[] producers = new Producer[Arrays.stream(threadCounts).max().orElse(1)];
        for (int p = 0; p < producers.length; p++) {
            producers[p] = new Producer(ring, p + 1);
        }
        long baseline = HeapMeter.retainedBytes();
        try (TimerSubject timers = TimerSubject.create(subject)) {
            for (Producer producer : producers) {
                producer.fill(timers);
            }
            long measureNanos = TimeUnit.SECONDS.toNanos(warmUp ? 1 : seconds);
            Span[] spans = new Span[threadCounts.length];
            for (int i = 0; i < threadCounts.length; i++) {
                spans[i] = measure(timers, producers, threadCounts[i], measureNanos);
            }
            for (Producer producer : producers) {
                producer.cancelAll();
            }
            Sizes.settle(subject, 0);
            long retained = HeapMeter.retainedBytes() - baseline;
            if (!warmUp) {
                for (int i = 0; i < threadCounts.length; i++) {
                    int threads = threadCounts[i];
                    results.record(subject, pairs(threads), spans[i].pairsPerSecond());
                    results.record(subject, absorb(threads), spans[i].absorbNanos() / 1e6);
                    results.record(subject, backlog(threads), spans[i].backlog());
                }
                results.record(subject, RETAINED, retained / 1024.0);
            }
        }
    }

    /**
     * One measured span: pairs per second until the subject absorbed them, the time it took
     * after the producers stopped, and the backlog it held when they did (NaN if it cannot say).
     */
    private record Span(double pairsPerSecond, long absorbNanos, double backlog) {
    }

    /** Runs {@code threads} producers for a warm-up and then a measured span of {@code nanos}. */
    private static Span measure(TimerSubject timers, Producer[] producers, int threads, long nanos)
            throws Exception {
        run(timers, producers, threads, nanos);
        return run(timers, producers, threads, nanos);
    }

    private static Span run(TimerSubject timers, Producer[] producers, int threads, long nanos) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        Absorption absorption = new Absorption(threads);
        long[] counts = new long[threads];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int index = t;
            workers[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                counts[index] = producers[index].churnUntil(stop);
                absorption.arm(timers);
            }, "producer-" + t);
            workers[t].start();
        }
        start.await();
        long startedAt = System.nanoTime();
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(nanos));
        stop.set(true);
        long total = 0;
        for (int t = 0; t < threads; t++) {
            workers[t].join();
            total += counts[t];
        }
        long stoppedAt = System.nanoTime();
        long queued = timers.queued();
        long live = 0;
        for (Producer producer : producers) {
            live += producer.live();
        }
        double backlog = queued < 0 ? Double.NaN : queued - live;
        long firedAt = absorption.awaitFired(300);
        return new Span(total * 1e9 / (firedAt - startedAt), Math.max(0, firedAt - stoppedAt), backlog);
    }

    /** One producer's ring of live timers; used by one thread at a time. */
    private static final class Producer {
        private final Object[] handles;
        private final long[] delays = new long[1 << 16];
        private TimerSubject timers;
        private int next;
        private int delayIndex;

        Producer(int ring, int seed) {
            this.handles = new Object[ring];
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = 0; i < delays.length; i++) {
                delays[i] = random.nextLong(MIN_DELAY_NANOS, MAX_DELAY_NANOS);
            }
        }

        /** Arms the ring; the thread that starts the producers then publishes this to them. */
        void fill(TimerSubject subject) {
            timers = subject;
            for (int i = 0; i < handles.length; i++) {
                handles[i] = timers.arm(TimerSubject.NOOP, nextDelay());
            }
        }

        private long nextDelay() {
            return delays[delayIndex++ & (delays.length - 1)];
        }

        /**
         * Churns until {@code stop}. The ring's position and the delay index live in locals
         * while it runs: the Producer objects of one run are made one after another and may
         * share a cache line, and a field of theirs written on every pair would make two
         * producers' threads pull that line from each other's core, a cost of the measurement
         * and not of the subject.
         */
        long churnUntil(AtomicBoolean stop) {
            long pairs = 0;
            Object[] ring = handles;
            long[] delayRing = delays;
            TimerSubject subject = timers;
            int mask = ring.length - 1;
            int delayMask = delayRing.length - 1;
            int slot = next;
            int delay = delayIndex;
            while (!stop.get()) {
                for (int i = 0; i < 64; i++) { // check the flag every 64 pairs
                    subject.cancel(ring[slot]);
                    ring[slot] = subject.arm(TimerSubject.NOOP, delayRing[delay++ & delayMask]);
                    slot = (slot + 1) & mask;
                }
                pairs += 64;
            }
            next = slot;
            delayIndex = delay;
            return pairs;
        }

        /** The ring's timers, live once {@link #fill} ran. */
        int live() {
            return timers == null ? 0 : handles.length;
        }

        void cancelAll() {
            for (Object handle : handles) {
                timers.cancel(handle);
            }
        }
    }
}
