package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.get;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.github.timingwheel.core.ManualTimeSource;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flight recorder events, read back from a recording: a run that started late, a run that
 * took long and a refused task, each with its exact fields, measured on a manual clock; values
 * just under a threshold give no event; and a scheduler whose builder did not turn events on
 * records none while a recording runs.
 */
class FlightRecorderEventsTest {

    private static final long MS = MILLISECONDS.toNanos(1L);
    private static final String LATE = "io.github.timingwheel.TaskLate";
    private static final String RAN_LONG = "io.github.timingwheel.TaskRanLong";
    private static final String REJECTED = "io.github.timingwheel.TaskRejected";

    @TempDir
    Path directory;

    private final ManualTimeSource clock = new ManualTimeSource();
    private Recording recording;
    private WheelScheduledExecutor executor;
    private WheelTimer timer;

    @BeforeEach
    void startRecording() {
        assertThat(FlightRecorder.isAvailable())
                .as("this JVM has the JDK Flight Recorder (jdk.jfr); these tests need it").isTrue();
        recording = new Recording();
        recording.enable(LATE);
        recording.enable(RAN_LONG);
        recording.enable(REJECTED);
        recording.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        recording.close();
        if (executor != null) {
            executor.shutdownNow();
            awaitTermination(executor);
        }
        if (timer != null) {
            timer.stop();
        }
    }

    /** A task whose class names it in the events. */
    static final class LateTask implements Runnable {
        @Override
        public void run() {
        }
    }

    /** A task that moves the manual clock on while it runs, as if it worked that long. */
    static final class SlowTask implements Runnable {
        private final ManualTimeSource clock;
        private final long millis;
        private final boolean fail;

        SlowTask(ManualTimeSource clock, long millis, boolean fail) {
            this.clock = clock;
            this.millis = millis;
            this.fail = fail;
        }

        @Override
        public void run() {
            clock.advance(millis, MILLISECONDS);
            if (fail) {
                throw new IllegalStateException("planned");
            }
        }
    }

    static final class LateTimerTask implements TimerTask {
        private final CountDownLatch fired;

        LateTimerTask(CountDownLatch fired) {
            this.fired = fired;
        }

        @Override
        public void run(Timeout timeout) {
            fired.countDown();
        }
    }

