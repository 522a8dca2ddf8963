package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The leader plans its park from the clock as it reads after a harvest that handed nothing out,
 * not before it: a harvest may take milliseconds (the wheel sorting a tick's stragglers ahead of
 * it, TimingWheel [14]), and a task that came due meanwhile must not wait for the time until
 * the next event as it was before the harvest.
 */
class LongHarvestTest {

    /**
     * One worker, a manual clock. A task due in 30 minutes; another due in 1 ms, which the
     * harvest finds re-armed for later (a lazy re-arm, WheelShards [5]: it is linked again, not
     * handed out) and whose reading moves the clock an hour on, as a long harvest would. The
     * harvest hands out nothing; the 30-minute task is due by then and runs at once. Mutant: the
     * park planned from the read before the harvest (WorkerRoles.await without its second read)
     * parks the leader for 30 minutes of real time, and the latch times out.
     */
    @Test
    void aTaskDueDuringALongHarvest_runsRightAfterIt() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(1).shards(1).timeSource(clock).daemon(true).build();
        try {
            CountDownLatch ran = new CountDownLatch(1);
            executor.schedule(ran::countDown, 30, MINUTES);
            WheelWorkQueue queue = executor.queue();
            ReArmedAsHarvested slow = new ReArmedAsHarvested(clock);
            queue.placeAt(slow, queue.wheelNow() + MILLISECONDS.toNanos(1));
            executor.offerTask(slow);

            clock.advance(1, MILLISECONDS); // the leader wakes for it within its own 1 ms park

            await(ran);
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }

    /**
     * A task that is armed for no later deadline until it is due; read once due (by the
     * harvest), it moves the clock an hour on and says it is armed for two hours after its
     * deadline, so the harvest links it again instead of handing it out.
     */
    private static final class ReArmedAsHarvested extends InertTask {
        private final ManualTimeSource clock;
        private final long dueAtNanos;
        private boolean harvested;

        ReArmedAsHarvested(ManualTimeSource clock) {
            this.clock = clock;
            this.dueAtNanos = clock.nanoTime() + MILLISECONDS.toNanos(1);
        }

        @Override
        long armedDeadline() {
            if (clock.nanoTime() - dueAtNanos < 0) {
                return -1L; // not yet due: an ordinary task
            }
            if (!harvested) {
                harvested = true; // read under the shard's lock, by the harvest only
                clock.advance(1, HOURS);
            }
            return deadline() + HOURS.toNanos(2);
        }

        @Override
        public void run() {
            throw new AssertionError("handed out, though the harvest found it re-armed for later");
        }
    }
}
