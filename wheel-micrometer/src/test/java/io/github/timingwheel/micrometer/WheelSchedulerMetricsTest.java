package io.github.timingwheel.micrometer;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.LatencyHistogram;
import io.github.timingwheel.core.ManualTimeSource;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.util.Timeout;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every meter of {@link WheelSchedulerMetrics}, read from a {@link SimpleMeterRegistry} after a
 * known sequence of schedules, runs, failures, cancels and rejections on a manual clock, so
 * that each lateness is exact.
 */
class WheelSchedulerMetricsTest {

    private static final long MS = MILLISECONDS.toNanos(1L);
    /** A generous bound for waits on real threads; a loaded machine never comes near it. */
    private static final long TIMEOUT_SECONDS = 30L;
    private static final List<String> METERS = List.of("pending", "cancelled.held", "running", "workers", "scheduled", "ran",
            "failed", "cancelled", "rejected", "rearms", "wakeups", "lateness.count", "lateness.percentile", "lateness.max");

    private final ManualTimeSource clock = new ManualTimeSource();
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private WheelScheduledExecutor executor;
    private WheelTimer timer;

    @AfterEach
    void stop() throws InterruptedException {
        if (executor != null) {
            executor.shutdownNow();
            assertThat(executor.awaitTermination(TIMEOUT_SECONDS, SECONDS)).isTrue();
        }
        if (timer != null) {
            timer.stop();
        }
    }

    @Test
    void executor_everyMeter_followsAKnownSequence() throws Exception {
        RunsObserved pool = new RunsObserved(WheelScheduledExecutor.builder()
                .workers(1).name("orders").timeSource(clock).daemon(true));
        executor = pool;
        WheelSchedulerMetrics.monitor(registry, pool, Tags.of("service", "test"));

        ScheduledFuture<?> ok = pool.schedule(() -> { }, 10, MILLISECONDS);
        ScheduledFuture<?> throwing = pool.schedule(() -> {
            throw new IllegalStateException("planned");
        }, 10, MILLISECONDS);
        ScheduledFuture<String> later = pool.schedule(() -> "later", 20, MILLISECONDS);
        ScheduledFuture<?> cancelled = pool.schedule(() -> { }, 30, MILLISECONDS);
        ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(() -> { }, 10, 10, MILLISECONDS);
        assertThat(cancelled.cancel(false)).isTrue();
        assertMeters("orders", 4, 0, 1, 5, 0, 0, 1, 0);
        assertLateness("orders", 0, 0, 0, 0);

        clock.advance(12, MILLISECONDS); // ok, throwing and the first periodic run, each 2 ms late
        pool.awaitRuns(3);
        assertThat(ok.get()).isNull();
        assertThatThrownBy(throwing::get).isInstanceOf(ExecutionException.class);
        assertMeters("orders", 2, 0, 1, 5, 2, 1, 1, 0);
        assertLateness("orders", 3, 2 * MS, 2 * MS, 2 * MS);

        clock.advance(13, MILLISECONDS); // at 25: 'later' and the second periodic run, each 5 ms late
        pool.awaitRuns(2);
        assertThat(later.get()).isEqualTo("later");
        assertMeters("orders", 1, 0, 1, 5, 4, 1, 1, 0);
        // 2, 2, 2, 5, 5 ms: the median is in the bucket of 2 ms, reported as its upper edge.
        assertLateness("orders", 5, upperEdgeOf(2 * MS), 5 * MS, 5 * MS);

        assertThat(periodic.cancel(false)).isTrue();
        pool.shutdown();
        assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        assertThat(pool.awaitTermination(TIMEOUT_SECONDS, SECONDS)).isTrue();
        assertMeters("orders", 0, 0, 1, 5, 4, 1, 2, 1);
        assertLateness("orders", 5, upperEdgeOf(2 * MS), 5 * MS, 5 * MS);

        for (Meter meter : registry.getMeters()) {
            assertThat(meter.getId().getTags()).as(meter.getId().getName())
                    .contains(Tag.of("name", "orders"), Tag.of("service", "test"));
        }
        assertThat(registry.getMeters()).as("one meter per figure, two percentiles").hasSize(METERS.size() + 1);
    }

