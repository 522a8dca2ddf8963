package io.github.timingwheel.micrometer;

import io.github.timingwheel.core.LatencyDistribution;
import io.github.timingwheel.executor.SchedulerMetrics;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * A Micrometer {@link MeterBinder} for a {@link WheelScheduledExecutor} or a {@link WheelTimer},
 * in the manner of Micrometer's own {@code ExecutorServiceMetrics}: every meter reads the
 * scheduler's {@code metrics()} when the registry reads the meter, and nothing else.
 *
 * <pre>{@code
 * WheelScheduledExecutor timers = WheelScheduledExecutor.builder().name("timeouts").build();
 * WheelSchedulerMetrics.monitor(registry, timers, Tags.of("service", "orders"));
 * }</pre>
 *
 * <p>Meters, each tagged {@code name=}{@link SchedulerMetrics#name()} and the tags given:
 *
 * <table>
 *   <caption>meters and what they read</caption>
 *   <tr><th>meter</th><th>type</th><th>reads</th></tr>
 *   <tr><td>{@code timingwheel.pending}</td><td>gauge, tasks</td><td>{@link SchedulerMetrics#pending()}</td></tr>
 *   <tr><td>{@code timingwheel.cancelled.held}</td><td>gauge, tasks</td><td>{@link SchedulerMetrics#cancelledHeld()}</td></tr>
 *   <tr><td>{@code timingwheel.running}</td><td>gauge, tasks</td><td>{@link SchedulerMetrics#running()}</td></tr>
 *   <tr><td>{@code timingwheel.workers}</td><td>gauge, threads</td><td>{@link SchedulerMetrics#workers()}</td></tr>
 *   <tr><td>{@code timingwheel.scheduled}</td><td>function counter, tasks</td><td>{@link SchedulerMetrics#scheduled()}</td></tr>
 *   <tr><td>{@code timingwheel.ran}</td><td>function counter, tasks</td><td>{@link SchedulerMetrics#ran()}</td></tr>
 *   <tr><td>{@code timingwheel.failed}</td><td>function counter, tasks</td><td>{@link SchedulerMetrics#failed()}</td></tr>
 *   <tr><td>{@code timingwheel.cancelled}</td><td>function counter, tasks</td><td>{@link SchedulerMetrics#cancelled()}</td></tr>
 *   <tr><td>{@code timingwheel.rejected}</td><td>function counter, tasks</td><td>{@link SchedulerMetrics#rejected()}</td></tr>
 *   <tr><td>{@code timingwheel.rearms}</td><td>function counter, tasks</td><td>{@link SchedulerMetrics#rearms()}</td></tr>
 *   <tr><td>{@code timingwheel.wakeups}</td><td>function counter, wakeups</td><td>{@link SchedulerMetrics#wakeUps()}</td></tr>
 *   <tr><td>{@code timingwheel.lateness.count}</td><td>function counter, runs</td><td>{@link LatencyDistribution#totalCount()}</td></tr>
 *   <tr><td>{@code timingwheel.lateness.percentile}, tag {@code phi=0.5} and {@code phi=0.99}</td>
 *       <td>time gauge</td><td>{@link LatencyDistribution#percentileNanos(double)} of 50 and 99</td></tr>
 *   <tr><td>{@code timingwheel.lateness.max}</td><td>time gauge</td><td>{@link LatencyDistribution#maxNanos()}</td></tr>
 * </table>
 *
 * <p><b>Why gauges for the lateness, and not a {@code Timer}, {@code DistributionSummary} or
 * {@code FunctionTimer}.</b> The scheduler already keeps the lateness of every run, in 32
 * log-scale buckets and an exact maximum ({@link LatencyDistribution}). A {@code Timer} or a
 * {@code DistributionSummary} must be given each value as it happens: the binder would have to
 * hook every run and keep a second histogram, a cost on the path of every task. A
 * {@code FunctionTimer} reads a count and a <em>total</em> time, and the histogram keeps no total
 * (a total made up from bucket edges would be off by up to a factor of two and look exact). So
 * the percentiles are {@link TimeGauge}s named and tagged as Micrometer names the percentiles a
 * {@code Timer} publishes ({@code <name>.percentile}, tag {@code phi}), beside the maximum and
 * the count of runs measured, which charts as a rate.
 *
 * <p><b>Cost.</b> Nothing on the hot path: binding adds no work to scheduling, cancelling or
 * running a task beyond the counting the scheduler always does for {@code metrics()}. Each read
 * of a meter, when the registry publishes or is scraped, calls {@code metrics()} once, which
 * takes no lock and stops nothing (see {@link SchedulerMetrics}): thirteen calls per scrape.
 *
 * <p>The meters hold the scheduler through a weak reference, as Micrometer's gauges and function
 * counters do by default: binding does not keep a scheduler from being collected; once it is,
 * its gauges read {@code NaN} and its counters keep the last value they read. Binding a
 * {@link WheelTimer} needs Netty on the class path, as the timer itself does; binding an
 * executor does not.
 *
 * <p><b>Caveats.</b>
 * <ul>
 *   <li>Percentiles and the maximum cover every run since the scheduler was built, not a recent
 *       window: after a long uptime a new delay moves them slowly. Chart the counters as rates to
 *       see a change at once.
 *   <li>A percentile is the upper edge of the log2 bucket it falls in (or the maximum, if
 *       smaller): the true value is at least half of it, or under 1 µs.
 *   <li>Each meter reads its own {@code metrics()}: values published together may come from
 *       moments a few microseconds apart, and {@code pending} may still count a task that has
 *       just ended (see {@link SchedulerMetrics#pending()}).
 * </ul>
 *
 * <p>Thread-safe; {@link #bindTo} may be called for several registries.
 */
public final class WheelSchedulerMetrics implements MeterBinder {

    /** The prefix of every meter's name. */
    public static final String PREFIX = "timingwheel.";
    /** The percentiles published, as quantiles. */
    private static final double[] QUANTILES = {0.5, 0.99};

    private final Binding<?> binding;

    private WheelSchedulerMetrics(Binding<?> binding) {
        this.binding = binding;
    }

    /**
     * A binder for {@code executor}'s metrics; bind it with {@link #bindTo}.
     *
     * @param tags added to {@code name=} on every meter
     * @throws NullPointerException if {@code executor} or {@code tags} is null
     */
    public static WheelSchedulerMetrics of(WheelScheduledExecutor executor, Iterable<Tag> tags) {
        Objects.requireNonNull(executor, "executor");
        return new WheelSchedulerMetrics(new Binding<>(executor, WheelScheduledExecutor::metrics, tags));
    }

    /**
     * A binder for {@code timer}'s metrics; bind it with {@link #bindTo}.
     *
     * @param tags added to {@code name=} on every meter
     * @throws NullPointerException if {@code timer} or {@code tags} is null
     */
    public static WheelSchedulerMetrics of(WheelTimer timer, Iterable<Tag> tags) {
        Objects.requireNonNull(timer, "timer");
        return new WheelSchedulerMetrics(new Binding<>(timer, WheelTimer::metrics, tags));
    }

    /**
     * Binds {@code executor}'s meters to {@code registry} and returns the executor, as
     * {@code ExecutorServiceMetrics.monitor} does.
     *
     * @throws NullPointerException if an argument is null, naming it
     */
    public static WheelScheduledExecutor monitor(MeterRegistry registry, WheelScheduledExecutor executor,
            Iterable<Tag> tags) {
        of(executor, tags).bindTo(Objects.requireNonNull(registry, "registry"));
        return executor;
    }

    /**
     * Binds {@code timer}'s meters to {@code registry} and returns the timer.
     *
     * @throws NullPointerException if an argument is null, naming it
     */
    public static WheelTimer monitor(MeterRegistry registry, WheelTimer timer, Iterable<Tag> tags) {
        of(timer, tags).bindTo(Objects.requireNonNull(registry, "registry"));
        return timer;
    }

    /**
     * Registers the meters listed above in {@code registry}. Binding the same scheduler again to
     * the same registry adds nothing: the meters are there already (Micrometer logs a warning).
     *
     * @throws NullPointerException if {@code registry} is null
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        binding.bindTo(Objects.requireNonNull(registry, "registry"));
    }

    /**
     * The scheduler, held weakly by the meters, and how to read its metrics. The meters' functions
     * capture only the reader, never the scheduler or this object (a method reference to
     * {@code metrics()} captures nothing), or they would hold the scheduler strongly.
     */
    private static final class Binding<S> {
        private final S scheduler;
        private final Function<S, SchedulerMetrics> reader;
        private final Tags tags;

        Binding(S scheduler, Function<S, SchedulerMetrics> reader, Iterable<Tag> tags) {
            this.scheduler = scheduler;
            this.reader = reader;
            this.tags = Tags.of(Objects.requireNonNull(tags, "tags"))
                    .and("name", reader.apply(scheduler).name());
        }

        void bindTo(MeterRegistry registry) {
            gauge(registry, "pending", BaseUnits.TASKS,
                    "Tasks accepted and not yet ended: waiting, due or running", SchedulerMetrics::pending);
            gauge(registry, "cancelled.held", BaseUnits.TASKS,
                    "Cancelled tasks the queue still holds until their deadline (remove-on-cancel off)",
                    SchedulerMetrics::cancelledHeld);
            gauge(registry, "running", BaseUnits.TASKS, "Task bodies running now", SchedulerMetrics::running);
            gauge(registry, "workers", BaseUnits.THREADS, "Worker threads configured", SchedulerMetrics::workers);
            counter(registry, "scheduled", BaseUnits.TASKS, "Tasks accepted (a periodic task once)",
                    SchedulerMetrics::scheduled);
            counter(registry, "ran", BaseUnits.TASKS, "Runs whose body returned (every periodic run)",
                    SchedulerMetrics::ran);
            counter(registry, "failed", BaseUnits.TASKS, "Runs whose body threw", SchedulerMetrics::failed);
            counter(registry, "cancelled", BaseUnits.TASKS, "Tasks cancelled, shutdown and stop included",
                    SchedulerMetrics::cancelled);
            counter(registry, "rejected", BaseUnits.TASKS,
                    "Tasks refused: after shutdown, past the pending bound, or by the task executor",
                    SchedulerMetrics::rejected);
            counter(registry, "rearms", BaseUnits.TASKS,
                    "Re-armable timeouts linked again for a deadline a touch moved, instead of firing",
                    SchedulerMetrics::rearms);
            counter(registry, "wakeups", "wakeups",
                    "Times the worker waiting for the next deadline woke up: at a deadline, for an earlier"
                            + " task, or spuriously",
                    SchedulerMetrics::wakeUps);
            counter(registry, "lateness.count", "runs", "Runs whose lateness was measured",
                    m -> m.lateness().totalCount());
            for (double quantile : QUANTILES) {
                double percentile = quantile * 100.0;
                timeGauge(registry, "lateness.percentile", Tags.of("phi", Double.toString(quantile)),
                        "How late runs started since the scheduler was built: an upper bound of the"
                                + " percentile, within a factor of two",
                        m -> m.lateness().percentileNanos(percentile));
            }
            timeGauge(registry, "lateness.max", Tags.empty(),
                    "The latest any run started since the scheduler was built", m -> m.lateness().maxNanos());
        }

        private void gauge(MeterRegistry registry, String name, String unit, String description,
                ToDoubleFunction<SchedulerMetrics> value) {
            Function<S, SchedulerMetrics> read = reader;
            Gauge.builder(PREFIX + name, scheduler, s -> value.applyAsDouble(read.apply(s)))
                    .tags(tags)
                    .baseUnit(unit)
                    .description(description)
                    .register(registry);
        }

        private void counter(MeterRegistry registry, String name, String unit, String description,
                ToDoubleFunction<SchedulerMetrics> value) {
            Function<S, SchedulerMetrics> read = reader;
            FunctionCounter.builder(PREFIX + name, scheduler, s -> value.applyAsDouble(read.apply(s)))
                    .tags(tags)
                    .baseUnit(unit)
                    .description(description)
                    .register(registry);
        }

        private void timeGauge(MeterRegistry registry, String name, Tags extraTags, String description,
                ToDoubleFunction<SchedulerMetrics> nanos) {
            Function<S, SchedulerMetrics> read = reader;
            TimeGauge.builder(PREFIX + name, scheduler, TimeUnit.NANOSECONDS, s -> nanos.applyAsDouble(read.apply(s)))
                    .tags(tags.and(extraTags))
                    .description(description)
                    .register(registry);
        }
    }
}
