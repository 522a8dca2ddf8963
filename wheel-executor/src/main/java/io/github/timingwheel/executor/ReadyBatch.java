package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * Due tasks that left the wheel together, in order, for workers to claim one at a time without
 * the wheel's lock: the hand-off between the leader and the other workers of a
 * {@link WheelWorkQueue}. One batch is filled once, by the holder of the queue's lock, and then
 * only drained; the queue replaces an exhausted batch with a new one.
 *
 * <p>Claims are a single {@code getAndAdd} on the batch's cursor, so any number of threads may
 * claim at once and each task is claimed by exactly one of them; a thread that claims past the
 * end gets nothing, and no slot is ever reused, so a slow claimer that read an old batch can
 * never see a task of a newer one.
 */
final class ReadyBatch {

    /** A batch with nothing in it: the queue's batch before the first fill. */
    static final ReadyBatch EMPTY = new ReadyBatch(new WheelTask[0], 0);

    /**
     * Filled before the batch is published (a final field: safely published with it). The
     * thread that claims a slot clears it, so that an exhausted batch, which stays the queue's
     * batch until the next one, holds no task; a view that reads a slot racing with its claim
     * sees the task or null, and skips null.
     */
    private final WheelTask[] tasks;
    private final int size;
    /**
     * The index of the next task to hand out; only grows, by getAndAdd. It may pass {@code size}
     * (claims that found the batch exhausted), so readers clamp it.
     */
    private volatile int cursor;

    private ReadyBatch(WheelTask[] tasks, int size) {
        this.tasks = tasks;
        this.size = size;
    }

    /**
     * A batch of the first {@code size} tasks of {@code tasks}, which the caller no longer
     * writes.
     */
    static ReadyBatch of(WheelTask[] tasks, int size) {
        return size == 0 ? EMPTY : new ReadyBatch(tasks, size);
    }

    /** The next task, or null if the batch is exhausted. Any thread. */
    WheelTask claim() {
        if (cursor >= size) {
            return null; // a plain check first: an exhausted batch costs no write
        }
        int index = (int) CURSOR.getAndAdd(this, 1);
        return index < size ? take(index) : null;
    }

    private WheelTask take(int index) {
        WheelTask task = tasks[index];
        tasks[index] = null;
        return task;
    }

    /**
     * Claims every task that is left, up to {@code maxTasks}, and gives each to {@code sink}, in
     * order.
     */
    void claimAll(int maxTasks, Consumer<? super WheelTask> sink) {
        if (cursor >= size || maxTasks <= 0) {
            return;
        }
        int claim = Math.min(maxTasks, size);
        int from = (int) CURSOR.getAndAdd(this, claim);
        int to = Math.min(size, from + claim);
        for (int i = from; i < to; i++) {
            sink.accept(take(i));
        }
    }

    /** Tasks not yet claimed; a racy count that may already be stale when it returns. */
    int remaining() {
        return Math.max(0, size - cursor);
    }

    /** Gives every task not yet claimed to {@code action}, without claiming it; a snapshot. */
    void forEachRemaining(Consumer<? super WheelTask> action) {
        for (int i = cursor; i < size; i++) {
            WheelTask task = tasks[i];
            if (task != null) {
                action.accept(task);
            }
        }
    }

    private static final VarHandle CURSOR;

    static {
        try {
            CURSOR = MethodHandles.lookup().findVarHandle(ReadyBatch.class, "cursor", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
