package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.startVirtual;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.ManualTimeSource;
import io.github.timingwheel.core.WheelShape;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Where producers' tasks go ({@code WheelShards} note [1]): threads take their first home shard
 * in turn, and one that meets its shard's lock busy moves to another.
 */
class ShardPlacementTest {

    /**
     * As many threads as shards, one after another, get as many home shards. The probe drawn at
     * random and made odd that this replaced (the mutant) put every thread on an odd shard:
     * two producers shared one in half the runs.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 4, 8})
    void asManyProducersAsShards_startOnAsManyShards(int shardCount) throws InterruptedException {
        WheelShards shards = new WheelShards(shardCount, WheelShape.defaults(), 0L);
        Set<Integer> homes = new TreeSet<>();
        for (int t = 0; t < shardCount; t++) {
            homes.add(homeOfANewPlatformThread(shards));
        }
        assertThat(homes).hasSize(shardCount);
    }

    /**
     * Virtual threads (JDK 21 and later; skipped before) start at a shard their id picks, spread
     * at random, and take no turn: the platform threads that come after them start on the
     * shards that follow the last platform thread's. The count of turns is a write to one
     * shared line, which a virtual thread per request would make once per request. Mutant:
     * virtual threads counted in turn like the others (the four platform threads after 1,001
     * virtual ones start one shard further on: the order checked below).
     */
    @Test
    void virtualThreads_takeNoTurn() throws Exception {
        WheelShards shards = new WheelShards(4, WheelShape.defaults(), 0L);
        int before = homeOfANewPlatformThread(shards);
        Set<Integer> virtualHomes = new TreeSet<>();
        for (int t = 0; t < 1_001; t++) {
            int[] home = new int[1];
            Thread producer = startVirtual(() -> home[0] = shards.homeShard());
            producer.join();
            virtualHomes.add(home[0]);
        }
        List<Integer> platformHomes = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            platformHomes.add(homeOfANewPlatformThread(shards));
        }
        assertThat(virtualHomes).as("homes of 1,001 virtual threads, spread by their ids").hasSize(4);
        assertThat(platformHomes).as("the platform threads' homes, in turn after the one before them")
                .containsExactly((before + 1) % 4, (before + 2) % 4, (before + 3) % 4, before);
    }

    private static int homeOfANewPlatformThread(WheelShards shards) throws InterruptedException {
        int[] home = new int[1];
        Thread producer = new Thread(() -> home[0] = shards.homeShard());
        producer.start();
        producer.join();
        return home[0];
    }

    /**
     * One thread's stamps ({@code WheelShards} notes [1], [6]) on two queues on System.nanoTime,
     * a second apart in origin, while the clock stands still: in each queue they increase, so
     * equal deadlines keep the thread's order, and they stay at the clock, so a stamp still says
     * when a task was made. Mutants: the stamp kept as a nanoTime reading but not converted to
     * a queue's wheel time (every stamp a reading of the JVM's clock, far past this queue's);
     * the last stamp not kept (equal stamps while the clock stands still).
     */
    @Test
    void stampsOnTheSystemClock_increaseInEveryQueue_andStayAtItsTime() throws InterruptedException {
        long origin = System.nanoTime();
        WheelShards older = new WheelShards(2, WheelShape.defaults(), origin - 1_000_000_000L, true);
        WheelShards newer = new WheelShards(2, WheelShape.defaults(), origin, true);
        long[][] stamps = new long[2][100];
        Thread producer = new Thread(() -> {
            long now = System.nanoTime();
            for (int i = 0; i < 100; i++) {
                stamps[0][i] = stampOf(older, now - (origin - 1_000_000_000L));
                stamps[1][i] = stampOf(newer, now - origin);
            }
        });
        producer.start();
        producer.join();
        for (int queue = 0; queue < 2; queue++) {
            for (int i = 1; i < 100; i++) {
                assertThat(stamps[queue][i]).as("queue %d, stamp %d", queue, i).isGreaterThan(stamps[queue][i - 1]);
            }
        }
        long madeAt = stamps[1][0];
        assertThat(stamps[0][99] - stamps[0][0]).as("the older queue's stamps, a clock that stood still").isLessThan(1_000L);
        assertThat(stamps[1][99] - madeAt).as("the newer queue's").isLessThan(1_000L);
        assertThat(stamps[0][0] - madeAt).as("the same instant in two queues a second apart")
                .isBetween(1_000_000_000L - 1_000L, 1_000_000_000L + 1_000L);
    }

    private static long stampOf(WheelShards shards, long now) {
        InertTask task = new InertTask();
        shards.place(task, now, now + 1_000_000L);
        return task.sequence() >>> WheelShard.SHARD_BITS;
    }

    /**
     * A schedule that meets its home shard's lock held goes through the inbox, and the thread's
     * next tasks go to another shard; every time (the mutant: a move that lands on the same
     * shard, or none).
     */
    @Test
    void aScheduleMeetingABusyLock_movesTheProducerToAnotherShard() throws InterruptedException {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(1).shards(4).timeSource(new ManualTimeSource()).daemon(true).build();
        try {
            for (int move = 0; move < 32; move++) {
                int home = executor.queue().homeShard();
                WheelShard busy = executor.queue().shard(home);
                busy.lock();
                try {
                    executor.schedule(() -> { }, 1, SECONDS);
                } finally {
                    busy.unlock();
                }
                assertThat(executor.queue().homeShard()).as("home after move %d", move).isNotEqualTo(home);
            }
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }
}
