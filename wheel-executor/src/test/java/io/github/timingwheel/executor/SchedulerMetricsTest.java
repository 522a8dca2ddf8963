package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitInTask;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.get;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.LatencyHistogram;
import io.github.timingwheel.core.ManualTimeSource;
import io.netty.util.Timeout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SchedulerMetrics} of the executor and the timer, checked exactly against known
 * workloads on a manual clock: every total, pending and running at each step, and the bucket of
 * each run's lateness.
 */
class SchedulerMetricsTest {

    private static final long MS = MILLISECONDS.toNanos(1L);
    /** The bucket of a lateness of 2 ms: [1.024, 2.048) ms. */
    private static final int BUCKET_2_MS = LatencyHistogram.bucketOf(2 * MS);
    /** The bucket of a lateness of 5 ms: [4.096, 8.192) ms. */
    private static final int BUCKET_5_MS = LatencyHistogram.bucketOf(5 * MS);

    private final ManualTimeSource clock = new ManualTimeSource();
    private WheelScheduledExecutor executor;
    private WheelTimer timer;

    @AfterEach
    void stop() throws InterruptedException {
        if (executor != null) {
            executor.shutdownNow();
            awaitTermination(executor);
        }
        if (timer != null) {
            timer.stop();
        }
    }

    private RunObservingExecutor observed(WheelScheduledExecutor.Builder builder) {
        RunObservingExecutor built = new RunObservingExecutor(builder.timeSource(clock).daemon(true));
        executor = built;
        return built;
    }

    @Test
    void executorTotals_matchAKnownWorkload() throws Exception {
        RunObservingExecutor pool = observed(WheelScheduledExecutor.builder().workers(1).name("metrics-test"));
        ScheduledFuture<?> ok = pool.schedule(() -> { }, 10, MILLISECONDS);
        ScheduledFuture<?> throwing = pool.schedule(() -> {
            throw new IllegalStateException("planned");
        }, 10, MILLISECONDS);
        ScheduledFuture<String> later = pool.schedule(() -> "later", 20, MILLISECONDS);
        ScheduledFuture<?> cancelled = pool.schedule(() -> { }, 30, MILLISECONDS);
        ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(() -> { }, 10, 10, MILLISECONDS);
        assertThat(cancelled.cancel(false)).isTrue();

        assertMetrics(pool.metrics(), 4, 5, 0, 0, 1, 0);
        assertThat(pool.metrics().lateness().totalCount()).isZero();

        clock.advance(12, MILLISECONDS); // ok, throwing and the first periodic run, 2 ms late
        pool.awaitRuns(3);
        assertThat(get(ok)).isNull();
        assertThatThrownBy(() -> get(throwing)).isInstanceOf(ExecutionException.class);
        SchedulerMetrics at12 = pool.metrics();
        assertMetrics(at12, 2, 5, 2, 1, 1, 0);
        assertThat(at12.lateness().totalCount()).isEqualTo(3);
        assertThat(at12.lateness().count(BUCKET_2_MS)).isEqualTo(3);
        assertThat(at12.lateness().maxNanos()).isEqualTo(2 * MS);

        clock.advance(13, MILLISECONDS); // at 25: 'later' and the second periodic run, 5 ms late
        pool.awaitRuns(2);
        assertThat(get(later)).isEqualTo("later");
        assertMetrics(pool.metrics(), 1, 5, 4, 1, 1, 0);
        assertThat(periodic.cancel(false)).isTrue();
        assertMetrics(pool.metrics(), 0, 5, 4, 1, 2, 0);

        pool.shutdown();
        assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        awaitTermination(pool);

        SchedulerMetrics end = pool.metrics();
        assertMetrics(end, 0, 5, 4, 1, 2, 1);
        assertThat(end.lateness().count(BUCKET_2_MS)).isEqualTo(3);
        assertThat(end.lateness().count(BUCKET_5_MS)).isEqualTo(2);
        assertThat(end.lateness().totalCount()).isEqualTo(5);
        assertThat(end.running()).isZero();
        assertThat(end.name()).isEqualTo("metrics-test");
        assertThat(end.workers()).isEqualTo(1);
        assertThat(end).hasToString("metrics-test: pending=0 scheduled=5 ran=4 failed=1 cancelled=2 rejected=1"
                + " running=0/1 workers, rearms=0, late n=5 p50<=2.05ms p99<=5ms max=5ms");
    }

