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
            int[] home = new int[1];
            Thread producer = new Thread(() -> home[0] = shards.homeShard());
            producer.start();
            producer.join();
            homes.add(home[0]);
        }
        assertThat(homes).hasSize(shardCount);
    }

    /**
     * Virtual threads (JDK 21 and later; skipped before) start at a shard their id picks, spread
     * at random, and take no turn: the platform threads that come after them still start on as
     * many shards as there are of them. The count of turns is a write to one shared line, which
     * a virtual thread per request would make once per request. Mutant: virtual threads counted
     * in turn like the others (the four platform threads after 1,001 virtual ones start on
     * shards 1, 2, 3 and 0 of 4 rather than 0 to 3: the order checked below).
     */
    @Test
    void virtualThreads_takeNoTurn() throws Exception {
        WheelShards shards = new WheelShards(4, WheelShape.defaults(), 0L);
        Set<Integer> virtualHomes = new TreeSet<>();
        for (int t = 0; t < 1_001; t++) {
            int[] home = new int[1];
            Thread producer = startVirtual(() -> home[0] = shards.homeShard());
            producer.join();
            virtualHomes.add(home[0]);
        }
        List<Integer> platformHomes = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int[] home = new int[1];
            Thread producer = new Thread(() -> home[0] = shards.homeShard());
            producer.start();
            producer.join();
            platformHomes.add(home[0]);
        }
        assertThat(virtualHomes).as("homes of 1,001 virtual threads, spread by their ids").hasSize(4);
        assertThat(platformHomes).as("the platform threads' homes, in turn from the first").containsExactly(0, 1, 2, 3);
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
