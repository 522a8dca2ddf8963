package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * Stops a scenario's clock when the subject has absorbed the work, not when the producers
 * stopped handing it over. Each producer, after its last operation, arms a zero-delay marker
 * timer from its own thread; the work counts as done when every marker has fired.
 *
 * <p>Why: Netty's {@code newTimeout} and {@code cancel} only add to unbounded queues that its
 * worker drains later (at most 100,000 new timeouts per tick), so a clock that stops with the
 * producers times Netty at the speed of a queue offer, whatever its worker still owes. A marker
 * queued after the last operation fires only once the worker has moved everything queued before
 * it (Netty: new timeouts in order, and every cancel, each tick), so the time to the marker
 * includes that debt. Subjects that do the work on the producer's thread (the JDK's executor,
 * ours when a shard's lock is free) fire the marker at once; ours, when a lock was busy, have at
 * most a shard's bounded inbox left, which the next lock holder applies.
 *
 * <p>Caveats: the marker waits for its own tick as well (up to 1 ms for {@code netty-hwt-1ms}, up
 * to 100 ms for {@code netty-hwt-100ms}), which the scenarios' spans of seconds make small but
 * not nothing; and it proves that queued work ahead of it was moved, not that our executors'
 * inboxes, which may hold cancels of tasks in other shards, are empty.
 */
final class Absorption {

    private final CountDownLatch pending;
    private final LongAccumulator lastFiredAt = new LongAccumulator(Math::max, Long.MIN_VALUE);
    private final TimerSubject.Task marker = new TimerSubject.Task() {
        @Override
        public void run() {
            lastFiredAt.accumulate(System.nanoTime());
            pending.countDown();
        }
    };

    /** Expects {@code markers} calls of {@link #arm}, one per producer. */
    Absorption(int markers) {
        this.pending = new CountDownLatch(markers);
    }

    /** Arms one marker; call from the producer's own thread after its last operation. */
    void arm(TimerSubject timers) {
        timers.arm(marker, 0L);
    }

    /**
     * Waits until every marker fired and returns the {@code System.nanoTime()} at which the last
     * one did.
     *
     * @throws IllegalStateException if they have not all fired within {@code timeoutSeconds}
     */
    long awaitFired(long timeoutSeconds) throws InterruptedException {
        if (!pending.await(timeoutSeconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the subject did not fire " + pending.getCount()
                    + " zero-delay markers within " + timeoutSeconds + " s");
        }
        return lastFiredAt.get();
    }
}
