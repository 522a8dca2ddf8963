package io.github.timingwheel.executor;

import io.netty.util.Timeout;

/**
 * A {@link Rearmable} timeout of a {@link WheelTimer} (or of one of its {@link TimeoutGroup}s),
 * returned by {@code newRearmableTimeout}.
 *
 * <p>It is a Netty {@link Timeout} so that code that keeps and cancels timeouts keeps working:
 * {@link #cancel()} cancels it (and calls {@code TimerTask.cancelled} on Netty 4.2),
 * {@link #isExpired()} is true once its task started, {@link #task()} is the task it runs.
 */
public interface RearmableTimeout extends Timeout, Rearmable {
}