    /** Lateness is measured on the executor's time source, to the nanosecond: 999 ns and 1000 ns fall apart. */
    @Test
    void lateness_isMeasuredOnTheTimeSource_toTheNanosecond() throws Exception {
        RunObservingExecutor pool = observed(WheelScheduledExecutor.builder().workers(1));
        ScheduledFuture<?> first = pool.schedule(() -> { }, 1, MILLISECONDS);
        clock.advanceNanos(MS + 999L);
        get(first);
        ScheduledFuture<?> second = pool.schedule(() -> { }, 1, MILLISECONDS);
        clock.advanceNanos(MS + 1_000L);
        get(second);
        ScheduledFuture<?> third = pool.schedule(() -> { }, 0, NANOSECONDS);
        get(third);

        SchedulerMetrics metrics = pool.metrics();
        assertThat(metrics.lateness().count(0)).as("999 ns and 0 ns").isEqualTo(2);
        assertThat(metrics.lateness().count(1)).as("1000 ns").isEqualTo(1);
        assertThat(metrics.lateness().maxNanos()).isEqualTo(1_000L);
    }

    @Test
    void running_countsBodiesInProgress() throws Exception {
        RunObservingExecutor pool = observed(WheelScheduledExecutor.builder().workers(2));
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        Runnable blocking = () -> {
            started.countDown();
            awaitInTask(release);
        };
        ScheduledFuture<?> one = pool.schedule(blocking, 0, MILLISECONDS);
        ScheduledFuture<?> two = pool.schedule(blocking, 0, MILLISECONDS);
        await(started);

        assertThat(pool.metrics().running()).isEqualTo(2);
        assertThat(pool.metrics().pending()).as("running tasks are pending until they end").isEqualTo(2);
        release.countDown();
        get(one);
        get(two);
        assertThat(pool.metrics().running()).isZero();
        assertThat(pool.metrics().pending()).isZero();
        assertThat(pool.metrics().ran()).isEqualTo(2);
    }

    @Test
    void theBoundOnPendingTasks_countsRejections() {
        RunObservingExecutor pool = observed(WheelScheduledExecutor.builder().workers(1).maxPendingTasks(2));
        pool.schedule(() -> { }, 1, MILLISECONDS);
        pool.schedule(() -> { }, 1, MILLISECONDS);
        assertThatThrownBy(() -> pool.schedule(() -> { }, 1, MILLISECONDS))
                .isInstanceOf(RejectedExecutionException.class);

        assertMetrics(pool.metrics(), 2, 2, 0, 0, 0, 1);
    }

    /**
     * A task counts as scheduled once it is accepted, not when it is made: one whose
     * {@code decorateTask} throws, or returns null, was made and placed but never queued, and
     * leaves every total as it was. Mutant: the count taken when the task is made (before
     * {@code decorateTask}, and before the check of its result): red, scheduled 3 and pending
     * 3 for one task queued.
     */
    @Test
    void aTaskWhoseDecorationFails_isNotCounted() {
        WheelScheduledExecutor decorating = new FailingDecoration(WheelScheduledExecutor.builder().workers(1)
                .timeSource(clock).daemon(true));
        executor = decorating;

        decorating.schedule(() -> { }, 1, MILLISECONDS);
        assertThatThrownBy(() -> decorating.schedule(FailingDecoration.THROWS, 1, MILLISECONDS))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> decorating.scheduleAtFixedRate(FailingDecoration.NULL, 1, 1, MILLISECONDS))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("decorateTask");

