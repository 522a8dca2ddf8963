package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The tolerance: the leader parks until its next event plus half of it and runs what is due
 * then (WorkerRoles [5]); nothing ever starts early.
 */
class ToleranceTest {

    /**
     * With a 10 ms tolerance a task due at 5 ms is taken once it has been due a quarter of it
     * (2.5 ms), not before, and never before its deadline. Mutant: a harvest that takes what is
     * due within the slack ({@code takeDue(now + slackNanos)} in WorkerRoles.await, that is
     * the clock read forward instead of back) starts it by 7.499 ms, and so does a tolerance
     * that drops the quarter of lateness (minLateNanos 0).
     */
    @ParameterizedTest(name = "origin {0}")
    @ValueSource(longs = {Long.MIN_VALUE + 1, -1L, 0L, Long.MAX_VALUE - 3_600_000_000_000L})
    void neverEarly_andAQuarterOfTheToleranceLate(long origin) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(origin);
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(1).timeSource(clock).tolerance(10, MILLISECONDS).daemon(true).build();
        ManualClockWorkers workers = new ManualClockWorkers(clock, executor);
        long quarter = MILLISECONDS.toNanos(10) / 4;
        AtomicInteger ran = new AtomicInteger();
        try {
            executor.schedule(ran::incrementAndGet, 5, MILLISECONDS);
            RearmableFuture<Void> idle = executor.scheduleRearmable(ran::incrementAndGet, 5, MILLISECONDS);
            clock.advance(7_499, MICROSECONDS);
            workers.passDueTasks(quarter); // everything due by 4.999 ms has been taken
            workers.passDueTasks(quarter); // and run: the one worker ran the batch first
            assertThat(ran).as("never early, and not before a quarter of the tolerance").hasValue(0);
            clock.advance(1, MICROSECONDS); // 7.5 ms
            workers.passDueTasks(quarter);
            assertThat(ran).hasValue(2);
            assertThat(idle.isArmed()).isFalse();
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }

    /**
     * The leader parks until the event plus the slack, and a timed wait still ends on time.
     * Mutant: a park that ignores the slack (parkNanos returning min(wait, untilEvent)).
     */
    @Test
    void leaderParks_untilTheEventPlusTheSlack() {
        assertThat(WorkerRoles.parkNanos(1_000_000L, Long.MAX_VALUE, 500_000L)).isEqualTo(1_500_000L);
        assertThat(WorkerRoles.parkNanos(1_000_000L, 1_200_000L, 500_000L)).isEqualTo(1_200_000L);
        assertThat(WorkerRoles.parkNanos(Long.MAX_VALUE, Long.MAX_VALUE, 500_000L)).isEqualTo(Long.MAX_VALUE);
        assertThat(WorkerRoles.parkNanos(Long.MAX_VALUE - 1, Long.MAX_VALUE, 500_000L)).isEqualTo(Long.MAX_VALUE);
        assertThat(WorkerRoles.parkNanos(1_000_000L, Long.MAX_VALUE, 0L)).isEqualTo(1_000_000L);
    }

    @Test
    void negativeTolerance_isRefused() {
        assertThatThrownBy(() -> WheelScheduledExecutor.builder().tolerance(-1, MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WheelTimer.builder().tolerance(-1, MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * 400 tasks 50 µs apart (20 ms of them), on the real clock, with one worker and a 2 ms
     * tolerance: every park of the leader lasts at least half a millisecond (its event plus a
     * quarter of the tolerance, WorkerRoles.parkNanos), so over the run it wakes at most
     * twice per elapsed millisecond, plus a few spurious returns; a loaded machine only makes
     * the run longer and the bound with it. Without a tolerance the same run may wake once per
     * task. Wall-clock, so tagged "timing"; the counts of both are printed. The mutant "slack
     * ignored" is caught deterministically by the test above; here only on a quiet machine.
     */
    @Test
    @Tag("timing")
    void tolerance_boundsWakeUps() throws Exception {
        long[] strict = leaderWakeUpsFor(0L);
        long[] tolerant = leaderWakeUpsFor(2L);
        System.out.printf("leader wake-ups for 400 tasks over 20 ms: tolerance 0 -> %d in %d ms, 2 ms -> %d in %d ms%n",
                strict[0], strict[1], tolerant[0], tolerant[1]);
        assertThat(tolerant[0]).isLessThanOrEqualTo(2 * tolerant[1] + 5);
    }

    /** @return the leader's wake-ups, and the milliseconds from the first schedule to the last run */
    private static long[] leaderWakeUpsFor(long toleranceMillis) throws Exception {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .workers(1).tolerance(toleranceMillis, MILLISECONDS).daemon(true).build();
        try {
            executor.prestartAllCoreThreads();
            int tasks = 400;
            CountDownLatch done = new CountDownLatch(tasks);
            long wakeUpsBefore = executor.queue().leaderWakeUps();
            long start = System.nanoTime();
            for (int i = 0; i < tasks; i++) {
                executor.schedule(done::countDown, 5_000 + 50L * i, TimeUnit.MICROSECONDS);
            }
            await(done);
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + 1;
            return new long[] {executor.queue().leaderWakeUps() - wakeUpsBefore, elapsedMillis};
        } finally {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }
}
