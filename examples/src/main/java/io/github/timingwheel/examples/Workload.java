package io.github.timingwheel.examples;

import io.github.timingwheel.examples.DemoOptions.DelayRange;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The network-timeout pattern. Producer threads arm timers: short ones and request timeouts,
 * each with its own random delay. Most are cancelled a little later, as the reply to their
 * request comes in; each producer keeps {@link #IN_FLIGHT} such requests open. The rest are
 * left alone: short ones fire, request timeouts are still pending when the producers are done,
 * and are then cancelled.
 */
final class Workload {

    /** Requests each producer keeps open; the oldest one's reply comes as a new one starts. */
    static final int IN_FLIGHT = 64;
    /** How often the main thread samples progress and the pending count. */
    private static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How long to wait for the short timers to fire, beyond their longest delay. */
    private static final long SETTLE_GRACE_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How often the main thread looks whether the fence ran ({@link #awaitAbsorbed}). */
    private static final long FENCE_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    private final DemoOptions options;

    Workload(DemoOptions options) {
        this.options = options;
    }

    /** What one run on one scheduler measured. Every armed timer is in exactly one count. */
    record Result(long armed, long cancelled, long fired, long cancelledAtEnd, long unsettled,
            long early, Histogram lateness, double callsPerSecond, long peakPending, long elapsedNanos) {
    }

    /**
     * Runs {@code timers} timers on {@code subject}, {@code rate} per second from all producers
     * together (0: as fast as they can), and waits until each has fired or been cancelled.
     */
    <H> Result run(Subject<H> subject, int timers, long rate, Progress progress, String label) {
        Probe.Firings firings = new Probe.Firings();
        List<Producer<H>> producers = new ArrayList<>();
        for (int i = 0; i < options.producers; i++) {
            int share = timers / options.producers + (i < timers % options.producers ? 1 : 0);
            producers.add(new Producer<>(i, subject, share, rate, new SplittableRandom(options.seed + i), firings));
        }
        String phase = rate == 0 ? "flat out" : "paced";
        Sampler sampler = new Sampler(subject, progress, label, producers, timers, firings);

        long start = System.nanoTime();
        producers.forEach(Thread::start);
        for (Producer<H> producer : producers) {
            while (producer.isAlive()) {
                sampler.sample(phase + ", arming");
                joinQuietly(producer, SAMPLE_NANOS);
            }
            if (producer.failure != null) {
                throw new IllegalStateException(subject.name() + ": a producer failed", producer.failure);
            }
        }
        sampler.sample(phase + ", arming");
        long absorbedNanos = awaitAbsorbed(subject, sampler, phase) - start;
        long calls = 0;
        long cancelled = 0;
        long cancelledAtEnd = 0;
        for (Producer<H> producer : producers) {
            calls += producer.calls;
            cancelled += producer.cancelled;
            cancelledAtEnd += producer.cancelLeftovers();
        }

        long settled = cancelled + cancelledAtEnd;
        long settleBy = System.nanoTime() + options.shortDelay.maxNanos() + SETTLE_GRACE_NANOS;
        while (settled + firings.fired() < timers && System.nanoTime() - settleBy < 0) {
            sampler.sample(phase + ", firing");
            LockSupport.parkNanos(SAMPLE_NANOS);
        }
        long elapsed = System.nanoTime() - start;
        long fired = firings.fired();
        return new Result(timers, cancelled, fired, cancelledAtEnd, timers - settled - fired, firings.early(),
                firings.lateness().copy(), calls * 1e9 / absorbedNanos, sampler.peakPending, elapsed);
    }

    /**
     * Waits until the scheduler has done the work of every call the producers made: arms a
     * timer with no delay after their last call, and waits for it to run. Where a call only
     * queues its work for the scheduler's thread (Netty's {@code HashedWheelTimer}), that
     * timer runs after the queue ahead of it is worked off, at the scheduler's next tick; where
     * the call does the work itself (ours, the JDK's executor), at once. So a scheduler's rate
     * counts the work it deferred, not only how fast producers could hand it over.
     *
     * @return the {@code System.nanoTime()} at which the fence ran
     */
    private static <H> long awaitAbsorbed(Subject<H> subject, Sampler sampler, String phase) {
        Probe.Firings fence = new Probe.Firings();
        long armedAt = System.nanoTime();
        subject.schedule(new Probe(armedAt, fence), 0L);
        long giveUpAt = armedAt + SETTLE_GRACE_NANOS;
        long sampledAt = armedAt;
        while (fence.fired() == 0) {
            long now = System.nanoTime();
            if (now - giveUpAt > 0) {
                throw new IllegalStateException(subject.name() + ": a timer with no delay did not run");
            }
            if (now - sampledAt >= SAMPLE_NANOS) { // a sample reads the pending count: not every poll
                sampler.sample(phase + ", absorbing");
                sampledAt = now;
            }
            LockSupport.parkNanos(FENCE_POLL_NANOS);
        }
        return armedAt + fence.lateness().getMaxValue();
    }

    private static void joinQuietly(Thread thread, long nanos) {
        try {
            thread.join(TimeUnit.NANOSECONDS.toMillis(nanos));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * One thread of requests: arms a timer per request, cancels it when the reply comes. Its
     * counts are its own until it ends (then read by the main thread after join), except
     * {@link #armed}, published now and then for the progress line.
     */
    private final class Producer<H> extends Thread {
        private final Subject<H> subject;
        private final int timers;
        /** The pace of this producer; 0 for as fast as it can. */
        private final double nanosPerTimer;
        private final SplittableRandom random;
        private final Probe.Firings firings;
        /** Open requests whose reply will come: a ring, the oldest at {@code next}. */
        private final List<H> inFlight = new ArrayList<>(IN_FLIGHT);
        private final List<Probe> inFlightProbes = new ArrayList<>(IN_FLIGHT);
        private int next;
        /** Request timeouts whose reply never comes: still pending when the producer is done. */
        private final List<H> leftovers = new ArrayList<>();
        private final List<Probe> leftoverProbes = new ArrayList<>();
        /** Timers armed so far; written every 1024 timers, read by the sampler. */
        volatile long armed;
        /** Schedule and cancel calls. */
        long calls;
        /** Timers this producer cancelled before they fired. */
        long cancelled;
        Throwable failure;

        Producer(int index, Subject<H> subject, int timers, long rate, SplittableRandom random,
                Probe.Firings firings) {
            super("producer-" + index);
            setDaemon(true);
            this.subject = subject;
            this.timers = timers;
            this.nanosPerTimer = rate == 0 ? 0.0 : 1e9 * options.producers / rate;
            this.random = random;
            this.firings = firings;
        }

        @Override
        public void run() {
            try {
                long start = System.nanoTime();
                for (int i = 1; i <= timers; i++) {
                    armOne();
                    if ((i & 63) == 0 && nanosPerTimer > 0) {
                        keepPace(start, i);
                    }
                    if ((i & 1023) == 0) {
                        armed = i;
                    }
                }
                armed = timers;
                for (int i = 0; i < inFlight.size(); i++) {
                    cancelled += cancel(inFlight.get(i), inFlightProbes.get(i));
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        /** Waits until {@code armed} timers are due at this producer's pace. */
        private void keepPace(long start, int armed) {
            long ahead = start + (long) (armed * nanosPerTimer) - System.nanoTime();
            if (ahead > 0) {
                LockSupport.parkNanos(ahead);
            }
        }

        private void armOne() {
            boolean requestTimeout = random.nextInt(100) < options.longPercent;
            DelayRange range = requestTimeout ? options.longDelay : options.shortDelay;
            long delay = random.nextLong(range.minNanos(), range.maxNanos() + 1);
            Probe probe = new Probe(System.nanoTime() + delay, firings);
            H handle = subject.schedule(probe, delay);
            calls++;
            if (random.nextInt(100) < options.cancelPercent) {
                replyComes(handle, probe);
            } else if (requestTimeout) {
                leftovers.add(handle);
                leftoverProbes.add(probe);
            }
        }

        /** A new request is open; the oldest open one gets its reply, so its timer is cancelled. */
        private void replyComes(H handle, Probe probe) {
            if (inFlight.size() < IN_FLIGHT) {
                inFlight.add(handle);
                inFlightProbes.add(probe);
                return;
            }
            cancelled += cancel(inFlight.get(next), inFlightProbes.get(next));
            inFlight.set(next, handle);
            inFlightProbes.set(next, probe);
            next = (next + 1) % IN_FLIGHT;
        }

        /** Returns 1 if this call cancelled the timer, 0 if it fired (or is firing). */
        private int cancel(H handle, Probe probe) {
            calls++;
            // Only a true cancel settles the probe; otherwise the body fires or has fired.
            return subject.cancel(handle) && probe.settleCancelled() ? 1 : 0;
        }

        /** Cancels the request timeouts left pending; called by the main thread after join. */
        long cancelLeftovers() {
            long count = 0;
            for (int i = 0; i < leftovers.size(); i++) {
                count += cancel(leftovers.get(i), leftoverProbes.get(i));
            }
            return count;
        }
    }

    /** Samples the pending count for its peak, and shows progress. Main thread only. */
    private static final class Sampler {
        private final Subject<?> subject;
        private final Progress progress;
        private final String label;
        private final List<? extends Producer<?>> producers;
        private final long timers;
        private final Probe.Firings firings;
        long peakPending;

        Sampler(Subject<?> subject, Progress progress, String label, List<? extends Producer<?>> producers,
                long timers, Probe.Firings firings) {
            this.subject = subject;
            this.progress = progress;
            this.label = label;
            this.producers = producers;
            this.timers = timers;
            this.firings = firings;
        }

        void sample(String phase) {
            long pending = subject.pending();
            peakPending = Math.max(peakPending, pending);
            long armed = producers.stream().mapToLong(p -> p.armed).sum();
            progress.update(label, (double) armed / timers, String.format("%s: %,d armed, %,d fired, %,d pending",
                    phase, armed, firings.fired(), pending));
        }
    }
}