        assertMetrics(decorating.metrics(), 1, 1, 0, 0, 0, 0);
        assertThat(decorating.getQueue()).as("only the task that was accepted").hasSize(1);
    }

    /**
     * A cancel whose shard is held elsewhere (so its unlink goes through the shard's inbox, and
     * another thread applies it) counts once, at the cancel, and the task leaves the queue once
     * the shard is let go. Mutants: no count at the cancel (cancelled 0 while the shard is held:
     * red); a count also where the shard unlinks the task, under its lock (cancelled 2 once the
     * shard is let go: red).
     */
    @Test
    void aCancelWhileItsShardIsHeld_countsOnce() throws Exception {
        RunObservingExecutor pool = observed(WheelScheduledExecutor.builder().workers(1).shards(1));
        pool.prestartAllCoreThreads();
        ScheduledFuture<?> future = pool.schedule(() -> { }, 10, MILLISECONDS);
        WheelShard shard = pool.queue().shard(0);
        shard.lock();
        try {
            assertThat(future.cancel(false)).isTrue();
            assertMetrics(pool.metrics(), 0, 1, 0, 0, 1, 0);
        } finally {
            shard.unlockAndHelp(); // as a producer lets go: it applies the inbox, or wakes a harvester
        }
        awaitCondition("the cancelled task out of the queue", () -> pool.getQueue().isEmpty());
        pool.schedule(() -> { }, 20, MILLISECONDS); // a run after the cancelled one's deadline
        clock.advance(20, MILLISECONDS);
        pool.awaitRuns(1);

        assertMetrics(pool.metrics(), 0, 2, 1, 0, 1, 0);
    }

    /**
     * A task queued while its shard is held elsewhere (it goes through the shard's inbox) and
     * one queued in place are each counted once, and so are their cancels: the counts that the
     * shards keep for what is applied in place and those of the threads' cells for what goes
     * through an inbox add up (TaskCounters [7]). Mutants: no count through the inbox
     * (scheduled 1 while the shard is held: red); no count in place (scheduled 0 before the
     * shard is held: red); a count in place also in the thread's cell (2: red).
     */
    @Test
    void tasksQueuedAndCancelledInPlaceOrThroughTheInbox_countOnceEach() throws Exception {
        RunObservingExecutor pool = observed(WheelScheduledExecutor.builder().workers(1).shards(1));
        pool.prestartAllCoreThreads();
        ScheduledFuture<?> inPlace = pool.schedule(() -> { }, 10, MILLISECONDS);
        assertMetrics(pool.metrics(), 1, 1, 0, 0, 0, 0);
        WheelShard shard = pool.queue().shard(0);
        ScheduledFuture<?> throughInbox;
        shard.lock();
        try {
            throughInbox = pool.schedule(() -> { }, 10, MILLISECONDS);
            assertThat(shard.inboxSize()).as("pushed into the inbox").isEqualTo(1);
            assertMetrics(pool.metrics(), 2, 2, 0, 0, 0, 0);
        } finally {
            shard.unlockAndHelp();
        }
        awaitCondition("the inbox applied", () -> shard.inboxSize() == 0);
        assertThat(inPlace.cancel(false)).isTrue();
        assertMetrics(pool.metrics(), 1, 2, 0, 0, 1, 0);
        pool.schedule(() -> { }, 20, MILLISECONDS);
        clock.advance(20, MILLISECONDS);
        pool.awaitRuns(2);

        assertThat(throughInbox.isDone()).isTrue();
        assertMetrics(pool.metrics(), 0, 3, 2, 0, 1, 0);
    }

    /**
     * As the executor's, for the timer's timeouts, which reach the shards another way; here the
     * cancel of the timeout that waits in the inbox is counted without reaching the shard.
     * Mutant: no count for a cancel of a task still in its inbox (cancelled 0 while the shard is
     * held: red).
     */
    @Test
    void timeoutsStartedAndCancelledInPlaceOrThroughTheInbox_countOnceEach() {
        timer = WheelTimer.builder().timeSource(clock).daemon(true).shards(1).build();
        Timeout inPlace = timer.newTimeout(timeout -> { }, 10, MILLISECONDS);
        WheelShard shard = timer.engine().queue().shard(0);
        Timeout throughInbox;
        shard.lock();
        try {
            throughInbox = timer.newTimeout(timeout -> { }, 10, MILLISECONDS);
            assertMetrics(timer.metrics(), 2, 2, 0, 0, 0, 0);
            assertThat(throughInbox.cancel()).isTrue();
            assertMetrics(timer.metrics(), 1, 2, 0, 0, 1, 0);
        } finally {
            shard.unlockAndHelp();
        }
        assertThat(inPlace.cancel()).isTrue();

        assertMetrics(timer.metrics(), 0, 2, 0, 0, 2, 0);
        assertThat(timer.pendingTimeouts()).isZero();
    }

    /** An executor whose decorateTask throws for one command and returns null for another. */
    private static final class FailingDecoration extends WheelScheduledExecutor {

        static final Runnable THROWS = () -> { };
        static final Runnable NULL = () -> { };

        FailingDecoration(Builder builder) {
            super(builder);
        }

        @Override
        protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
            if (runnable == THROWS) {
                throw new IllegalStateException("decoration failed");
            }
            return runnable == NULL ? null : task;
        }
    }

    @Test
    void aTaskExecutorThatRefusesABody_countsARejection_notARun() throws Exception {
        RunObservingExecutor pool = observed(WheelScheduledExecutor.builder().workers(1).taskExecutor(body -> {
            throw new RejectedExecutionException("full");
        }));
        ScheduledFuture<?> refused = pool.schedule(() -> { }, 0, MILLISECONDS);
        assertThatThrownBy(() -> get(refused)).hasCauseInstanceOf(RejectedExecutionException.class);

        assertMetrics(pool.metrics(), 0, 1, 0, 0, 0, 1);
        assertThat(pool.metrics().lateness().totalCount()).as("the body never started").isZero();
    }

    @Test
    void timerTotals_matchAKnownWorkload() throws Exception {
        timer = WheelTimer.builder().timeSource(clock).daemon(true).maxPendingTimeouts(3).name("timer-test").build();
        CountDownLatch fired = new CountDownLatch(2);
        timer.newTimeout(timeout -> fired.countDown(), 10, MILLISECONDS);
        timer.newTimeout(timeout -> {
            fired.countDown();
            throw new IllegalStateException("planned, and logged");
        }, 10, MILLISECONDS);
        Timeout cancelled = timer.newTimeout(timeout -> { }, 20, MILLISECONDS);
        assertThatThrownBy(() -> timer.newTimeout(timeout -> { }, 20, MILLISECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        assertMetrics(timer.metrics(), 3, 3, 0, 0, 0, 1);
        assertThat(cancelled.cancel()).isTrue();
        assertMetrics(timer.metrics(), 2, 3, 0, 0, 1, 1);
        assertThat(timer.metrics().pending()).isEqualTo(timer.pendingTimeouts());

        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Logger log = Logger.getLogger(WheelTimer.class.getName()); // Netty logs to it through JUL
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                logged.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(capture);
        log.setUseParentHandlers(false); // the planned exception is asserted, not printed
        try {
            clock.advance(15, MILLISECONDS);
            await(fired);
            assertThat(timer.stop()).isEmpty(); // waits for the workers: every count is in
        } finally {
            log.removeHandler(capture);
            log.setUseParentHandlers(true);
        }
        assertThat(logged).singleElement()
                .satisfies(record -> assertThat(record.getThrown()).hasMessage("planned, and logged"));
        assertThatThrownBy(() -> timer.newTimeout(timeout -> { }, 1, MILLISECONDS))
                .isInstanceOf(IllegalStateException.class);

        SchedulerMetrics end = timer.metrics();
        assertMetrics(end, 0, 3, 1, 1, 1, 2);
        assertThat(end.lateness().count(BUCKET_5_MS)).isEqualTo(2);
        assertThat(end.lateness().totalCount()).isEqualTo(2);
        assertThat(end.name()).isEqualTo("timer-test");
        assertThat(end.running()).isZero();
    }

    @Test
    void timerStop_countsTheTimeoutsItCancels() {
        timer = WheelTimer.builder().timeSource(clock).daemon(true).build();
        timer.newTimeout(timeout -> { }, 1, MILLISECONDS);
        timer.newTimeout(timeout -> { }, 1, MILLISECONDS);

        assertThat(timer.stop()).hasSize(2);
        assertMetrics(timer.metrics(), 0, 2, 0, 0, 2, 0);
    }

    @Test
    void defaultNames() {
        timer = WheelTimer.builder().daemon(true).build();
        executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        assertThat(timer.metrics().name()).matches("wheel-timer-\\d+");
        assertThat(executor.metrics().name()).matches("timingwheel-\\d+").isEqualTo(executor.name());
        assertThat(executor.metrics().workers()).isEqualTo(1);
    }

    /**
     * wakeUps counts the waiting worker's returns from its park: a task 20 ms out cannot run
     * before that worker wakes at least once (unparked by the producer, or at the deadline), in
     * the executor and in the timer, and the figure is the queue's own count. On the real clock:
     * a manual one does not move a park.
     */
    @Test
    void wakeUps_countTheWaitingWorkersWakeUps() throws Exception {
        executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        executor.prestartAllCoreThreads();
        awaitCondition("the worker waits as leader", executor.queue()::leaderParked);
        long before = executor.metrics().wakeUps();

        get(executor.schedule(() -> { }, 20, MILLISECONDS));
        long after = executor.metrics().wakeUps();
        assertThat(after).as("wake-ups for one delayed task").isGreaterThan(before);
        assertThat(after).as("the queue's count, read again").isLessThanOrEqualTo(executor.queue().leaderWakeUps());

        timer = WheelTimer.builder().daemon(true).build();
        assertThat(timer.metrics().wakeUps()).isZero();
        CountDownLatch fired = new CountDownLatch(1);
        timer.newTimeout(timeout -> fired.countDown(), 20, MILLISECONDS);
        await(fired);
        assertThat(timer.metrics().wakeUps()).as("the timer's wake-ups for one timeout").isPositive();
    }

    /**
     * A discarding handler after shutdown hands back a future that is still NEW; cancelling it
     * later must end what was counted, not take one more off the pending count or the bound.
     */
    @Test
    void aTaskDiscardedAfterShutdown_isCountedUntilItIsCancelled() throws Exception {
        RunObservingExecutor pool = observed(WheelScheduledExecutor.builder().workers(1).maxPendingTasks(2)
                .rejectedExecutionHandler(new java.util.concurrent.ThreadPoolExecutor.DiscardPolicy()));
        ScheduledFuture<?> pending = pool.schedule(() -> { }, 10, MILLISECONDS);
        pool.shutdown(); // the pending one-shot task still runs, as with the JDK's default policies
        ScheduledFuture<?> discarded = pool.schedule(() -> { }, 10, MILLISECONDS);
        assertThat(discarded.isDone()).isFalse();
        assertMetrics(pool.metrics(), 2, 2, 0, 0, 0, 1);

        assertThat(discarded.cancel(false)).isTrue();
        assertMetrics(pool.metrics(), 1, 2, 0, 0, 1, 1);

        clock.advance(10, MILLISECONDS);
        pool.awaitRuns(1);
        assertThat(get(pending)).isNull();
        assertMetrics(pool.metrics(), 0, 2, 1, 0, 1, 1);
    }

    /**
     * A body that cancels its own future while it runs (as a deadline task does) still ran: the
     * run counts in ran and in the lateness histogram, and the cancel ends the task.
     */
    @Test
    void aRunWhoseFutureIsCancelledWhileItRuns_countsAsARunAndACancel() throws Exception {
        RunObservingExecutor pool = observed(WheelScheduledExecutor.builder().workers(1));
        CountDownLatch cancelledItself = new CountDownLatch(1);
        ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
        CountDownLatch published = new CountDownLatch(1);
        self[0] = pool.schedule(() -> {
            awaitInTask(published);
            self[0].cancel(false);
            cancelledItself.countDown();
        }, 10, MILLISECONDS);
        published.countDown();
        ScheduledFuture<?> failing = pool.schedule(() -> {
            throw new IllegalStateException("planned");
        }, 10, MILLISECONDS);

        clock.advance(10, MILLISECONDS);
        pool.awaitRuns(2);
        await(cancelledItself);
        assertThat(self[0].isCancelled()).isTrue();
        assertThatThrownBy(() -> get(failing)).isInstanceOf(ExecutionException.class);
        SchedulerMetrics metrics = pool.metrics();
        assertMetrics(metrics, 0, 2, 1, 1, 1, 0);
        assertThat(metrics.lateness().totalCount()).as("one lateness value per run")
                .isEqualTo(metrics.ran() + metrics.failed());
    }

    private static void assertMetrics(SchedulerMetrics metrics, long pending, long scheduled, long ran, long failed,
            long cancelled, long rejected) {
        assertThat(new long[] {metrics.pending(), metrics.scheduled(), metrics.ran(), metrics.failed(),
            metrics.cancelled(), metrics.rejected()})
                .as("pending, scheduled, ran, failed, cancelled, rejected in %s", metrics)
                .containsExactly(pending, scheduled, ran, failed, cancelled, rejected);
    }
}
