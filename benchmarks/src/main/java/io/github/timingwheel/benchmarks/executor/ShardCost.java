package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.benchmarks.subjects.HeapMeter;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.ArrayList;
import java.util.List;

/**
 * The heap an executor holds for its shards: 20 executors of 1, 4, 16 and 64 shards each (one
 * worker, nothing scheduled), heap in use after full collections ({@link HeapMeter}) before and
 * after making them, per executor; twice over, so that the second pass shows the first one's
 * noise. The cost of one shard is the difference between two counts over the difference in
 * shards.
 *
 * <p>Run: {@code java -Xmx1g -cp benchmarks/target/benchmarks.jar
 * io.github.timingwheel.benchmarks.executor.ShardCost}
 */
public final class ShardCost {

    private static final int EXECUTORS = 20;
    private static final int[] SHARDS = {1, 4, 16, 64};

    private ShardCost() {
    }

    public static void main(String[] args) throws InterruptedException {
        for (int pass = 1; pass <= 2; pass++) {
            long oneShard = 0;
            for (int shards : SHARDS) {
                long perExecutor = heldPerExecutor(shards);
                if (shards == 1) {
                    oneShard = perExecutor;
                    System.out.printf("pass %d, shards %2d: %,d bytes per executor%n", pass, shards, perExecutor);
                } else {
                    System.out.printf("pass %d, shards %2d: %,d bytes per executor, %,d per shard beyond the first%n",
                            pass, shards, perExecutor, (perExecutor - oneShard) / (shards - 1));
                }
            }
        }
    }

    private static long heldPerExecutor(int shards) throws InterruptedException {
        long before = HeapMeter.retainedBytes();
        List<WheelScheduledExecutor> executors = new ArrayList<>();
        for (int i = 0; i < EXECUTORS; i++) {
            executors.add(WheelScheduledExecutor.builder().workers(1).shards(shards).daemon(true).build());
        }
        long held = (HeapMeter.retainedBytes() - before) / EXECUTORS;
        executors.forEach(WheelScheduledExecutor::shutdownNow);
        return held;
    }
}
