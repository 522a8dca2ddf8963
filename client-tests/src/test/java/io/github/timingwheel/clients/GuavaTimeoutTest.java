package io.github.timingwheel.clients;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.ListenableScheduledFuture;
import com.google.common.util.concurrent.ListeningScheduledExecutorService;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.common.util.concurrent.SettableFuture;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Guava over our executor: {@code Futures.withTimeout}, which arms a timer per future and
 * cancels it when the future completes first, and {@code MoreExecutors.listeningDecorator}, whose
 * futures wrap ours.
 */
class GuavaTimeoutTest {

    private static final long TIMEOUT_MILLIS = 25L;
    /** Far beyond any stall of a loaded machine: a future completed at once never meets it. */
    private static final long FAR_TIMEOUT_SECONDS = 60L;

    private final WheelScheduledExecutor timers = WheelScheduledExecutor.builder().workers(2).daemon(true)
            .name("guava-timeouts").build();

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    /**
     * Futures that never complete fail with a TimeoutException no sooner than the timeout by the
     * caller's clock, and Guava cancels each input. Mutants: a task that never runs, a deadline a
     * millisecond early.
     */
    @Test
    void withTimeout_ofFuturesNeverCompleted_timesOutNoSoonerThanAsked() throws Exception {
        List<SettableFuture<String>> inputs = new ArrayList<>();
        List<ListenableFuture<String>> outputs = new ArrayList<>();
        long[] elapsed = InRounds.elapsedNanos(20, 25, (index, onEnd) -> {
            SettableFuture<String> input = SettableFuture.create();
            ListenableFuture<String> output = Futures.withTimeout(input, TIMEOUT_MILLIS, MILLISECONDS, timers);
            output.addListener(onEnd, Runnable::run);
            inputs.add(input);
            outputs.add(output);
        });
        for (int i = 0; i < elapsed.length; i++) {
            ListenableFuture<String> output = outputs.get(i);
            assertThatThrownBy(output::get).as("future %d", i)
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(TimeoutException.class);
            assertThat(elapsed[i]).as("future %d timed out after (ns)", i)
                    .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(TIMEOUT_MILLIS));
            assertThat(inputs.get(i).isCancelled()).as("input %d cancelled by the timeout", i).isTrue();
        }
        assertThat(TimerRuns.afterShutdown(timers)).as("timeouts run on our executor").isEqualTo(elapsed.length);
    }

    /**
     * Futures completed in time pass their value through, and every timer armed for them is
     * cancelled and leaves the queue. Mutant: a cancel that reports success but leaves the task
     * in its wheel.
     */
    @Test
    void withTimeout_ofFuturesCompletedInTime_cancelsEveryTimer() throws Exception {
        EveryTimerCancelled.afterCallsAnsweredInTime(timers, 5_000, index -> {
            SettableFuture<String> input = SettableFuture.create();
            ListenableFuture<String> output = Futures.withTimeout(input, FAR_TIMEOUT_SECONDS, SECONDS, timers);
            input.set("value " + index);
            return output;
        });
    }

    /**
     * The listening decorator's futures: a cancelled one takes our task out of the queue, and one
     * that ran tells its listener, after which its delay is not positive. Mutants: a cancel that
     * leaves the task in its wheel; a task that never runs.
     */
    @Test
    void listeningDecorator_cancelRemovesOurTask_andARunTellsItsListener() throws Exception {
        ListeningScheduledExecutorService listening = MoreExecutors.listeningDecorator(timers);
        ListenableScheduledFuture<?> cancelled = listening.schedule(() -> { }, FAR_TIMEOUT_SECONDS, SECONDS);
        assertThat(cancelled.cancel(false)).isTrue();
        EveryTimerCancelled.assertOf(timers, 1);

        CountDownLatch ran = new CountDownLatch(1);
        long startedAt = System.nanoTime();
        ListenableScheduledFuture<String> run = listening.schedule(() -> "ran", TIMEOUT_MILLIS, MILLISECONDS);
        run.addListener(ran::countDown, Runnable::run);
        assertThat(ran.await(30, SECONDS)).isTrue();
        assertThat(System.nanoTime() - startedAt).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(TIMEOUT_MILLIS));
        assertThat(run.get()).isEqualTo("ran");
        assertThat(run.getDelay(MILLISECONDS)).isLessThanOrEqualTo(0L);
    }
}
