/**
 * Worker threads around the timing wheel.
 *
 * <ul>
 *   <li>{@link io.github.timingwheel.executor.WheelScheduledExecutor}: a
 *       {@link java.util.concurrent.ScheduledExecutorService} that extends
 *       {@link java.util.concurrent.ThreadPoolExecutor}, as the JDK's
 *       {@link java.util.concurrent.ScheduledThreadPoolExecutor} does, with the wheel as its
 *       work queue.
 *   <li>{@code WheelWorkQueue}: the wheels behind {@link java.util.concurrent.BlockingQueue};
 *       its {@code take} runs the leader/follower protocol. {@code WheelShard} is one wheel
 *       with its lock and bounded inbox: a producer tries the lock of its thread's home shard
 *       and does the wheel work in place, or leaves the task in the inbox when the lock is
 *       busy, and waits only when the inbox is full; {@code WheelShards} merges the shards'
 *       due tasks in deadline order.
 *   <li>{@code ScheduledTask} and {@code PeriodicTask}: the wheel node, the future and the
 *       body in one object; a {@link io.github.timingwheel.executor.MissedRunPolicy} says what
 *       a fixed-rate task does after missed runs.
 *   <li>{@link io.github.timingwheel.executor.SchedulerMetrics}: what the executor's or
 *       timer's tasks did, counted by {@code TaskCounters} without locks; {@code TaskEvents}
 *       and the {@code Task*Event} classes: the JDK Flight Recorder events, off by default.
 *   <li>{@link io.github.timingwheel.executor.TaskGroup} and
 *       {@link io.github.timingwheel.executor.TimeoutGroup}: groups of tasks (or timeouts) on one
 *       executor (or timer) that are cancelled together; {@code MemberTracker} holds a group's
 *       intrusive list of tasks and its lifecycle, {@code SerialRunQueue} the run queue of a
 *       serial group; {@code GroupedTask}, {@code GroupedPeriodicTask} and
 *       {@code GroupedTimeout} carry the links.
 * </ul>
 *
 * <p>Threading rule: everything public here is thread-safe. Inside, the wheel is confined to
 * the holder of the queue's lock; each shared field documents who writes and reads it. A
 * group's monitors are leaf locks: taken, possibly under the queue's lock, for a few pointer
 * writes, never while calling out.
 */
package io.github.timingwheel.executor;
