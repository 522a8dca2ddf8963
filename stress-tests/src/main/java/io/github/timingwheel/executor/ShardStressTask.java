package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bare task for the stress tests of the sharded queue ({@link WheelWorkQueue},
 * {@link WheelShards}, {@link WheelShard}), which drive the queue without an executor or
 * workers, so that every thread that touches it is an actor jcstress controls. It keeps the
 * parts of {@link ScheduledTask}'s protocol the queue relies on: pending until cancelled (the
 * remove-on-cancel policy on), the inbox mark set with a release store before the push and
 * cleared with a CAS (a full fence) before the drain reads the state, and a cancel that reads
 * the mark after its CAS on the state ({@code WheelWorkQueue} note [2]).
 *
 * <p>This class sits in the executor's package (in the stress-tests module only) to reach the
 * package-private queue; the shaded jcstress jar runs on the class path, so the split package
 * is harmless there.
 */
public final class ShardStressTask extends WheelTask {

    private static final AtomicLong STAMPS = new AtomicLong();
    private static final int PENDING = 0;
    private static final int CANCELLED = 1;

    private final WheelWorkQueue queue;
    private volatile int state = PENDING;
    private volatile int inInbox;

    /** A task of {@code queue}'s shard {@code shard}, due at wheel time {@code deadline}. */
    ShardStressTask(WheelWorkQueue queue, int shard, long deadline) {
        this.queue = queue;
        // Stamps in order of making, as one thread's are (WheelShards [6]).
        place(deadline, STAMPS.incrementAndGet() << WheelShard.SHARD_BITS | shard);
    }

    /** A task of the calling thread's home shard, as a task the executor makes. */
    static ShardStressTask onHomeShard(WheelWorkQueue queue, long deadline) {
        return new ShardStressTask(queue, queue.homeShard(), deadline);
    }

    /** The shard the task lives in (the low bits of its sequence). */
    int shard(WheelWorkQueue q) {
        return (int) sequence() & (q.shardCount() - 1);
    }

    /** Cancels as {@link ScheduledTask#cancel} does with the remove-on-cancel policy on. */
    boolean cancel() {
        return cancel(null);
    }

    /**
     * As {@link #cancel()}, counting the cancel in {@code counts} as the executor's cancel does:
     * in the shard if the unlink is made in place, else in the calling thread's cell; null
     * counts nothing.
     */
    boolean cancel(TaskCounters counts) {
        if (!STATE.compareAndSet(this, PENDING, CANCELLED)) {
            return false;
        }
        queue.cancelled(this, counts);
        return true;
    }

    boolean isCancelled() {
        return state == CANCELLED;
    }

    @Override
    boolean wantsWheel() {
        return state == PENDING;
    }

    @Override
    Runnable outer() {
        return this;
    }

    @Override
    boolean belongsTo(WheelWorkQueue q) {
        return q == queue;
    }

    @Override
    void markInInbox() {
        IN_INBOX.setRelease(this, 1);
    }

    @Override
    void clearInInbox() {
        IN_INBOX.compareAndSet(this, 1, 0);
    }

    @Override
    boolean inInbox() {
        return inInbox == 1;
    }

    @Override
    public void run() {
    }

    private static final VarHandle STATE;
    private static final VarHandle IN_INBOX;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(ShardStressTask.class, "state", int.class);
            IN_INBOX = lookup.findVarHandle(ShardStressTask.class, "inInbox", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
