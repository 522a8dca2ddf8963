package app.executor;

import io.github.timingwheel.core.LatencyDistribution;
import io.github.timingwheel.executor.SchedulerMetrics;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** The executor on the module path, without Netty, flight recorder events on. */
public final class Main {
    public static void main(String[] args) throws Exception {
        try (WheelScheduledExecutor timers = WheelScheduledExecutor.builder()
                .name("module-path")
                .workers(2)
                .lateTaskEventThreshold(1, TimeUnit.SECONDS)
                .longTaskEventThreshold(1, TimeUnit.SECONDS)
                .rejectionEvents(true)
                .build()) {
            ScheduledFuture<String> ran = timers.schedule(() -> "ran", 1, TimeUnit.MILLISECONDS);
            ScheduledFuture<?> cancelled = timers.schedule(() -> { }, 1, TimeUnit.HOURS);
            cancelled.cancel(false);
            String result = ran.get(10, TimeUnit.SECONDS);
            SchedulerMetrics metrics = timers.metrics();
            LatencyDistribution lateness = metrics.lateness();
            System.out.println("executor: " + result + ", cancelled " + metrics.cancelled()
                    + ", late n=" + lateness.totalCount());
        }
    }
}
