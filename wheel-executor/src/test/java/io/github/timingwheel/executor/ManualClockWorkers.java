package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.get;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Drives an executor whose time source is a {@link ManualTimeSource}.
 *
 * <p>The leader parks in real time for the wheel time until its next event, and a producer wakes
 * it only for a task due before that; after the manual clock jumps, the parked leader would keep
 * sleeping in real time. So {@link #passDueTasks()} first offers a {@link WakeUp} due at wheel
 * time 0 (before any park deadline, so it always unparks the leader), then waits for a
 * zero-delay marker: ties go in submission order, so once the marker has been taken every task
 * due before it has been taken too, and run if there is one worker.
 */
final class ManualClockWorkers {

    private final ManualTimeSource clock;
    private final WheelScheduledExecutor executor;

    ManualClockWorkers(ManualTimeSource clock, WheelScheduledExecutor executor) {
        this.clock = clock;
        this.executor = executor;
    }

    /** Moves the clock, then lets the workers take every task due by then. */
    void advance(long amount, TimeUnit unit) throws Exception {
        clock.advance(amount, unit);
        passDueTasks();
    }

    /** Wakes the leader and waits until a marker submitted now has run. */
    void passDueTasks() throws Exception {
        executor.offerTask(new WakeUp());
        get(executor.submit(() -> { }));
    }

    /**
     * As {@link #passDueTasks()}, for an executor with a tolerance, whose workers take a task
     * only once it has been due {@code minLateNanos} (a quarter of the tolerance): the marker is
     * due that long before now, so once it has run every task due by then has been taken.
     */
    void passDueTasks(long minLateNanos) throws Exception {
        executor.offerTask(new WakeUp());
        CountDownLatch ran = new CountDownLatch(1);
        executor.offerTask(new Marker(executor.queue(), minLateNanos, ran));
        ExecutorTesting.await(ran);
    }

    /** A task due at a given wheel time that counts down a latch when it runs. */
    private static final class Marker extends WakeUp {
        private final CountDownLatch ran;

        /** Due {@code minLateNanos} before now, after the tasks submitted before it with that deadline. */
        Marker(WheelWorkQueue queue, long minLateNanos, CountDownLatch ran) {
            queue.placeAt(this, queue.wheelNow() - minLateNanos);
            this.ran = ran;
        }

        @Override
        public void run() {
            ran.countDown();
        }
    }

    /** A task due at wheel time 0 that does nothing: it only wakes the leader. */
    private static class WakeUp extends InertTask {
        WakeUp() {
            setDeadline(0L);
        }
    }
}
