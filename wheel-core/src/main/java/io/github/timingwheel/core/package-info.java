/**
 * The timing wheel itself: data structures only, no threads, no runtime dependencies.
 *
 * <ul>
 *   <li>{@link io.github.timingwheel.core.TimingWheel}: levels of slots whose buckets are
 *       intrusive doubly-linked lists, an overflow list beyond the top level, and a due heap
 *       that gives exact (deadline, sequence) order inside the tick that is due.
 *   <li>{@link io.github.timingwheel.core.TimerNode}: the entry, which carries its own links.
 *   <li>{@link io.github.timingwheel.core.WheelShape}: tick, slots per level, levels.
 *   <li>{@link io.github.timingwheel.core.TimeSource} and
 *       {@link io.github.timingwheel.core.ManualTimeSource}: where time comes from.
 *   <li>{@link io.github.timingwheel.core.LatencyHistogram} and its snapshot
 *       {@link io.github.timingwheel.core.LatencyDistribution}: lock-free log-scale counts of
 *       how late things happened, for the schedulers' metrics.
 * </ul>
 *
 * <p>Threading rule: a wheel and the nodes in it are confined to one thread at a time; the
 * executor module adds the concurrency. Time sources, shapes and latency histograms are safe to
 * share.
 *
 * <p>Why this structure: placement in a wheel is O(1) over any range of delays, which a single
 * heap over all pending tasks (the JDK's {@code DelayedWorkQueue}) is not; a flat wheel with a
 * round count (Netty's {@code HashedWheelTimer}) is O(1) too but walks every entry of a bucket
 * each tick and fires only at tick granularity. The hierarchy moves each entry at most once per
 * level, and the due heap restores nanosecond order for the one tick that is due.
 */
package io.github.timingwheel.core;
