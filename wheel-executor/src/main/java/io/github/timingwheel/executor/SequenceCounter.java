package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Padding before the counter. */
abstract class SequenceCounterPadBefore {
    long p01, p02, p03, p04, p05, p06, p07, p08;
}

/** The counter's field, alone on its cache line between two paddings. */
abstract class SequenceCounterValue extends SequenceCounterPadBefore {
    /** Starts at 1, so that a queued task's sequence is never its bare shard index. */
    volatile long value = 1L;
}

/**
 * The queue-wide counter that orders equal deadlines by submission across shards
 * ({@link WheelShard} note [5]): one {@code getAndAdd} per queued task. Padded (superclass and
 * subclass fields stay in that order), so that producers on different shards share this line
 * and only this line.
 */
final class SequenceCounter extends SequenceCounterValue {

    long p11, p12, p13, p14, p15, p16, p17, p18;

    /** The next sequence for a task of shard {@code shardIndex}: counter bits, then shard bits. */
    long next(int shardIndex) {
        return ((long) VALUE.getAndAdd(this, 1L) << WheelShard.SHARD_BITS) | shardIndex;
    }

    private static final VarHandle VALUE;

    static {
        try {
            VALUE = MethodHandles.lookup().findVarHandle(SequenceCounterValue.class, "value", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
