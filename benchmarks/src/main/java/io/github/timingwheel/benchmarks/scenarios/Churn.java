package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The network-timeout pattern: each producer keeps a ring of {@code ring} live timers with
 * delays of 10 to 30 s; each step cancels the oldest and arms a new one. Pairs per second with
 * one and with two producers ({@code seconds} each, after as long again of warm-up within the
 * round); then every ring timer is cancelled and the heap retained after a full GC is
 * compared with the heap before the subject was created: what the subject still holds after
 * millions of timers came and went (its fixed structures, and anything kept of cancelled ones).
 */
final class Churn implements Scenario {

    static final Column ONE = Column.higher("pairs/s 1 thread", 0);
    static final Column TWO = Column.higher("pairs/s 2 threads", 0);
    static final Column RETAINED = Column.lower("retained KB after", 0);

    private final int ring;
    private final int seconds;

    Churn(int ring, int seconds) {
        this.ring = ring;
        this.seconds = seconds;
    }

    @Override
    public String name() {
        return "churn";
    }

    @Override
    public String description() {
        return String.format("each producer keeps %,d live timers (10-30 s); each step cancels the oldest and"
                + " arms one; %d s per producer count", ring, seconds);
    }

    @Override
    public List<Column> columns() {
        return List.of(ONE, TWO, RETAINED);
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        Producer[] producers = {new Producer(ring, 1), new Producer(ring, 2)};
        long baseline = HeapMeter.retainedBytes();
        try (TimerSubject timers = TimerSubject.create(subject)) {
            for (Producer producer : producers) {
                producer.fill(timers);
            }
            long measureNanos = TimeUnit.SECONDS.toNanos(warmUp ? 1 : seconds);
            double one = pairsPerSecond(producers, 1, measureNanos);
            double two = pairsPerSecond(producers, 2, measureNanos);
            for (Producer producer : producers) {
                producer.cancelAll();
            }
            Sizes.settle(subject, 0);
            long retained = HeapMeter.retainedBytes() - baseline;
            if (!warmUp) {
                results.record(subject, ONE, one);
                results.record(subject, TWO, two);
                results.record(subject, RETAINED, retained / 1024.0);
            }
        }
    }

    /** Runs {@code threads} producers for a warm-up and then a measured span of {@code nanos}. */
    private static double pairsPerSecond(Producer[] producers, int threads, long nanos) throws Exception {
        run(producers, threads, nanos);
        return run(producers, threads, nanos) * 1e9 / nanos;
    }

    private static long run(Producer[] producers, int threads, long nanos) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        CyclicBarrier start = new CyclicBarrier(threads + 1);
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
            }, "producer-" + t);
            workers[t].start();
        }
        start.await();
        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(nanos));
        stop.set(true);
        long total = 0;
        for (int t = 0; t < threads; t++) {
            workers[t].join();
            total += counts[t];
        }
        return total;
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
                delays[i] = random.nextLong(TimeUnit.SECONDS.toNanos(10), TimeUnit.SECONDS.toNanos(30));
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

        long churnUntil(AtomicBoolean stop) {
            long pairs = 0;
            Object[] ring = handles;
            int mask = ring.length - 1;
            while (!stop.get()) {
                for (int i = 0; i < 64; i++) { // check the flag every 64 pairs
                    int slot = next;
                    next = (slot + 1) & mask;
                    timers.cancel(ring[slot]);
                    ring[slot] = timers.arm(TimerSubject.NOOP, nextDelay());
                }
                pairs += 64;
            }
            return pairs;
        }

        void cancelAll() {
            for (Object handle : handles) {
                timers.cancel(handle);
            }
        }
    }
}
