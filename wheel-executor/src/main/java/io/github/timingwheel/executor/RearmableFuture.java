package io.github.timingwheel.executor;

import java.util.concurrent.ScheduledFuture;

/**
 * A {@link Rearmable} timeout of a {@link WheelScheduledExecutor} (or of one of its
 * {@link TaskGroup}s), returned by {@code scheduleRearmable}.
 *
 * <p>It is a {@link ScheduledFuture} so that it goes where executor futures go (a list of
 * futures to cancel, a group, code that calls {@code cancel(false)} on what it scheduled):
 * {@link #cancel(boolean)} cancels it as it cancels any future, {@link #getDelay} is
 * {@link #remaining}, and {@link #get()} waits for the action to have run (or throws
 * {@link java.util.concurrent.CancellationException}). A cancel after the action started
 * behaves as a future's: with {@code mayInterruptIfRunning} it interrupts the running action.
 *
 * @param <V> always {@code Void}: the action is a {@link Runnable}
 */
public interface RearmableFuture<V> extends ScheduledFuture<V>, Rearmable {
}
