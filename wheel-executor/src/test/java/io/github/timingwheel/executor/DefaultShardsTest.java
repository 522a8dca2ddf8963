package io.github.timingwheel.executor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The default number of shards leaves room to move (WheelWorkQueue.defaultShardCount): when as
 * many threads schedule as Netty makes event loops by default (two per processor) and each
 * holds a shard of its own, at least as many shards are free, so that a thread that meets a
 * busy lock and moves to another shard at random more likely lands on a free one than on
 * another thread's. With exactly as many shards as such threads (the earlier default), every
 * move landed on another thread's shard (docs/decisions.md). The count is capped at {@link WheelShard#MAX_SHARDS}, where the rule gives way.
 */
class DefaultShardsTest {

    @Test
    void theDefault_isAPowerOfTwo_withAtLeastAsManyFreeShardsAsNettysDefaultEventLoops() {
        int shards = WheelWorkQueue.defaultShardCount();
        int eventLoops = 2 * Runtime.getRuntime().availableProcessors();
        assertThat(Integer.bitCount(shards)).as("a power of two").isEqualTo(1);
        assertThat(shards).isLessThanOrEqualTo(WheelShard.MAX_SHARDS);
        if (2 * eventLoops <= WheelShard.MAX_SHARDS) {
            assertThat(shards - eventLoops).as("shards left free when each event loop holds one")
                    .isGreaterThanOrEqualTo(eventLoops);
        }
    }

    @Test
    void aBuiltExecutor_hasTheDefaultNumberOfShards() {
        try (WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).build()) {
            assertThat(executor.queue().shardCount()).isEqualTo(WheelWorkQueue.defaultShardCount());
        }
    }
}