    /**
     * With the JDK's remove-on-cancel default (off), cancelled tasks stay in the queue: the
     * pending gauge drops, the cancelled.held gauge shows them, until purge() takes them out.
     * Mutant seen red: a cancel that never marks its task held (the gauge stays 0).
     */
    @Test
    void cancelledHeld_showsCancelledTasksTheQueueKeeps() {
        executor = new WheelScheduledExecutor(1);
        WheelSchedulerMetrics.monitor(registry, executor, Tags.empty());
        String name = executor.metrics().name();
        List<ScheduledFuture<?>> tasks = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 3; i++) {
            tasks.add(executor.schedule(() -> { }, 1, TimeUnit.HOURS));
        }
        tasks.get(0).cancel(false);
        tasks.get(1).cancel(false);
        assertThat(executor.getQueue()).hasSize(3);
        assertThat(gauge(name, "pending")).isEqualTo(1.0);
        assertThat(gauge(name, "cancelled.held")).isEqualTo(2.0);
        executor.purge();
        assertThat(executor.getQueue()).hasSize(1);
        assertThat(gauge(name, "cancelled.held")).isZero();
    }

    @Test
    void timer_everyMeter_followsAKnownSequence() throws Exception {
        timer = WheelTimer.builder().name("timeouts").timeSource(clock).daemon(true).maxPendingTimeouts(3).build();
        WheelSchedulerMetrics.of(timer, Tags.empty()).bindTo(registry);

        CountDownLatch fired = new CountDownLatch(2);
        timer.newTimeout(timeout -> fired.countDown(), 10, MILLISECONDS);
        timer.newTimeout(timeout -> {
            fired.countDown();
            throw new IllegalStateException("planned, and logged");
        }, 10, MILLISECONDS);
        Timeout cancelled = timer.newTimeout(timeout -> { }, 20, MILLISECONDS);
        assertThatThrownBy(() -> timer.newTimeout(timeout -> { }, 20, MILLISECONDS))
                .as("past maxPendingTimeouts").isInstanceOf(RejectedExecutionException.class);
        assertThat(cancelled.cancel()).isTrue();
        assertMeters("timeouts", 2, 0, 1, 3, 0, 0, 1, 1);

        List<LogRecord> logged = capturingLog(WheelTimer.class.getName(), () -> {
            clock.advance(15, MILLISECONDS); // both fire 5 ms late
            assertThat(fired.await(TIMEOUT_SECONDS, SECONDS)).isTrue();
            assertThat(timer.stop()).isEmpty(); // waits for the worker: every count is in
        });
        assertThat(logged).singleElement()
                .satisfies(record -> assertThat(record.getThrown()).hasMessage("planned, and logged"));
        assertThatThrownBy(() -> timer.newTimeout(timeout -> { }, 1, MILLISECONDS))
                .isInstanceOf(IllegalStateException.class);

        assertMeters("timeouts", 0, 0, 1, 3, 1, 1, 1, 2);
        assertLateness("timeouts", 2, 5 * MS, 5 * MS, 5 * MS);
    }

    @Test
    void running_countsBodiesInProgress() throws Exception {
        executor = WheelScheduledExecutor.builder().workers(2).name("busy").daemon(true).build();
        WheelSchedulerMetrics.monitor(registry, executor, Tags.empty());
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        Runnable blocking = () -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        ScheduledFuture<?> one = executor.schedule(blocking, 0, MILLISECONDS);
        ScheduledFuture<?> two = executor.schedule(blocking, 0, MILLISECONDS);
        assertThat(started.await(TIMEOUT_SECONDS, SECONDS)).isTrue();

        assertThat(gauge("busy", "running")).isEqualTo(2.0);
        assertThat(gauge("busy", "pending")).as("a running task is pending until it ends").isEqualTo(2.0);
        assertThat(gauge("busy", "workers")).isEqualTo(2.0);
        release.countDown();
        one.get(TIMEOUT_SECONDS, SECONDS);
        two.get(TIMEOUT_SECONDS, SECONDS);
        assertMeters("busy", 0, 0, 2, 2, 2, 0, 0, 0);
    }

    @Test
    void wakeups_readsTheWaitingWorkersWakeUps() throws Exception {
        executor = WheelScheduledExecutor.builder().workers(1).name("waking").daemon(true).build();
        WheelSchedulerMetrics.monitor(registry, executor, Tags.empty());
        assertThat(counter("waking", "wakeups")).isZero();

        // Real clock, real parks. A worker that reaches its queue only after a task is due takes
        // it without parking (a thread started late on a loaded machine), so tasks 20 ms out are
        // run until one of them found the worker waiting; a meter that reads nothing stays at 0.
        executor.schedule(() -> { }, 0, MILLISECONDS).get(TIMEOUT_SECONDS, SECONDS); // the worker runs
        for (int i = 0; i < 50 && counter("waking", "wakeups") == 0; i++) {
            executor.schedule(() -> { }, 20, MILLISECONDS).get(TIMEOUT_SECONDS, SECONDS);
        }
        assertThat(counter("waking", "wakeups")).as("at least the wake-up for one of those tasks").isPositive()
                .isLessThanOrEqualTo(executor.metrics().wakeUps());
    }

    @Test
    void twoSchedulers_inOneRegistry_areToldApartByName() {
        executor = WheelScheduledExecutor.builder().workers(1).name("first").daemon(true).build();
        timer = WheelTimer.builder().name("second").daemon(true).build();
        WheelSchedulerMetrics.monitor(registry, executor, Tags.empty());
        WheelSchedulerMetrics.monitor(registry, timer, Tags.empty());
        executor.schedule(() -> { }, 1, TimeUnit.HOURS);

        assertThat(gauge("first", "pending")).isEqualTo(1.0);
        assertThat(gauge("second", "pending")).isZero();
        assertThat(registry.getMeters()).hasSize(2 * (METERS.size() + 1));
    }

    @Test
    void bindingTwice_findsTheMetersAlreadyThere() throws Exception {
        executor = WheelScheduledExecutor.builder().workers(1).name("twice").daemon(true).build();
        WheelSchedulerMetrics binder = WheelSchedulerMetrics.of(executor, Tags.empty());
        binder.bindTo(registry);
        List<LogRecord> logged = capturingLog("io.micrometer", () -> binder.bindTo(registry));
        assertThat(logged).as("Micrometer's warning, once per registry")
                .anySatisfy(record -> assertThat(record.getMessage()).contains("already registered"));

        assertThat(registry.getMeters()).hasSize(METERS.size() + 1);
        assertThat(counter("twice", "scheduled")).isZero();
    }

    @Test
    void theMeters_doNotKeepTheSchedulerAlive() throws Exception {
        WeakReference<WheelScheduledExecutor> collectable = boundAndTerminated("gone");
        assertThat(counter("gone", "scheduled")).isEqualTo(1.0);
        for (int i = 0; i < 20 && collectable.get() != null; i++) {
            System.gc();
        }

        assertThat(collectable.get()).as("collected while its meters are registered").isNull();
        assertThat(gauge("gone", "pending")).as("a gauge of a collected scheduler").isNaN();
        assertThat(counter("gone", "scheduled")).as("a counter keeps its last value").isEqualTo(1.0);
    }

    /** An executor bound to the registry, with one task run, terminated and referenced only weakly. */
    private WeakReference<WheelScheduledExecutor> boundAndTerminated(String name) throws Exception {
        WheelScheduledExecutor doomed = WheelScheduledExecutor.builder().workers(1).name(name).daemon(true).build();
        WheelSchedulerMetrics.monitor(registry, doomed, Tags.empty());
        doomed.submit(() -> { }).get(TIMEOUT_SECONDS, SECONDS);
        doomed.shutdown();
        assertThat(doomed.awaitTermination(TIMEOUT_SECONDS, SECONDS)).isTrue();
        return new WeakReference<>(doomed);
    }

    @Test
    void nullArguments_throwNamingTheArgument() {
        executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        timer = WheelTimer.builder().daemon(true).build();
        WheelScheduledExecutor noExecutor = null;
        WheelTimer noTimer = null;

        assertThatThrownBy(() -> WheelSchedulerMetrics.of(noExecutor, Tags.empty()))
                .isInstanceOf(NullPointerException.class).hasMessage("executor");
        assertThatThrownBy(() -> WheelSchedulerMetrics.of(noTimer, Tags.empty()))
                .isInstanceOf(NullPointerException.class).hasMessage("timer");
        assertThatThrownBy(() -> WheelSchedulerMetrics.of(executor, null))
                .isInstanceOf(NullPointerException.class).hasMessage("tags");
        assertThatThrownBy(() -> WheelSchedulerMetrics.of(timer, null))
                .isInstanceOf(NullPointerException.class).hasMessage("tags");
        assertThatThrownBy(() -> WheelSchedulerMetrics.of(executor, Tags.empty()).bindTo(null))
                .isInstanceOf(NullPointerException.class).hasMessage("registry");
        assertThatThrownBy(() -> WheelSchedulerMetrics.monitor(null, executor, Tags.empty()))
                .isInstanceOf(NullPointerException.class).hasMessage("registry");
        assertThatThrownBy(() -> WheelSchedulerMetrics.monitor(null, timer, Tags.empty()))
                .isInstanceOf(NullPointerException.class).hasMessage("registry");
        assertThat(registry.getMeters()).isEmpty();
    }

    // ---------------------------------------------------------------------------------------

    /** The upper edge of the lateness bucket that holds {@code nanos}, as percentiles report it. */
    private static long upperEdgeOf(long nanos) {
        return LatencyHistogram.upperBoundNanos(LatencyHistogram.bucketOf(nanos));
    }

    private void assertMeters(String name, long pending, long running, long workers, long scheduled, long ran,
            long failed, long cancelled, long rejected) {
        assertThat(new double[] {
            gauge(name, "pending"), gauge(name, "running"), gauge(name, "workers"),
            counter(name, "scheduled"), counter(name, "ran"), counter(name, "failed"),
            counter(name, "cancelled"), counter(name, "rejected")})
                .as("pending, running, workers, scheduled, ran, failed, cancelled, rejected of %s", name)
                .containsExactly(pending, running, workers, scheduled, ran, failed, cancelled, rejected);
    }

    private void assertLateness(String name, long count, long p50Nanos, long p99Nanos, long maxNanos) {
        assertThat(new double[] {
            counter(name, "lateness.count"), percentileNanos(name, "0.5"), percentileNanos(name, "0.99"),
            registry.get(WheelSchedulerMetrics.PREFIX + "lateness.max").tag("name", name).timeGauge()
                    .value(NANOSECONDS)})
                .as("lateness count, p50, p99, max (ns) of %s", name)
                .containsExactly(count, p50Nanos, p99Nanos, maxNanos);
    }

    private double gauge(String name, String meter) {
        return registry.get(WheelSchedulerMetrics.PREFIX + meter).tag("name", name).gauge().value();
    }

    private double counter(String name, String meter) {
        return registry.get(WheelSchedulerMetrics.PREFIX + meter).tag("name", name).functionCounter().count();
    }

    private double percentileNanos(String name, String phi) {
        return registry.get(WheelSchedulerMetrics.PREFIX + "lateness.percentile").tags("name", name, "phi", phi)
                .timeGauge().value(NANOSECONDS);
    }

    /**
     * An executor that counts runs through {@code afterExecute}, which a worker calls once a run
     * has returned and been counted (a periodic task is then back in the wheel), so that the test
     * knows when the counters are in and it may move the clock again.
     */
    private static final class RunsObserved extends WheelScheduledExecutor {
        private final Semaphore runsDone = new Semaphore(0);

        RunsObserved(Builder builder) {
            super(builder);
        }

        @Override
        protected void afterExecute(Runnable task, Throwable thrown) {
            runsDone.release();
        }

        void awaitRuns(int runs) throws InterruptedException {
            assertThat(runsDone.tryAcquire(runs, TIMEOUT_SECONDS, SECONDS))
                    .as("%d runs returned within %d s", runs, TIMEOUT_SECONDS).isTrue();
        }
    }

    /** A body whose log is checked rather than printed. */
    @FunctionalInterface
    private interface Body {
        void run() throws Exception;
    }

    /**
     * Runs {@code body} with the java.util.logging records of {@code loggerName} and below (where
     * Netty's and Micrometer's loggers write when no other logging library is present) kept
     * here instead of printed; returns them, for the test to assert on.
     */
    private static List<LogRecord> capturingLog(String loggerName, Body body) throws Exception {
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Logger logger = Logger.getLogger(loggerName);
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(capture);
        logger.setUseParentHandlers(false);
        try {
            body.run();
        } finally {
            logger.removeHandler(capture);
            logger.setUseParentHandlers(true);
        }
        return records;
    }
}
