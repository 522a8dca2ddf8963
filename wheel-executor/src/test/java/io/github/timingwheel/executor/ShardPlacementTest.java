package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.ManualTimeSource;
import io.github.timingwheel.core.WheelShape;
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
