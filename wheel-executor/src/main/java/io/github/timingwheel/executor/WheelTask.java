package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimerNode;

/**
 * What a {@link WheelWorkQueue} holds: a wheel node that a worker runs. The executor's futures
 * and the Netty {@code Timeout}s are both kinds of it, so both ride on the same engine while
 * each pays only for the fields it needs.
 */
abstract class WheelTask extends TimerNode implements Runnable {

    /*
     * Implementation notes
     *
     * [1] The inbox mark (WheelWorkQueue [2]), one encoding for every kind of task: a reference
     *     field of the task holds IN_INBOX while the task waits in its shard's inbox. The
     *     producer sets it with a release store just before the push, while no one else can push
     *     the task (the push publishes it); the drain clears it with a CAS from IN_INBOX (a full
     *     fence when it succeeds) before it reads the task's state; a cancel reads it (volatile)
     *     after its own CAS on the state. So either the cancel sees the mark and need not push
     *     the task again, or it sees the mark cleared and pushes it; a mark the cancel does not
     *     see yet costs a second push, which is harmless. The field is a task's own, in room it
     *     already has: ScheduledTask's 'runner' (a task in the inbox cannot be running,
     *     ScheduledTask [5]) and WheelTimeout's 'inbox'.
     */

    /** The value of a task's inbox-mark field while it waits in its shard's inbox ([1]); never started. */
    static final Thread IN_INBOX = new Thread("timingwheel-inbox-mark");

    /**
     * Whether the task belongs in the wheel: pending, or cancelled but kept until its deadline
     * by policy. The queue inserts or unlinks the task to match. Any thread may call it.
     */
    abstract boolean wantsWheel();

    /** The runnable that workers run and that queue views show (a decorated task, or this). */
    abstract Runnable outer();

    /**
     * Gives a task that is being made its deadline and its sequence, whose low bits put it into
     * a shard of its queue for its whole life ({@link WheelShards} note [6]). Called once, by
     * {@link WheelWorkQueue#place} as the task is made, before the task is visible to any other
     * thread; a re-armable task arms itself here, at that deadline.
     */
    void place(long deadline, long sequence) {
        setDeadline(deadline);
        setSequence(sequence);
    }

    /** Whether the task was made for {@code queue}; a task never moves between queues. */
    abstract boolean belongsTo(WheelWorkQueue queue);

    /**
     * Marks the task as on its way through its shard's inbox, with a release store of IN_INBOX
     * ([1]); the producer calls it just before the push, while no one else can push the task.
     */
    abstract void markInInbox();

    /**
     * Clears the inbox mark with a CAS from IN_INBOX ([1]); the drain calls it before it reads
     * the task's state, so that a cancel either sees the mark cleared or is seen by the drain.
     */
    abstract void clearInInbox();

    /**
     * Whether the task sits in the inbox, not yet drained ([1]): then a cancel need not push it
     * again, since the drain will read its new state. A volatile read.
     */
    abstract boolean inInbox();

    /**
     * Called by the queue, under its lock, when it hands the task out because it is due (to a
     * worker, or to {@code drainTo}): the wheel's hand-out order is deadline-then-sequence, so a
     * serial group queues its tasks here to keep that order. Nothing by default.
     */
    void handedOut() {
    }

    /**
     * For a re-armable task that is armed, the deadline it is armed for now, which a touch may
     * have moved since the task was linked ({@link ArmedDeadline}); -1 for any other task, or
     * once it fired or was cancelled. A volatile read; any thread.
     */
    long armedDeadline() {
        return -1L;
    }

    /** The deadline a run is late against: the one it was made with, unless re-armed. */
    long firedDeadline() {
        return deadline();
    }

    /**
     * Where the task goes when it is linked: the position of its armed deadline if it is a
     * re-armable one, else the deadline it was made with.
     */
    final long linkDeadline() {
        return linkDeadline(armedDeadline());
    }

    /** {@link #linkDeadline()} for an armed value already read (negative: not re-armable or ended). */
    final long linkDeadline(long armed) {
        return armed >= 0L ? positionOf(armed) : deadline();
    }

    /**
     * Where a re-armable task armed for {@code armedDeadline} goes in its wheel: that deadline,
     * or for one made with a tolerance, that deadline rounded up to the tolerance's grain
     * ({@link ArmedDeadline} [4]). Never before {@code armedDeadline}.
     */
    long positionOf(long armedDeadline) {
        return armedDeadline;
    }
}
