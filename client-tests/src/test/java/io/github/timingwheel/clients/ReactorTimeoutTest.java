package io.github.timingwheel.clients;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Reactor over our executor: {@code Mono.timeout} and {@code Flux.timeout} on
 * {@code Schedulers.fromExecutorService(timers)} arm one timer each ({@code Mono.delay}), and
 * cancel it from whichever thread ends the wait first; a {@code Flux}'s timeout is armed again for
 * every item, as a connection's read timeout is for every read.
 */
class ReactorTimeoutTest {

    private static final long TIMEOUT_MILLIS = 25L;
    /** Far beyond any stall of a loaded machine: a wait that ends at once never meets it. */
    private static final Duration FAR_TIMEOUT = Duration.ofSeconds(60);

    private final WheelScheduledExecutor timers = WheelScheduledExecutor.builder().workers(2).daemon(true)
            .name("reactor-timeouts").build();
    private final Scheduler scheduler = Schedulers.fromExecutorService(timers, "reactor-timeouts");

    @AfterEach
    void stop() {
        scheduler.dispose();
        timers.shutdownNow();
    }

    /**
     * Monos that never signal fail with a TimeoutException no sooner than the timeout by the
     * caller's clock. Mutants: a task that never runs, a deadline a millisecond early.
     */
    @Test
    void monoTimeout_ofMonosThatNeverSignal_failsNoSoonerThanAsked() throws Exception {
        List<CompletableFuture<Object>> results = new ArrayList<>();
        long[] elapsed = InRounds.elapsedNanos(20, 25, (index, onEnd) -> {
            CompletableFuture<Object> result = Mono.never()
                    .timeout(Duration.ofMillis(TIMEOUT_MILLIS), scheduler).toFuture();
            result.whenComplete((value, failure) -> onEnd.run());
            results.add(result);
        });
        for (int i = 0; i < elapsed.length; i++) {
            assertThat(results.get(i)).as("mono %d", i).isCompletedExceptionally();
            assertThat(failureOf(results.get(i))).as("mono %d", i).isInstanceOf(TimeoutException.class);
            assertThat(elapsed[i]).as("mono %d timed out after (ns)", i)
                    .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(TIMEOUT_MILLIS));
        }
        assertThat(TimerRuns.afterShutdown(timers)).as("timeouts run on our executor").isEqualTo(elapsed.length);
    }

    /**
     * Monos that signal in time pass their value through, and every timer armed for them is
     * cancelled and leaves the queue. Mutant: a cancel that reports success but leaves the task
     * in its wheel.
     */
    @Test
    void monoTimeout_ofMonosThatSignalInTime_cancelsEveryTimer() throws Exception {
        EveryTimerCancelled.afterCallsAnsweredInTime(timers, 5_000, index -> {
            Sinks.One<String> answer = Sinks.one();
            CompletableFuture<String> result = answer.asMono().timeout(FAR_TIMEOUT, scheduler).toFuture();
            answer.tryEmitValue("value " + index).orThrow();
            return result;
        });
    }

    /**
     * Streams whose timeout every item re-arms (the first wait and each one after an item are
     * far, the one after the last item is short), one stream after another: each item cancels
     * the timer armed before it, and each stream fails once, no sooner than the short timeout
     * after its last item. Twenty streams, so that one timer fired a millisecond early shows
     * even though the first timers of a JVM start a millisecond or two late (cold code).
     * Mutants: a cancel that leaves the task in its wheel (the far timers stay pending); a
     * deadline a millisecond early.
     */
    @Test
    void fluxTimeout_rearmedByEveryItem_failsOnceAfterTheLastItem() throws Exception {
        int streams = 20;
        int items = 100;
        for (int stream = 0; stream < streams; stream++) {
            Sinks.Many<Integer> source = Sinks.many().unicast().onBackpressureBuffer();
            TimedOutStream end = new TimedOutStream(stream);
            source.asFlux()
                    .timeout(Mono.delay(FAR_TIMEOUT, scheduler), item -> Mono.delay(
                            item == items - 1 ? Duration.ofMillis(TIMEOUT_MILLIS) : FAR_TIMEOUT, scheduler))
                    .subscribe(end::onItem, end::onError);
            long lastSentAt = 0L;
            for (int i = 0; i < items; i++) {
                lastSentAt = System.nanoTime(); // before the item arms its timer
                source.tryEmitNext(i).orThrow();
            }

            assertThat(end.awaitTimeout()).as("stream %d: items received", stream).isEqualTo(items);
            end.assertFailedNoSoonerThan(TIMEOUT_MILLIS, lastSentAt);
        }
        // Per stream, one timer before the first item and one after each; all but the last
        // cancelled, and out of the queue (a shutdown drops cancelled tasks: look before it).
        assertThat(timers.getQueue()).as("timers left in the queue").isEmpty();
        assertThat(TimerRuns.afterShutdown(timers)).as("timers run").isEqualTo(streams);
        assertThat(timers.metrics().scheduled()).as("timers armed").isEqualTo(streams * (items + 1L));
        assertThat(timers.metrics().cancelled()).as("timers cancelled").isEqualTo((long) streams * items);
        assertThat(timers.metrics().pending()).as("timers pending").isZero();
    }

    private static Throwable failureOf(CompletableFuture<?> result) {
        return result.handle((value, thrown) -> thrown).join();
    }
}
