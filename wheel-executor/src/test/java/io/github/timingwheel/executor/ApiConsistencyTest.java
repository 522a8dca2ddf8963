package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.HashedWheelTimer;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The same question asked of the executor, the timer and their groups gets the same kind of
 * answer, and the JDK's or Netty's class beside ours gives it too where it has the method.
 *
 * <p>Mutants seen red: {@code TimeoutGroup.pendingTimeouts()} back to {@code int};
 * the executor's builder refusing {@code workers(0)} as the timer's does.
 */
class ApiConsistencyTest {

    /** long on the timer, its groups and Netty's HashedWheelTimer. */
    @Test
    void pendingTimeouts_isALong_everywhere() throws Exception {
        Class<?> netty = HashedWheelTimer.class.getMethod("pendingTimeouts").getReturnType();
        assertThat(netty).isEqualTo(long.class);
        assertThat(WheelTimer.class.getMethod("pendingTimeouts").getReturnType()).isEqualTo(netty);
        assertThat(TimeoutGroup.class.getMethod("pendingTimeouts").getReturnType()).isEqualTo(netty);
    }

    /** The timer and its groups both say whether they were stopped. */
    @Test
    void isStopped_onTheTimerAndItsGroups() {
        WheelTimer timer = WheelTimer.builder().daemon(true).build();
        TimeoutGroup group = timer.newGroup();
        assertThat(timer.isStopped()).isFalse();
        assertThat(group.isStopped()).isFalse();
        group.stop();
        assertThat(group.isStopped()).isTrue();
        assertThat(timer.isStopped()).as("a group's stop does not stop the timer").isFalse();
        timer.stop();
        assertThat(timer.isStopped()).isTrue();
    }

    /**
     * workers(0) is the JDK's corePoolSize 0 on the executor (a worker starts for a task), as
     * ScheduledThreadPoolExecutor(0) runs its tasks; the timer refuses it, naming the argument.
     */
    @Test
    void workersZero_executorAsTheJdks_timerRefused() throws Exception {
        ScheduledExecutorService jdk = new ScheduledThreadPoolExecutor(0);
        WheelScheduledExecutor ours = WheelScheduledExecutor.builder().workers(0).daemon(true).build();
        try {
            assertThat(get(jdk.schedule(() -> 1, 1, TimeUnit.MILLISECONDS))).isEqualTo(1);
            assertThat(get(ours.schedule(() -> 1, 1, TimeUnit.MILLISECONDS))).isEqualTo(1);
            assertThat(ours.getCorePoolSize()).isZero();
            assertThat(ours.metrics().workers()).isZero();
        } finally {
            jdk.shutdownNow();
            ours.shutdownNow();
        }
        assertThatThrownBy(() -> WheelTimer.builder().workers(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("workers");
    }
}
