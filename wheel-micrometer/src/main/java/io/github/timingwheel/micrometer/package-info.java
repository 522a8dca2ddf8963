/**
 * Optional: the schedulers' {@code metrics()} as Micrometer meters.
 *
 * <ul>
 *   <li>{@link io.github.timingwheel.micrometer.WheelSchedulerMetrics}: a
 *       {@link io.micrometer.core.instrument.binder.MeterBinder} for a
 *       {@link io.github.timingwheel.executor.WheelScheduledExecutor} or a
 *       {@link io.github.timingwheel.executor.WheelTimer}: gauges, function counters and the
 *       lateness percentiles, read from {@code metrics()} when the registry reads them.
 * </ul>
 *
 * <p>Threading rule: thread-safe; meters are read on whatever thread publishes or scrapes the
 * registry, without a lock and without stopping the scheduler.
 */
package io.github.timingwheel.micrometer;
