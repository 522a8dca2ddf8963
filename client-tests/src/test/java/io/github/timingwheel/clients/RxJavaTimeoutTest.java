package io.github.timingwheel.clients;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.reactivex.rxjava3.core.Scheduler;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.schedulers.Schedulers;
import io.reactivex.rxjava3.subjects.PublishSubject;
import io.reactivex.rxjava3.subjects.SingleSubject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RxJava 3 over our executor, through {@code Schedulers.from(timers)}. {@code Single.timeout}
 * arms its timer with the scheduler's {@code scheduleDirect}: one task of ours per call, cancelled
 * from whichever thread ends the wait first. {@code Observable.timeout} arms one per item through
 * a {@code Scheduler.Worker}, which schedules the delay on our executor and, when it fires, hands
 * the timeout's action to our {@code execute} (a second, zero-delay task of ours); each item
 * cancels the timer armed before it, as a connection's read timeout is re-armed on every read.
 */
class RxJavaTimeoutTest {

    private static final long TIMEOUT_MILLIS = 25L;
    /** Far beyond any stall of a loaded machine: a wait that ends at once never meets it. */
    private static final long FAR_TIMEOUT_SECONDS = 60L;

    private final WheelScheduledExecutor timers = WheelScheduledExecutor.builder().workers(2).daemon(true)
            .name("rxjava-timeouts").build();
    private final Scheduler scheduler = Schedulers.from(timers);

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    /**
     * Singles that never signal fail with a TimeoutException no sooner than the timeout by the
     * caller's clock, each by one timer run. Mutants: a task that never runs, a deadline a
     * millisecond early.
     */
    @Test
    void singleTimeout_ofSinglesThatNeverSignal_failsNoSoonerThanAsked() throws Exception {
        List<CompletableFuture<Object>> results = new ArrayList<>();
        long[] elapsed = InRounds.elapsedNanos(20, 25, (index, onEnd) -> {
            CompletableFuture<Object> result = Single.never()
                    .timeout(TIMEOUT_MILLIS, MILLISECONDS, scheduler).toCompletionStage().toCompletableFuture();
            result.whenComplete((value, failure) -> onEnd.run());
            results.add(result);
        });
        for (int i = 0; i < elapsed.length; i++) {
            assertThat(results.get(i).handle((value, thrown) -> thrown).join()).as("single %d", i)
                    .isInstanceOf(TimeoutException.class);
            assertThat(elapsed[i]).as("single %d timed out after (ns)", i)
                    .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(TIMEOUT_MILLIS));
        }
        assertThat(TimerRuns.afterShutdown(timers)).as("timeouts run on our executor").isEqualTo(elapsed.length);
    }

    /**
     * Singles that signal in time pass their value through, and every timer armed for them is
     * cancelled and leaves the queue. Mutant: a cancel that reports success but leaves the task
     * in its wheel.
     */
    @Test
    void singleTimeout_ofSinglesThatSignalInTime_cancelsEveryTimer() throws Exception {
        EveryTimerCancelled.afterCallsAnsweredInTime(timers, 5_000, index -> {
            SingleSubject<String> answer = SingleSubject.create();
            CompletableFuture<String> result = answer.timeout(FAR_TIMEOUT_SECONDS, SECONDS, scheduler)
                    .toCompletionStage().toCompletableFuture();
            answer.onSuccess("value " + index);
            return result;
        });
    }

    /**
     * Streams whose timeout every item re-arms, one stream after another: each fails once, no
     * sooner than the timeout after the last item it received, and leaves no timer in the queue.
     * The timeout is the same for every item (the operator's own), so a stall of the emitting
     * thread longer than it ends a stream early; the check holds against the last item received
     * all the same. Twenty streams, so that one timer fired a millisecond early shows even though
     * the first timers of a JVM start a millisecond or two late. Mutant: a deadline a
     * millisecond early. A cancel that leaves its task in the wheel passes here: every timer of
     * these streams is short, and a harvest drops a cancelled task once its deadline has come
     * (the test of singles that signal in time catches that one).
     */
    @Test
    void observableTimeout_rearmedByEveryItem_failsNoSoonerThanTheTimeoutAfterTheLastItem() throws Exception {
        int streams = 20;
        int items = 100;
        for (int stream = 0; stream < streams; stream++) {
            PublishSubject<Integer> source = PublishSubject.create();
            long[] sentAt = new long[items];
            TimedOutStream end = new TimedOutStream(stream);
            source.timeout(TIMEOUT_MILLIS, MILLISECONDS, scheduler).subscribe(end::onItem, end::onError);
            for (int i = 0; i < items && !end.hasEnded(); i++) {
                sentAt[i] = System.nanoTime(); // before the item arms its timer
                source.onNext(i);
            }

            int last = end.awaitTimeout() - 1;
            assertThat(last).as("stream %d: items received before its timeout, less one", stream).isNotNegative();
            end.assertFailedNoSoonerThan(TIMEOUT_MILLIS, sentAt[last]);
        }
        assertThat(timers.getQueue()).as("timers left in the queue").isEmpty();
        // Per stream, the timer that fired and the worker's hand-off of the timeout's action.
        assertThat(TimerRuns.afterShutdown(timers)).as("runs").isEqualTo(2L * streams);
        assertThat(timers.metrics().cancelled()).as("timers cancelled").isPositive();
        assertThat(timers.metrics().pending()).as("timers pending").isZero();
    }
}
