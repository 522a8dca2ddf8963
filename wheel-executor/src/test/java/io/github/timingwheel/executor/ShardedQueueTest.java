package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * What sharding must not change: submission order among equal deadlines across shards, for
 * submissions ordered by happens-before ({@code WheelShards} note [6]), and {@code remove} of a
 * due task that a harvest handed out but no worker has taken yet ({@code ReadyBatch}).
 */
class ShardedQueueTest {

    private static final int PAIRS = 64;
    private static final int MOVES = 32;
    private static final long DELAY_NANOS = MILLISECONDS.toNanos(1);

    /**
     * Pairs of threads: A schedules, a nanosecond passes, A hands over to B through a latch,
     * and B schedules for the same deadline (a delay one nanosecond shorter). Each thread has
     * its own home shard, so most pairs land on two shards. With one worker, every A runs
     * before its B (WheelShards [6]: the later submission read the later time). Stamps that
     * ignore the clock (the mutant {@code Producer.nextStamp} returning {@code lastStamp + 1}:
     * a per-thread count) fail it.
     */
    @Test
    void equalDeadlines_runInHappensBeforeOrder_acrossShards() throws InterruptedException {
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(1).shards(8).timeSource(clock).daemon(true).build();
        List<String> ran = new CopyOnWriteArrayList<>();
        List<String> expected = new ArrayList<>();
        int pairsOnTwoShards = 0;
        try {
            for (int pair = 0; pair < PAIRS; pair++) {
                String first = "A" + pair;
                String second = "B" + pair;
                int[] shards = new int[2];
                CountDownLatch handedOver = new CountDownLatch(1);
                Thread a = new Thread(() -> {
                    shards[0] = executor.queue().homeShard();
                    executor.schedule(() -> ran.add(first), DELAY_NANOS, NANOSECONDS);
                    clock.advance(1, NANOSECONDS);
                    handedOver.countDown();
                });
                Thread b = new Thread(() -> {
                    try {
                        handedOver.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    shards[1] = executor.queue().homeShard();
                    executor.schedule(() -> ran.add(second), DELAY_NANOS - 1, NANOSECONDS);
                });
                a.start();
                b.start();
                a.join();
                b.join();
                if (shards[0] != shards[1]) {
                    pairsOnTwoShards++;
                }
                expected.add(first);
                expected.add(second);
            }
            assertThat(pairsOnTwoShards).as("pairs whose threads had different home shards").isPositive();
            CountDownLatch allRan = new CountDownLatch(1);
            executor.schedule(allRan::countDown, DELAY_NANOS, NANOSECONDS); // after every pair
            clock.advance(2 * DELAY_NANOS, NANOSECONDS);
            await(allRan);
        } finally {
            executor.shutdown();
            awaitTermination(executor);
        }
        assertThat(ran).containsExactlyElementsOf(expected);
    }

    /**
     * One thread schedules many tasks for one deadline while the clock stands still, and moves
     * to another shard now and then (its home shard's lock is busy: held here, so the task
     * goes through the inbox and the thread's probe moves on). With one worker they run in
     * submission order. Stamps from the clock alone (the mutant {@code Producer.nextStamp}
     * returning {@code now}: equal across shards, so ties go by shard index) fail it.
     */
    @Test
    void equalDeadlines_fromOneThread_runInSubmissionOrder_asItMovesShards() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(1).shards(8).timeSource(clock).daemon(true).build();
        List<Integer> ran = new CopyOnWriteArrayList<>();
        int movesToALowerShard = 0;
        try {
            int shard = executor.queue().homeShard();
            for (int i = 0; i < 40 * MOVES; i++) {
                int index = i;
                if (i % 40 == 39) {
                    WheelShard busy = executor.queue().shard(shard);
                    busy.lock();
                    try {
                        executor.schedule(() -> ran.add(index), 1, MILLISECONDS);
                    } finally {
                        busy.unlock();
                    }
                    int next = executor.queue().homeShard();
                    movesToALowerShard += next < shard ? 1 : 0;
                    shard = next;
                } else {
                    executor.schedule(() -> ran.add(index), 1, MILLISECONDS);
                }
            }
            assertThat(movesToALowerShard).as("moves to a shard of a lower index").isPositive();
            CountDownLatch allRan = new CountDownLatch(1);
            executor.schedule(allRan::countDown, 1, MILLISECONDS);
            clock.advance(1, MILLISECONDS);
            await(allRan);
        } finally {
            executor.shutdown();
            awaitTermination(executor);
        }
        assertThat(ran).hasSize(40 * MOVES).isSorted();
    }

