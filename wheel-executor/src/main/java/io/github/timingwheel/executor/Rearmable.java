package io.github.timingwheel.executor;

import java.util.concurrent.TimeUnit;

/**
 * A timeout that is pushed back rather than replaced: "fire if nothing happens for this long",
 * as an idle or read timeout is. Each {@link #touch()} moves the deadline later, to now plus
 * the timeout; the action runs once, when a deadline passes untouched.
 *
 * <p>Costs. A touch that moves the deadline later (every touch, while the timeout stays the
 * same) is one CAS on the handle: no allocation, no lock, no queue or wheel work. The wheel keeps
 * the task where it was; when that old position comes due, the scheduler re-links it for what
 * is left (a lazy re-arm, as Netty's {@code IdleStateHandler} does by hand), so a handle
 * touched a thousand times between two expiries costs one re-link. Moving the deadline
 * earlier ({@link #rearm} with a shorter timeout) is exact and costs what a cancel and a
 * schedule cost: the task is moved in its wheel, in place if the wheel's lock is free, else
 * through its inbox.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Never early: the action does not start before the latest deadline set by a touch or
 *       rearm that happened-before its start.
 *   <li>A touch never moves the deadline earlier: of touches racing, the deadline ends at the
 *       latest any of them set, whatever the order their clock readings and their writes came
 *       in, so each touch that returned true holds its promise. Only {@link #rearm} moves it
 *       earlier, and a rearm is exact: the deadline is then now plus the new timeout, earlier
 *       or later than it was.
 *   <li>At most once: a handle is armed once, when made, and fires or is cancelled at most
 *       once. After that, touch and rearm do nothing and return false (make a new handle to arm
 *       again). They return false too once the scheduler has stopped and will never run it.
 *   <li>A touch racing with the firing either comes first, and then the firing waits for the
 *       new deadline, or comes after, and then it returns false: never both, and the return
 *       value says which.
 *   <li>Any thread may call any method.
 * </ul>
 *
 * <p>A handle made with a tolerance of its own
 * ({@link WheelScheduledExecutor#scheduleRearmable(Runnable, long, long, TimeUnit)},
 * {@link WheelTimer#newRearmableTimeout(io.netty.util.TimerTask, long, long, TimeUnit)}) may
 * also fire up to that tolerance after its deadline, never before it: nearby handles then share
 * a wake-up.
 *
 * <p>Caveats: a touch is late by the scheduler's tolerance, as every deadline is; a handle that
 * is touched after its deadline passed but before a worker fired it (the harvest and the fire
 * are a few microseconds apart) is still re-armed, since the touch wins the CAS.
 */
public interface Rearmable {

    /**
     * Moves the deadline to now plus the timeout, unless it is later already (as when a racing
     * touch read the clock after this one): a touch never moves it earlier.
     *
     * @return true if the handle was armed and now fires no earlier than now plus the timeout;
     *     false if it had already fired or been cancelled, or will never fire because its
     *     scheduler stopped ({@link WheelScheduledExecutor#shutdownNow()}, a
     *     {@link WheelScheduledExecutor#shutdown()} whose policy drops delayed tasks,
     *     {@link WheelTimer#stop()})
     */
    boolean touch();

    /**
     * Sets a new timeout and moves the deadline to now plus it; a shorter one moves the task
     * earlier in its wheel (see the costs above).
     *
     * @param timeout the new timeout; negative means 0
     * @param unit its unit
     * @return as {@link #touch()}
     * @throws NullPointerException if {@code unit} is null
     */
    boolean rearm(long timeout, TimeUnit unit);

    /**
     * The timeout a touch adds to now.
     *
     * @param unit the unit of the result
     * @return the timeout, in {@code unit}
     */
    long timeout(TimeUnit unit);

    /**
     * The time left until the current deadline: zero or negative once it has passed.
     *
     * @param unit the unit of the result
     * @return the time left, in {@code unit}; 0 once fired or cancelled
     */
    long remaining(TimeUnit unit);

    /**
     * Whether the handle is armed: neither fired nor cancelled, and its scheduler may still run
     * it (see {@link #touch()}).
     *
     * @return true until the action started, the handle was cancelled or its scheduler stopped
     */
    boolean isArmed();
}
