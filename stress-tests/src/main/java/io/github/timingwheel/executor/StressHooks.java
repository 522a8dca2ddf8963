package io.github.timingwheel.executor;

import io.github.timingwheel.core.ManualTimeSource;
import io.github.timingwheel.core.WheelShape;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The executor's package-private test hooks, for the stress tests of {@code
 * io.github.timingwheel.stress}, and a thread that holds a shard's lock on request, so that a
 * test can send a producer through the shard's inbox (the path a producer takes only when the
 * lock is busy, which it rarely is now that schedule and cancel are applied in place).
 */
public final class StressHooks {

    /** A one-level wheel of 4 slots: cheap enough to make one per {@code @State}. */
    static final WheelShape SMALL = WheelShape.builder().slotsPerLevel(4).levels(1).build();

    /** Takes and releases shard locks for the callers of {@link #whileHeldElsewhere}. */
    private static final ExecutorService HOLDER = Executors.newSingleThreadExecutor(runnable -> {
        Thread t = new Thread(runnable, "stress-shard-lock-holder");
        t.setDaemon(true);
        return t;
    });

    private StressHooks() {
    }

    /** Wheel time by which a task due at 0 is due in a {@link #queue}: two ticks of 1 ms. */
    static final long LATER = 2_000_000L;

    /**
     * A queue with no executor and no workers, with the small wheel, on a clock that stands at
     * {@link #LATER}, so that a task due at wheel time 0 is due and one due at {@code 10 * LATER}
     * is not.
     */
    static WheelWorkQueue queue(int shards) {
        ManualTimeSource clock = new ManualTimeSource(0L);
        WheelWorkQueue queue = new WheelWorkQueue(SMALL, clock, shards);
        clock.advanceNanos(LATER);
        return queue;
    }

    /** A shard's lock, as the stress tests of another package may hold it. */
    public interface ShardLock {
        void lock();

        void unlock();
    }

    /**
     * Holds per shard on the holder thread, which alone reads and writes it. The shard lock is
     * not reentrant, and callers may overlap (jcstress makes states on several threads), so the
     * holder takes a shard's lock on the first hold and lets it go on the last.
     */
    private static final Map<WheelShard, Integer> HOLDS = new IdentityHashMap<>();

    /**
     * The lock of the shard a task made now by the calling thread goes to, counted per shard so
     * that overlapping holds on the holder thread nest; use it only with {@link #whileHeldElsewhere}.
     */
    public static ShardLock homeShardLock(WheelScheduledExecutor executor) {
        WheelWorkQueue queue = executor.queue();
        WheelShard shard = queue.shard(queue.homeShard());
        return new ShardLock() {
            @Override
            public void lock() {
                if (HOLDS.merge(shard, 1, Integer::sum) == 1) {
                    shard.lock();
                }
            }

            @Override
            public void unlock() {
                if (HOLDS.merge(shard, -1, Integer::sum) == 0) {
                    HOLDS.remove(shard);
                    shard.unlock();
                }
            }
        };
    }

    /** Tasks waiting in the executor's shard inboxes now. */
    public static int inboxSize(WheelScheduledExecutor executor) {
        return executor.queue().inboxSize();
    }

    /** Whether an executor's task sits in its shard's inbox, not yet drained (the inbox mark). */
    public static boolean inInbox(Object task) {
        return task instanceof WheelTask t && t.inInbox();
    }

    /**
     * Runs {@code action} on the calling thread while another thread holds {@code lock}, which
     * that thread then releases with a plain unlock: a task the action pushed into the shard's
     * inbox stays there for the next holder to drain.
     */
    public static void whileHeldElsewhere(ShardLock lock, Runnable action) {
        onHolder(lock::lock);
        try {
            action.run();
        } finally {
            onHolder(lock::unlock);
        }
    }

    private static void onHolder(Runnable step) {
        try {
            HOLDER.submit(step).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the holder thread worked", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the holder thread failed", e);
        }
    }
}
