package io.github.timingwheel.clients;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.concurrent.ConcurrentTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

/**
 * Spring's TaskScheduler over our executor ({@code ConcurrentTaskScheduler}), with a cron
 * trigger: Spring computes each next run from its wall clock in whole milliseconds and hands
 * our executor a delay. A timer that fires even a millisecond early by that clock starts the
 * run in the last millisecond of the second before, and the trigger then names that second's
 * start again: the task runs twice in one second. Each run must start within its own second,
 * each second at most once. Mutant: every deadline a millisecond early (a second run twice,
 * red).
 */
class SpringCronTest {

    /** How far into its second a run may start on a loaded machine: generous, far from .999. */
    private static final long LATEST_START_MILLIS = 900L;
    private static final int RUNS = 3;

    private final WheelScheduledExecutor timers = WheelScheduledExecutor.builder().workers(2).daemon(true)
            .name("spring-cron").build();

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    @Test
    void aCronTaskEverySecond_startsWithinItsOwnSecond_onceEach() throws Exception {
        ConcurrentTaskScheduler scheduler = new ConcurrentTaskScheduler(timers);
        List<Instant> starts = new CopyOnWriteArrayList<>();
        CountDownLatch ran = new CountDownLatch(RUNS);
        ScheduledFuture<?> cron = scheduler.schedule(() -> {
            starts.add(scheduler.getClock().instant());
            ran.countDown();
        }, new CronTrigger("* * * * * *"));

        assertThat(ran.await(RUNS + 10, TimeUnit.SECONDS)).as("%d runs", RUNS).isTrue();
        cron.cancel(false);

        List<Long> seconds = starts.stream().map(Instant::getEpochSecond).toList();
        assertThat(seconds).as("the second of each start").doesNotHaveDuplicates();
        for (Instant start : starts) {
            assertThat(start.toEpochMilli() % 1_000).as("milliseconds into its second at %s", start)
                    .isLessThan(LATEST_START_MILLIS);
        }
    }
}
