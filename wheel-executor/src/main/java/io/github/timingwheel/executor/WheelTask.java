package io.github.timingwheel.executor;

import io.github.timingwheel.core.TimerNode;

/**
 * What a {@link WheelWorkQueue} holds: a wheel node that a worker runs. The executor's futures
 * and the Netty {@code Timeout}s are both kinds of it, so both ride on the same engine while
 * each pays only for the fields it needs.
 */
abstract class WheelTask extends TimerNode implements Runnable {

    /**
     * Whether the task belongs in the wheel: pending, or cancelled but kept until its deadline
     * by policy. The queue inserts or unlinks the task to match. Any thread may call it.
     */
    abstract boolean wantsWheel();

    /** The runnable that workers run and that queue views show (a decorated task, or this). */
    abstract Runnable outer();

    /** Whether the task was made for {@code queue}; a task never moves between queues. */
    abstract boolean belongsTo(WheelWorkQueue queue);

    /**
     * Called by the queue, under its lock, when it hands the task out because it is due (to a
     * worker, or to {@code drainTo}): the wheel's hand-out order is deadline-then-sequence, so a
     * serial group queues its tasks here to keep that order. Nothing by default.
     */
    void handedOut() {
    }
}
