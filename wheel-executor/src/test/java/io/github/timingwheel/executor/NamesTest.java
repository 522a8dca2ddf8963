package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A scheduler's name reaches what a user reads in a thread dump, a log line and a rejection:
 * its workers' names, its toString and so the message of a RejectedExecutionException.
 */
class NamesTest {

    private final List<WheelTimer> timers = new ArrayList<>();
    private final List<WheelScheduledExecutor> executors = new ArrayList<>();

    @AfterEach
    void stopAll() throws InterruptedException {
        timers.forEach(WheelTimer::stop);
        ExecutorTesting.shutDownAll(executors);
    }

    @Test
    void aNamedTimersWorkers_carryItsName_andItsToStringSaysIt() throws Exception {
        WheelTimer timer = timer(WheelTimer.builder().name("client-timeouts").build());

        assertThat(workerName(timer)).isEqualTo("client-timeouts-worker-1");
        assertThat(timer.toString()).isEqualTo("WheelTimer[client-timeouts, running, workers=1]");
    }

    @Test
    void twoDefaultTimers_haveWorkersOfDifferentNames() throws Exception {
        WheelTimer first = timer(new WheelTimer());
        WheelTimer second = timer(new WheelTimer());

        String firstWorker = workerName(first);
        String secondWorker = workerName(second);

        assertThat(firstWorker).matches("wheel-timer-\\d+-worker-1");
        assertThat(secondWorker).matches("wheel-timer-\\d+-worker-1").isNotEqualTo(firstWorker);
    }

    @Test
    void aTimersThreadNamePrefix_stillWins() throws Exception {
        WheelTimer timer = timer(WheelTimer.builder().name("named").threadNamePrefix("io-timer-").build());

        assertThat(workerName(timer)).isEqualTo("io-timer-1");
    }

    @Test
    void anExecutorsName_isInItsToString_andInARejectionAfterShutdown() {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().name("orders").workers(1).build();
        executors.add(executor);
        assertThat(executor.toString()).contains("WheelScheduledExecutor@").contains("[orders, Running, pool size = ");

        executor.shutdown();

        assertThatThrownBy(() -> executor.schedule(() -> { }, 1, SECONDS))
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("rejected from")
                .hasMessageContaining("[orders, ");
    }

    private WheelTimer timer(WheelTimer timer) {
        timers.add(timer);
        return timer;
    }

    /** The name of the thread that runs a timeout of {@code timer}. */
    private static String workerName(WheelTimer timer) throws Exception {
        CompletableFuture<String> name = new CompletableFuture<>();
        timer.newTimeout(timeout -> name.complete(Thread.currentThread().getName()), 1, MILLISECONDS);
        return name.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
}
