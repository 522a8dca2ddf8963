package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.HOURS;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import org.junit.jupiter.api.Test;

/**
 * Prompt release through the inbox ({@code WheelWorkQueue} note [2]): while the only worker
 * leads and sleeps for an hour, a producer that schedules and cancels tasks due even later
 * (so none of them is a reason to wake it) still gets them out of the queue in batches: the
 * producer wakes the leader to drain the inbox, and the cancelled tasks become unreachable.
 */
class InboxReleaseTest {

    private static final int TASKS = 20 * WheelWorkQueue.DRAIN_BATCH;

    @Test
    void cancelledTasks_areReleasedInBatches_whileTheLeaderSleeps() throws InterruptedException {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        try {
            executor.schedule(() -> { }, 1, HOURS); // the leader parks until then
            awaitCondition("the leader parked", () -> executor.queue().leaderParked());
            long wakeUpsBefore = executor.queue().leaderWakeUps();

            List<WeakReference<ScheduledFuture<?>>> released = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                ScheduledFuture<?> future = executor.schedule(() -> { }, 2, HOURS);
                assertThat(future.cancel(false)).isTrue();
                if (i < TASKS / 2) {
                    released.add(new WeakReference<>(future));
                }
            }

            // Only the last batch or so may still wait in the inbox; the first half must be gone.
            awaitCondition("the first half of the cancelled tasks collected", () -> {
                System.gc();
                return released.stream().allMatch(ref -> ref.get() == null);
            });
            assertThat(executor.queue().leaderWakeUps())
                    .as("wake-ups of the leader to drain the inbox")
                    .isGreaterThan(wakeUpsBefore);
            assertThat(executor.getQueue().size()).as("pending after every cancel").isEqualTo(1);
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }
}
