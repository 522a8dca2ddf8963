/**
 * Schedulers on the timing wheel: a {@link java.util.concurrent.ScheduledExecutorService} and
 * a Netty {@code io.netty.util.Timer}, on the same engine.
 *
 * <ul>
 *   <li>{@link io.github.timingwheel.executor.WheelScheduledExecutor}: a drop-in for the JDK's
 *       {@link java.util.concurrent.ScheduledThreadPoolExecutor}, which it extends the way the
 *       JDK's does ({@link java.util.concurrent.ThreadPoolExecutor}); its
 *       {@link io.github.timingwheel.executor.WheelScheduledExecutor#builder() builder} has the
 *       settings beyond the JDK's.
 *   <li>{@link io.github.timingwheel.executor.WheelTimer}: a drop-in for Netty's
 *       {@code HashedWheelTimer}; needs {@code io.netty:netty-common} 4.1 or 4.2.
 *   <li>{@link io.github.timingwheel.executor.TaskGroup} and
 *       {@link io.github.timingwheel.executor.TimeoutGroup}: the tasks (or timeouts) of one
 *       connection or request, cancelled together in one call; serial groups run their tasks
 *       one at a time.
 *   <li>{@link io.github.timingwheel.executor.SchedulerMetrics}: what a scheduler's tasks did
 *       and how late they started, read without stopping anything.
 *   <li>{@link io.github.timingwheel.executor.MissedRunPolicy}: what a fixed-rate task does
 *       after runs it missed.
 * </ul>
 *
 * <p>Every public class here is thread-safe: any thread may schedule, cancel, read metrics,
 * close a group or shut a scheduler down. Both schedulers are {@link AutoCloseable}; their
 * workers are not daemon threads unless the builder says so.
 */
package io.github.timingwheel.executor;

/*
 * Inside (package-private): WheelWorkQueue is the wheels behind BlockingQueue; it places each
 * task as it is made, and its take runs the leader/follower protocol of WorkerRoles. WheelShard
 * is one wheel with its lock and bounded inbox, and applies its own tasks: a producer tries the
 * lock of its thread's home shard and does the wheel work in place, or leaves the task in the
 * inbox when the lock is busy, and waits only when the inbox is full; WheelShards merges the
 * shards' due tasks in deadline order. WheelTask is what a wheel holds (and defines the inbox
 * mark); ScheduledTask and PeriodicTask are the wheel node, the future and the body in one
 * object, WheelTimeout the timer's; ArmedDeadline is the re-arm protocol of both re-armable
 * handles. TaskCounters counts without locks; TaskEvents and the Task*Event classes are the
 * flight recorder events, off by default. MemberTracker holds a group's intrusive list of tasks
 * and its lifecycle, SerialRunQueue the run queue of a serial group; the Grouped* tasks carry
 * the links.
 *
 * Threading rule inside: the wheels are confined to the holders of their locks; each shared
 * field documents who writes and reads it. A group's monitors are leaf locks: taken, possibly
 * under a shard's lock, for a few pointer writes, never while calling out.
 */