    /**
     * Three tasks due at the same instant leave the wheel in one harvest: the worker runs the
     * first (which blocks) and the other two wait in the ready batch. Until a worker takes one,
     * {@code remove} must take it back, as the JDK's queue does until {@code take}. The mutant
     * {@code ReadyBatch.remove} returning false (the behaviour before the batch's slots could be
     * emptied by a removal) fails it.
     */
    @Test
    void aDueTaskHandedOutButNotTaken_canBeRemoved() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(1).timeSource(clock).daemon(true).build();
        CountDownLatch blocking = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean removedRan = new AtomicBoolean();
        try {
            executor.schedule(() -> {
                blocking.countDown();
                ExecutorTesting.awaitInTask(release);
            }, 1, MILLISECONDS);
            ScheduledFuture<?> kept = executor.schedule(() -> { }, 1, MILLISECONDS);
            ScheduledFuture<?> removed = executor.schedule(() -> removedRan.set(true), 1, MILLISECONDS);
            clock.advance(1, MILLISECONDS);
            await(blocking);

            assertThat(executor.getQueue().contains(removed)).as("queued before the removal").isTrue();
            assertThat(executor.remove((Runnable) removed)).as("remove of a task no worker took").isTrue();
            assertThat(executor.getQueue().contains(removed)).as("queued after the removal").isFalse();
            assertThat(executor.remove((Runnable) removed)).as("a second remove").isFalse();
            assertThat(executor.getQueue()).containsExactly((Runnable) kept);

            release.countDown();
            ExecutorTesting.get(kept);
        } finally {
            release.countDown();
            executor.shutdown();
            awaitTermination(executor);
        }
        assertThat(removedRan).as("the removed task ran").isFalse();
    }

    /**
     * {@code drainTo} takes the due tasks a harvest handed out that no worker has taken yet, in
     * order, before what is still in the wheels: they are the queue's until a worker takes them.
     * Mutant (PIT): {@code ReadyBatch.claimAll} returning at once while slots are left (drainTo
     * then moved none of them).
     */
    @Test
    void drainTo_takesTheTasksWaitingInTheReadyBatch() throws Exception {
        try (BlockedWorker blocked = new BlockedWorker()) {
            List<Runnable> drained = new ArrayList<>();

            int moved = blocked.executor.getQueue().drainTo(drained);

            assertThat(moved).isEqualTo(3);
            assertThat(drained).as("the three waiting, in submission order").containsExactlyElementsOf(blocked.waiting);
            assertThat(blocked.executor.getQueue()).isEmpty();
            blocked.releaseAndFinish();
        }
    }

    /**
     * {@code clear} drops the due tasks waiting in the ready batch too: none runs once the
     * worker is free. Mutant (PIT): {@code ReadyBatch.claimAll} returning at once (the queue
     * still held the three).
     */
    @Test
    void clear_dropsTheTasksWaitingInTheReadyBatch() throws Exception {
        try (BlockedWorker blocked = new BlockedWorker()) {
            blocked.executor.getQueue().clear();

            assertThat(blocked.executor.getQueue()).isEmpty();
            blocked.releaseAndFinish();
        }
    }

    /**
     * {@code shutdownNow} returns the due tasks waiting in the ready batch among the tasks that
     * never ran, and none of them runs. It passes on the mutant the drainTo test catches:
     * ThreadPoolExecutor removes one by one whatever its drainTo left in the queue.
     */
    @Test
    void shutdownNow_returnsTheTasksWaitingInTheReadyBatch() throws Exception {
        try (BlockedWorker blocked = new BlockedWorker()) {
            List<Runnable> neverRan = blocked.executor.shutdownNow();

            assertThat(neverRan).containsExactlyInAnyOrderElementsOf(blocked.waiting);
            blocked.releaseAndFinish();
        }
    }

    /**
     * A poll of the queue from another thread that takes the first of three due tasks leaves
     * the other two in a ready batch, and must wake the parked worker to run them: on this
     * clock, which does not move by itself, the worker parked for the hour until their deadline
     * and would sleep through it. Mutant (PIT): a poll without that wake-up (the two did not
     * run within the test's timeout).
     */
    @Test
    void aPollThatLeavesDueTasksInTheReadyBatch_wakesTheParkedWorker() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        List<Thread> workers = new CopyOnWriteArrayList<>();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).timeSource(clock)
                .threadFactory(ExecutorTesting.recordingThreads("poll-test-worker", workers)).build();
        CountDownLatch othersRan = new CountDownLatch(2);
        try {
            List<Runnable> due = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                due.add((Runnable) executor.schedule(othersRan::countDown, 1, HOURS));
            }
            ExecutorTesting.awaitTimedPark(workers);
            clock.advance(1, HOURS);

            Runnable polled = executor.getQueue().poll();

            assertThat(polled).as("the first due task").isSameAs(due.get(0));
            await(othersRan);
            assertThat(((ScheduledFuture<?>) polled).isDone()).as("the polled task is the caller's now").isFalse();
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }

    /**
     * One worker on a manual clock, blocked in the first of four tasks due at the same instant;
     * the other three, counted if they run, wait in the ready batch.
     */
    private static final class BlockedWorker implements AutoCloseable {
        final ManualTimeSource clock = new ManualTimeSource();
        final WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(1).timeSource(clock).daemon(true).build();
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger waitingRan = new AtomicInteger();
        final List<Runnable> waiting = new ArrayList<>();

        BlockedWorker() throws InterruptedException {
            CountDownLatch blocking = new CountDownLatch(1);
            executor.schedule(() -> {
                blocking.countDown();
                ExecutorTesting.awaitInTask(release);
            }, 1, MILLISECONDS);
            for (int i = 0; i < 3; i++) {
                waiting.add((Runnable) executor.schedule(waitingRan::incrementAndGet, 1, MILLISECONDS));
            }
            clock.advance(1, MILLISECONDS);
            await(blocking);
            assertThat(executor.getQueue()).as("waiting in the ready batch")
                    .containsExactlyInAnyOrderElementsOf(waiting);
        }

        /** Frees the worker, lets it run whatever is left, and checks that none of the three ran. */
        void releaseAndFinish() throws InterruptedException {
            release.countDown();
            executor.shutdown();
            awaitTermination(executor);
            assertThat(waitingRan).as("tasks taken out of the queue that ran").hasValue(0);
        }

        @Override
        public void close() {
            release.countDown();
            executor.shutdownNow();
            try {
                awaitTermination(executor);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    /**
     * A view of the queue locks every shard (WheelShards [4]): while another thread holds a
     * shard's lock (a producer mid-link, a harvest), {@code getQueue().size()} waits for it
     * rather than read a wheel being changed, and then counts the task. Mutant: a view that
     * takes no lock (every other test of this module passed with it; this one finds the viewer
     * done while the lock is held).
     */
    @Test
    void aView_waitsForAShardLockHeldElsewhere() throws InterruptedException {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).shards(2).daemon(true).build();
        AtomicInteger size = new AtomicInteger(-1);
        Thread viewer = new Thread(() -> size.set(executor.getQueue().size()), "viewer");
        try {
            executor.schedule(() -> { }, 1, HOURS);
            WheelShard shard = executor.queue().shard(0);
            shard.lock();
            try {
                viewer.start();
                awaitCondition("the viewer done, or parked on the shard's lock",
                        () -> !viewer.isAlive() || LockSupport.getBlocker(viewer) == shard);
                assertThat(viewer.isAlive()).as("the view waits while the lock is held").isTrue();
            } finally {
                shard.unlock();
            }
            viewer.join(SECONDS.toMillis(ExecutorTesting.TIMEOUT_SECONDS));
            assertThat(size.get()).as("the view's count once the lock is free").isEqualTo(1);
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }
}
