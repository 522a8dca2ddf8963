package io.github.timingwheel.clients;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A subscriber's record of one stream under a timeout operator: how many items it received, and
 * when and with what the stream failed. Pass {@link #onItem} and {@link #onError} to the
 * library's subscribe.
 */
final class TimedOutStream {

    private final int index;
    private final AtomicInteger received = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong failedAt = new AtomicLong();
    private final CountDownLatch ended = new CountDownLatch(1);

    /** @param index the stream's number, for the assertions' messages */
    TimedOutStream(int index) {
        this.index = index;
    }

    void onItem(Object item) {
        received.incrementAndGet();
    }

    void onError(Throwable thrown) {
        failedAt.set(System.nanoTime());
        failure.set(thrown);
        ended.countDown(); // after the writes: awaitTimeout sees them
    }

    /** Whether the stream has failed already. */
    boolean hasEnded() {
        return ended.getCount() == 0;
    }

    /**
     * Waits at most 30 s for the stream to fail, asserts that it failed with a TimeoutException,
     * and answers how many items it received before.
     */
    int awaitTimeout() throws InterruptedException {
        assertThat(ended.await(30, SECONDS)).as("stream %d timed out", index).isTrue();
        assertThat(failure.get()).as("stream %d", index).isInstanceOf(TimeoutException.class);
        return received.get();
    }

    /** Asserts that the stream failed no sooner than {@code timeoutMillis} after {@code sentAt}. */
    void assertFailedNoSoonerThan(long timeoutMillis, long sentAt) {
        assertThat(failedAt.get() - sentAt).as("stream %d failed after its last item (ns)", index)
                .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(timeoutMillis));
    }
}
