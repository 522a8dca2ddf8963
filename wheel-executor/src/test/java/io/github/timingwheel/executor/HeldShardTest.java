package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.onAnotherShard;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The firing side never waits behind a producer (WheelShard [7], WheelShards [7]): a shard whose
 * lock another thread holds, as a producer descheduled inside its section would, is skipped by
 * the harvest; the other shards' due tasks run meanwhile, and the held shard's right after it
 * is let go. Each test holds the lock from the test thread itself (the lock has no owner), on a
 * manual clock, so nothing depends on timing but the 10 s limit of every wait.
 */
class HeldShardTest {

    /**
     * Two shards, a task due in each; one shard held. The other shard's task runs while it is
     * held, the held shard's does not, and then runs once it is let go. Mutant: a harvest that
     * waits for every due shard's lock (WheelShards.harvest passing wait = true, the locking
     * of every earlier version): the free shard's task does not run while the other is held.
     */
    @Test
    void tasksOfOtherShards_fireWhileAShardIsHeld_andTheHeldShardsRightAfterItIsLetGo() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(1).shards(2).timeSource(clock).daemon(true).build();
        try {
            CountDownLatch heldRan = new CountDownLatch(1);
            CountDownLatch freeRan = new CountDownLatch(1);
            int heldIndex = executor.queue().homeShard();
            executor.schedule(heldRan::countDown, 1, MILLISECONDS);
            onAnotherShard(executor, () -> executor.schedule(freeRan::countDown, 1, MILLISECONDS));

            WheelShard held = executor.queue().shard(heldIndex);
            held.lock();
            try {
                clock.advance(2, MILLISECONDS);
                await(freeRan);
                assertThat(heldRan.getCount()).as("the held shard's task, while it is held").isEqualTo(1);
            } finally {
                held.unlockAndHelp(); // as a producer lets go: it wakes the harvester
            }
            await(heldRan);
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }

    /**
     * One shard, held, with a task due: the worker does not park on the shard's lock (it parks as
     * the leader, for a retry) and does not run the task while the lock is held; once the lock
     * is let go the task runs. Mutants: a harvest that waits for the lock (the worker parks on
     * the shard: the blocker check fails); a harvest that takes no lock (the task runs while the
     * lock is held).
     */
    @Test
    void aDueTaskOfAHeldShard_waitsForIt_withoutTheWorkerBlockingOnTheLock() throws Exception {
        List<Thread> workers = new CopyOnWriteArrayList<>();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).shards(1)
                .threadFactory(runnable -> {
                    Thread worker = new Thread(runnable, "harvester");
                    worker.setDaemon(true);
                    workers.add(worker);
                    return worker;
                })
                .build();
        CountDownLatch ran = new CountDownLatch(1);
        try {
            executor.prestartAllCoreThreads();
            WheelShard shard = executor.queue().shard(0);
            shard.lock();
            try {
                executor.schedule(ran::countDown, 0, MILLISECONDS); // due now; through the inbox
                awaitCondition("the task run, or the harvest skipped the held shard",
                        () -> ran.getCount() == 0 || shard.harvestWanted != 0);
                // From the flag on, the worker runs (no blocker) until it parks: on the shard's
                // lock if the harvest waits for it, on the queue (a timed retry) if it skipped it.
                Thread worker = workers.get(0);
                awaitCondition("the worker parked", () -> LockSupport.getBlocker(worker) != null);
                assertThat(LockSupport.getBlocker(worker)).as("what the worker parks on")
                        .isNotSameAs(shard).isSameAs(executor.queue());
                assertThat(ran.getCount()).as("not run while the shard's lock is held").isEqualTo(1);
            } finally {
                shard.unlockAndHelp();
            }
            await(ran);
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }
}
