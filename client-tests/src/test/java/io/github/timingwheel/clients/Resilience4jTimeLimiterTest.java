package io.github.timingwheel.clients;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.timelimiter.TimeLimiter;
import io.github.resilience4j.timelimiter.TimeLimiterConfig;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Resilience4j's TimeLimiter over our executor: {@code executeCompletionStage} arms a timer per
 * call on the scheduler it is given and cancels it when the call completes first.
 */
class Resilience4jTimeLimiterTest {

    private static final long TIMEOUT_MILLIS = 25L;

    private final WheelScheduledExecutor timers = WheelScheduledExecutor.builder().workers(2).daemon(true)
            .name("time-limiter").build();

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    /**
     * Calls that never complete fail with a TimeoutException no sooner than the limit by the
     * caller's clock. Mutants: a task that never runs, a deadline a millisecond early.
     */
    @Test
    void callsThatNeverComplete_timeOutNoSoonerThanTheLimit() throws Exception {
        TimeLimiter limiter = TimeLimiter.of(TimeLimiterConfig.custom()
                .timeoutDuration(Duration.ofMillis(TIMEOUT_MILLIS)).build());
        List<CompletableFuture<String>> results = new ArrayList<>();
        long[] elapsed = InRounds.elapsedNanos(20, 25, (index, onEnd) -> results.add(limiter
                .executeCompletionStage(timers, () -> new CompletableFuture<String>()).toCompletableFuture()
                .whenComplete((value, failure) -> onEnd.run())));
        for (int i = 0; i < elapsed.length; i++) {
            CompletableFuture<String> result = results.get(i);
            assertThatThrownBy(result::get).as("call %d", i)
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(TimeoutException.class);
            assertThat(elapsed[i]).as("call %d timed out after (ns)", i)
                    .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(TIMEOUT_MILLIS));
        }
        assertThat(TimerRuns.afterShutdown(timers)).as("limits run on our executor").isEqualTo(elapsed.length);
    }

    /**
     * Calls that complete in time keep their value, and every timer armed for them is cancelled
     * and leaves the queue. Mutant: a cancel that reports success but leaves the task in its
     * wheel.
     */
    @Test
    void callsCompletedInTime_cancelEveryTimer() throws Exception {
        TimeLimiter limiter = TimeLimiter.of(TimeLimiterConfig.custom().timeoutDuration(Duration.ofSeconds(60)).build());
        EveryTimerCancelled.afterCallsAnsweredInTime(timers, 5_000, index -> {
            CompletableFuture<String> call = new CompletableFuture<>();
            CompletableFuture<String> result = limiter.executeCompletionStage(timers, () -> call).toCompletableFuture();
            call.complete("value " + index);
            return result;
        });
    }
}
