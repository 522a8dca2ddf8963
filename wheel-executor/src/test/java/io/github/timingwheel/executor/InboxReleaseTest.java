package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.onAnotherShard;
import static java.util.concurrent.TimeUnit.HOURS;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import org.junit.jupiter.api.Test;

/**
 * Prompt release of cancelled tasks ({@code WheelShard} note [2]) while the only worker leads
 * and sleeps for an hour, so that nothing but the producer's own work can release them: in
 * place, a cancel unlinks its task at once without waking anyone; through the inbox (the
 * shard's lock held by another thread), the cancelled tasks are released in batches once the
 * lock is free, and the inbox never keeps them until their deadline.
 */
class InboxReleaseTest {

    private static final int TASKS = 20 * WheelShard.DRAIN_BATCH;
    /** Within the inbox's bound, so that the producer never has to wait for the held lock. */
    private static final int TASKS_THROUGH_INBOX = WheelShard.INBOX_CAPACITY / 2;

    @Test
    void aCancelInPlace_releasesItsTaskAtOnce_withoutWakingTheLeader() throws InterruptedException {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        try {
            // The leader parks until then. Armed on another thread, so on another shard: among
            // this thread's arrivals it would outlive its shard's staging ring, and be placed in
            // its slot, whose start comes before its deadline, which wakes the leader once to
            // plan again (TimingWheel [11]).
            onAnotherShard(executor, () -> executor.schedule(() -> { }, 1, HOURS));
            awaitCondition("the leader parked", () -> executor.queue().leaderParked());
            long wakeUpsBefore = executor.queue().leaderWakeUps();

            List<WeakReference<ScheduledFuture<?>>> released = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                ScheduledFuture<?> future = executor.schedule(() -> { }, 2, HOURS);
                assertThat(future.cancel(false)).isTrue();
                released.add(new WeakReference<>(future));
            }
            assertThat(executor.queue().inboxSize()).as("tasks left in the inboxes").isZero();
            awaitCondition("every cancelled task collected", () -> {
                System.gc();
                return released.stream().allMatch(ref -> ref.get() == null);
            });
            assertThat(executor.queue().leaderWakeUps())
                    .as("wake-ups of the leader, which had nothing to do")
                    .isEqualTo(wakeUpsBefore);
            assertThat(executor.getQueue().size()).as("pending after every cancel").isEqualTo(1);
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }

    @Test
    void cancelsThroughTheInbox_areReleasedInBatches_onceTheShardIsFree() throws InterruptedException {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).shards(1).daemon(true).build();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            WheelShard shard = executor.queue().shard(0);
            shard.lock();
            try {
                held.countDown();
                ExecutorTesting.awaitInTask(release);
            } finally {
                shard.unlock();
            }
        }, "inbox-release-test-holder");
        try {
            executor.schedule(() -> { }, 1, HOURS);
            awaitCondition("the leader parked", () -> executor.queue().leaderParked());
            holder.setDaemon(true);
            holder.start();
            await(held);

            List<WeakReference<ScheduledFuture<?>>> released = new ArrayList<>();
            for (int i = 0; i < TASKS_THROUGH_INBOX; i++) {
                ScheduledFuture<?> future = executor.schedule(() -> { }, 2, HOURS);
                assertThat(future.cancel(false)).isTrue();
                if (i < TASKS_THROUGH_INBOX / 2) {
                    released.add(new WeakReference<>(future));
                }
            }
            assertThat(executor.queue().inboxSize()).as("tasks waiting in the inbox").isEqualTo(TASKS_THROUGH_INBOX);
            release.countDown();
            holder.join();

            // The backlog asked the leader to drain it: the first half at least must be gone.
            awaitCondition("the first half of the cancelled tasks collected", () -> {
                System.gc();
                return released.stream().allMatch(ref -> ref.get() == null);
            });
            assertThat(executor.getQueue().size()).as("pending after every cancel").isEqualTo(1);
        } finally {
            release.countDown();
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }
}
