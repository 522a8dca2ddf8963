package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * Due tasks that left the wheel together, in order, for workers to claim one at a time without
 * any lock: the hand-off between the leader and the other workers of a {@link WheelWorkQueue}.
 * One batch is filled once, by the worker holding the queue's worker lock, and then only
 * drained; {@link WorkerRoles} replaces an exhausted batch with a new one.
 *
 * <p>A claim is a {@code getAndAdd} on the batch's cursor and then a {@code getAndSet} of the
 * slot to null; {@link #remove} takes a task back by a CAS of its slot to null. So each task
 * goes to exactly one of the claimers and removers; a claimer whose slot was emptied by a
 * removal moves on to the next slot. No slot is ever refilled, so a slow claimer that read an
 * old batch can never see a task of a newer one.
 */
final class ReadyBatch {

    /** A batch with nothing in it: the queue's batch before the first fill. */
    static final ReadyBatch EMPTY = new ReadyBatch(new WheelTask[0], 0);

    /**
     * Filled before the batch is published (a final field: safely published with it). A slot
     * is emptied, once, by whoever takes its task: the claimer or a removal. An exhausted batch,
     * which stays the queue's batch until the next one, therefore holds no task.
     */
    private final WheelTask[] tasks;
    private final int size;
    /**
     * The index of the next slot to claim; only grows, by getAndAdd. It may pass {@code size}
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
        while (cursor < size) { // a plain check first: an exhausted batch costs no write
            int index = (int) CURSOR.getAndAdd(this, 1);
            if (index >= size) {
                return null;
            }
            WheelTask task = take(index);
            if (task != null) {
                return task;
            }
            // removed before this claim: the next slot (at most size rounds in all)
        }
        return null;
    }

    private WheelTask take(int index) {
        return (WheelTask) SLOT.getAndSet(tasks, index, (WheelTask) null);
    }

    /**
     * Takes {@code task} back if no worker has claimed it yet. Any thread.
     *
     * @return true if this call removed it; false if it is not here or was claimed
     */
    boolean remove(WheelTask task) {
        for (int i = Math.min(cursor, size); i < size; i++) {
            if (SLOT.getAcquire(tasks, i) == task) {
                return SLOT.compareAndSet(tasks, i, task, (WheelTask) null);
            }
        }
        return false;
    }

    /**
     * Claims every task that is left, up to {@code maxTasks} slots, and gives each to
     * {@code sink}, in order.
     */
    void claimAll(int maxTasks, Consumer<? super WheelTask> sink) {
        if (cursor >= size || maxTasks <= 0) {
            return;
        }
        int claim = Math.min(maxTasks, size);
        int from = (int) CURSOR.getAndAdd(this, claim);
        int to = Math.min(size, from + claim);
        for (int i = from; i < to; i++) {
            WheelTask task = take(i);
            if (task != null) {
                sink.accept(task);
            }
        }
    }

    /**
     * The deadline (wheel time) of the first task not yet claimed or removed, or
     * {@link Long#MAX_VALUE} if none; a racy read, maybe already stale. Any thread.
     */
    long firstDeadline() {
        for (int i = cursor; i < size; i++) {
            WheelTask task = (WheelTask) SLOT.getAcquire(tasks, i);
            if (task != null) {
                return task.deadline();
            }
        }
        return Long.MAX_VALUE;
    }

    /** Slots not yet claimed (some may have been removed); a racy count, maybe already stale. */
    int remaining() {
        return Math.max(0, size - cursor);
    }

    /** Gives every task not yet claimed or removed to {@code action}, without taking it; a snapshot. */
    void forEachRemaining(Consumer<? super WheelTask> action) {
        for (int i = cursor; i < size; i++) {
            WheelTask task = (WheelTask) SLOT.getAcquire(tasks, i);
            if (task != null) {
                action.accept(task);
            }
        }
    }

    private static final VarHandle CURSOR;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(WheelTask[].class);

    static {
        try {
            CURSOR = MethodHandles.lookup().findVarHandle(ReadyBatch.class, "cursor", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
