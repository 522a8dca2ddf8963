package io.github.timingwheel.executor;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.Timeout;
import java.util.concurrent.ScheduledFuture;
import org.junit.jupiter.api.Test;

/**
 * Both schedulers are {@link AutoCloseable} on Java 17 (this module is compiled with
 * {@code --release 17}, so these blocks would not compile otherwise), and leaving the block
 * shuts each down as documented: the executor as {@code ExecutorService.close()}, which waits
 * for the delayed tasks that the shutdown policy keeps; the timer as {@code stop()}.
 */
class TryWithResourcesTest {

    @Test
    void executor_closeWaitsForTheDelayedTasksThePolicyKeeps() throws Exception {
        WheelScheduledExecutor outside;
        ScheduledFuture<String> delayed;
        try (WheelScheduledExecutor timers = WheelScheduledExecutor.builder().workers(2).build()) {
            outside = timers;
            delayed = timers.schedule(() -> "ran", 20, MILLISECONDS);
        }
        assertThat(outside.isTerminated()).isTrue();
        assertThat(delayed.isDone()).isTrue();
        assertThat(delayed.get(0, SECONDS)).isEqualTo("ran");
    }

    @Test
    void executor_closeDropsDelayedTasks_whenThePolicySaysSo() {
        WheelScheduledExecutor outside;
        ScheduledFuture<?> later;
        try (WheelScheduledExecutor timers = WheelScheduledExecutor.builder().workers(2).build()) {
            outside = timers;
            timers.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            later = timers.schedule(() -> { }, 1, HOURS);
        }
        assertThat(outside.isTerminated()).isTrue();
        assertThat(later.isCancelled()).isTrue();
    }

    @Test
    void timer_closeStopsAndCancelsWhatIsPending() {
        WheelTimer outside;
        Timeout pending;
        try (WheelTimer timer = new WheelTimer()) {
            outside = timer;
            pending = timer.newTimeout(t -> { }, 1, HOURS);
        }
        assertThat(pending.isCancelled()).isTrue();
        assertThat(outside.stop()).isEmpty();
    }
}