    @Test
    void executorEvents_carryTheirExactFields() throws Exception {
        executor = WheelScheduledExecutor.builder().workers(1).daemon(true).timeSource(clock).name("jfr-test")
                .lateTaskEventThreshold(2, MILLISECONDS)
                .longTaskEventThreshold(5, MILLISECONDS)
                .rejectionEvents(true)
                .maxPendingTasks(3)
                .build();
        // Late: due at 10 and 12 ms, started at 13 ms: 3 ms late (an event) and 1 ms (none).
        ScheduledFuture<?> late = executor.schedule(new LateTask(), 10, MILLISECONDS);
        ScheduledFuture<?> nearlyOnTime = executor.schedule(() -> { }, 12, MILLISECONDS);
        clock.advance(13, MILLISECONDS);
        get(late);
        get(nearlyOnTime);
        // Long: runs of 7 ms (an event), 4 ms (none) and 5 ms that throws (an event, at the threshold).
        get(executor.submit(new SlowTask(clock, 7, false)));
        get(executor.submit(new SlowTask(clock, 4, false)));
        ScheduledFuture<?> failing = executor.schedule(new SlowTask(clock, 5, true), 0, MILLISECONDS);
        assertThatThrownBy(() -> get(failing)).isInstanceOf(ExecutionException.class);
        // Rejected: past the bound, then after shutdown.
        executor.schedule(() -> { }, 1, HOURS);
        executor.schedule(() -> { }, 1, HOURS);
        executor.schedule(() -> { }, 1, HOURS);
        assertThatThrownBy(() -> executor.schedule(new LateTask(), 1, MILLISECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        executor.shutdownNow();
        awaitTermination(executor);
        assertThatThrownBy(() -> executor.execute(new LateTask())).isInstanceOf(RejectedExecutionException.class);

        List<RecordedEvent> events = recorded();

        assertThat(ofType(events, LATE))
                .extracting(e -> e.getString("scheduler"), e -> e.getString("taskClass"),
                        e -> e.getDuration("lateness").toNanos(), e -> e.getDuration("threshold").toNanos())
                .containsExactly(tuple("jfr-test", LateTask.class.getName(), 3 * MS, 2 * MS));
        assertThat(ofType(events, RAN_LONG))
                .extracting(e -> e.getString("scheduler"), e -> e.getString("taskClass"),
                        e -> e.getDuration("runTime").toNanos(), e -> e.getBoolean("failed"))
                .containsExactlyInAnyOrder(
                        tuple("jfr-test", SlowTask.class.getName(), 7 * MS, false),
                        tuple("jfr-test", SlowTask.class.getName(), 5 * MS, true));
        assertThat(ofType(events, REJECTED))
                .extracting(e -> e.getString("scheduler"), e -> e.getString("taskClass"), e -> e.getString("reason"))
                .containsExactlyInAnyOrder(
                        tuple("jfr-test", LateTask.class.getName(), "maxPendingTasks"),
                        tuple("jfr-test", LateTask.class.getName(), "shutdown"));
        assertThat(ofType(events, REJECTED))
                .as("the stack says who submitted")
                .allSatisfy(e -> assertThat(e.getStackTrace()).isNotNull());
    }

    @Test
    void timerEvents_nameTheTimerTask() throws Exception {
        timer = WheelTimer.builder().daemon(true).timeSource(clock).name("jfr-timer")
                .lateTaskEventThreshold(0, MILLISECONDS)
                .rejectionEvents(true)
                .build();
        CountDownLatch fired = new CountDownLatch(1);
        timer.newTimeout(new LateTimerTask(fired), 4, MILLISECONDS);
        clock.advance(6, MILLISECONDS);
        ExecutorTesting.await(fired);
        timer.stop(); // waits for the worker, so the event is committed
        assertThatThrownBy(() -> timer.newTimeout(new LateTimerTask(fired), 1, MILLISECONDS))
                .isInstanceOf(IllegalStateException.class);

        List<RecordedEvent> events = recorded();

        assertThat(ofType(events, LATE))
                .extracting(e -> e.getString("scheduler"), e -> e.getString("taskClass"),
                        e -> e.getDuration("lateness").toNanos())
                .containsExactly(tuple("jfr-timer", LateTimerTask.class.getName(), 2 * MS));
        assertThat(ofType(events, REJECTED))
                .extracting(e -> e.getString("taskClass"), e -> e.getString("reason"))
                .containsExactly(tuple(LateTimerTask.class.getName(), "stopped"));
    }

    /**
     * Long-run events alone, from 0: every run is recorded, one of no time on the clock too,
     * and no other kind of event, even for a run that starts late. Mutants (PIT): a threshold
     * of 0 read as off; long-run events alone read as no events at all.
     */
    @Test
    void longRunEventsAlone_fromZero_recordEveryRunAndNothingElse() throws Exception {
        executor = WheelScheduledExecutor.builder().workers(1).daemon(true).timeSource(clock).name("jfr-long")
                .longTaskEventThreshold(0, MILLISECONDS)
                .build();
        aLateRunASlowRunAndARejection(3);

        List<RecordedEvent> events = recorded();

        assertThat(ofType(events, RAN_LONG))
                .extracting(e -> e.getString("scheduler"), e -> e.getString("taskClass"),
                        e -> e.getDuration("runTime").toNanos())
                .containsExactlyInAnyOrder(
                        tuple("jfr-long", LateTask.class.getName(), 0L),
                        tuple("jfr-long", SlowTask.class.getName(), 3 * MS));
        assertThat(ofType(events, LATE)).as("late-start events are off").isEmpty();
        assertThat(ofType(events, REJECTED)).as("rejection events are off").isEmpty();
    }

    @Test
    void eventsAreOffByDefault_evenWhileRecording() throws Exception {
        executor = WheelScheduledExecutor.builder().workers(1).daemon(true).timeSource(clock).name("quiet")
                .build();
        aLateRunASlowRunAndARejection(1_000);

        assertThat(recorded()).filteredOn(e -> e.getEventType().getName().startsWith("io.github.timingwheel"))
                .isEmpty();
        assertThat(executor.metrics().lateness().maxNanos()).as("the metrics saw the late run")
                .isEqualTo(999 * MS);
    }

    @Test
    void negativeThresholds_areRejectedByName() {
        assertThatThrownBy(() -> WheelScheduledExecutor.builder().lateTaskEventThreshold(-1, MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("threshold");
        assertThatThrownBy(() -> WheelTimer.builder().longTaskEventThreshold(-1, MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("threshold");
        assertThatThrownBy(() -> WheelTimer.builder().lateTaskEventThreshold(1, null))
                .isInstanceOf(NullPointerException.class).hasMessage("unit");
    }

    /**
     * On the executor: a run 999 ms late, a run of {@code slowMillis} on the clock, then a
     * task refused after shutdown; returns once the executor has terminated.
     */
    private void aLateRunASlowRunAndARejection(long slowMillis) throws Exception {
        ScheduledFuture<?> late = executor.schedule(new LateTask(), 1, MILLISECONDS);
        clock.advance(1, SECONDS);
        get(late);
        get(executor.submit(new SlowTask(clock, slowMillis, false)));
        executor.shutdown();
        assertThatThrownBy(() -> executor.execute(new LateTask())).isInstanceOf(RejectedExecutionException.class);
        awaitTermination(executor);
    }

    private List<RecordedEvent> recorded() throws Exception {
        recording.stop();
        Path file = directory.resolve("events.jfr");
        recording.dump(file);
        return RecordingFile.readAllEvents(file);
    }

    private static List<RecordedEvent> ofType(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }
}
