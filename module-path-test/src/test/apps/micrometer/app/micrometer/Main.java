package app.micrometer;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.micrometer.WheelSchedulerMetrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;

/** The Micrometer binder on the module path, without Netty. */
public final class Main {
    public static void main(String[] args) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (WheelScheduledExecutor timers = WheelScheduledExecutor.builder().workers(1).build()) {
            WheelSchedulerMetrics.monitor(registry, timers, Tags.of("service", "orders"));
            timers.schedule(() -> { }, 1, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
            double ran = registry.get("timingwheel.ran").functionCounter().count();
            System.out.println("micrometer: ran " + (long) ran);
        }
    }
}
