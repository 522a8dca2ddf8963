package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.testing.NullPointerTester;
import io.github.timingwheel.core.ManualTimeSource;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link TimeoutGroup}: a Netty {@code Timer} per connection over one {@link WheelTimer}. */
class TimeoutGroupTest {

    private final ManualTimeSource clock = new ManualTimeSource(Long.MIN_VALUE);
    private final List<WheelTimer> timers = new CopyOnWriteArrayList<>();

    private WheelTimer timer(int workers, long maxPendingTimeouts) {
        // No tolerance: the manual clock's markers are due now, and a tolerant timer takes a
        // task only once it has been due a quarter of the tolerance (ToleranceTest).
        WheelTimer timer = WheelTimer.builder().workers(workers).daemon(true).timeSource(clock)
                .tolerance(0, MILLISECONDS).maxPendingTimeouts(maxPendingTimeouts).build();
        timers.add(timer);
        return timer;
    }

    private static ManualClockWorkers workers(WheelTimer timer, ManualTimeSource clock) {
        return new ManualClockWorkers(clock, timer.engine());
    }

    @AfterEach
    void stopTimers() {
        timers.forEach(WheelTimer::stop);
    }

    /** A task that records that it ran, or that it was cancelled and on which thread. */
    private static final class Recording implements TimerTask {
        final AtomicInteger runs = new AtomicInteger();
        final AtomicReference<Thread> cancelledOn = new AtomicReference<>();

        @Override
        public void run(Timeout timeout) {
            runs.incrementAndGet();
        }

        @Override
        public void cancelled(Timeout timeout) {
            cancelledOn.set(Thread.currentThread());
        }
    }

    @Test
    void stop_cancelsThePendingTimeoutsOfThisGroupOnly_andReturnsThem() throws Exception {
        WheelTimer timer = timer(1, 0);
        ManualClockWorkers workers = workers(timer, clock);
        TimeoutGroup connection = timer.newGroup();
        TimeoutGroup other = timer.newGroup();
        Recording fired = new Recording();
        Recording read = new Recording();
        Recording idle = new Recording();
        Recording others = new Recording();
        Recording alive = new Recording();
        Timeout firedTimeout = connection.newTimeout(fired, 1, SECONDS);
        Timeout readTimeout = connection.newTimeout(read, 10, SECONDS);
        Timeout idleTimeout = connection.newTimeout(idle, 1, HOURS);
        RearmableTimeout keepAlive = connection.newRearmableTimeout(alive, 1, HOURS);
        Timeout otherTimeout = other.newTimeout(others, 10, SECONDS);
        Timeout ungrouped = timer.newTimeout(others, 10, SECONDS);
        assertThat(connection.pendingTimeouts()).isEqualTo(4);
        assertThat(connection.isStopped()).as("before stop").isFalse();
        workers.advance(1, SECONDS);
        assertThat(firedTimeout.isExpired()).isTrue();
        assertThat(connection.pendingTimeouts()).as("the expired timeout left the group").isEqualTo(3);

        Set<Timeout> cancelled = connection.stop();

        // A re-armable timeout too, as the handle it was created as (mutants: one that answers
        // null, or reports no cancel).
        assertThat(cancelled).containsExactlyInAnyOrder(readTimeout, idleTimeout, keepAlive);
        assertThat(keepAlive.isCancelled()).isTrue();
        assertThat(readTimeout.isCancelled()).isTrue();
        assertThat(read.cancelledOn.get()).isSameAs(Thread.currentThread());
        assertThat(idle.cancelledOn.get()).isSameAs(Thread.currentThread());
        assertThat(connection.pendingTimeouts()).isZero();
        assertThat(connection.isStopped()).isTrue();
        assertThat(connection.stop()).isEmpty();
        assertThatThrownBy(() -> connection.newTimeout(read, 1, SECONDS))
                .isInstanceOf(IllegalStateException.class);

        assertThat(otherTimeout.isCancelled()).isFalse();
        assertThat(other.pendingTimeouts()).isEqualTo(1);
        workers.advance(10, SECONDS);
        assertThat(otherTimeout.isExpired()).isTrue();
        assertThat(ungrouped.isExpired()).isTrue();
        assertThat(others.runs.get()).isEqualTo(2);
        assertThat(read.runs.get() + idle.runs.get()).isZero();
        assertThat(other.pendingTimeouts()).isZero();
        assertThat(timer.pendingTimeouts()).as("the timer holds nothing the closed group left").isZero();
    }

    @Test
    void timeoutsOfAGroup_rearmThroughTimeoutTimer_andStopFromATimerTask() throws Exception {
        WheelTimer timer = timer(1, 0);
        ManualClockWorkers workers = workers(timer, clock);
        TimeoutGroup group = timer.newGroup();
        AtomicReference<Timeout> rearmed = new AtomicReference<>();
        AtomicReference<Set<Timeout>> stoppedFromTask = new AtomicReference<>();
        Timeout first = group.newTimeout(timeout -> rearmed.set(timeout.timer().newTimeout(t -> { }, 1, HOURS)),
                1, SECONDS);
        group.newTimeout(timeout -> stoppedFromTask.set(timeout.timer().stop()), 2, SECONDS);

        assertThat(first.timer()).isSameAs(group);
        workers.advance(1, SECONDS);
        assertThat(group.pendingTimeouts()).as("the re-armed one and the stopper").isEqualTo(2);
        workers.advance(1, SECONDS);

        assertThat(stoppedFromTask.get()).containsExactly(rearmed.get());
        assertThat(rearmed.get().isCancelled()).isTrue();
        assertThat(group.pendingTimeouts()).isZero();
    }

    @Test
    void badInput_andTheTimersOwnStop() {
        WheelTimer timer = timer(1, 0);
        TimeoutGroup group = timer.newGroup();
        assertThatThrownBy(() -> group.newTimeout(null, 1, SECONDS))
                .isInstanceOf(NullPointerException.class).hasMessage("task");
        assertThatThrownBy(() -> group.newTimeout(t -> { }, 1, null))
                .isInstanceOf(NullPointerException.class).hasMessage("unit");
        new NullPointerTester().setDefault(TimeUnit.class, HOURS).testAllPublicInstanceMethods(group);
        Timeout pending = group.newTimeout(t -> { }, 1, HOURS);

        Set<Timeout> unprocessed = timer.stop();

        assertThat(unprocessed).containsExactly(pending);
        assertThat(group.pendingTimeouts()).as("cancelled by the timer's stop, it left the group").isZero();
        assertThatThrownBy(() -> group.newTimeout(t -> { }, 1, SECONDS))
                .isInstanceOf(IllegalStateException.class);
        assertThat(group.pendingTimeouts()).isZero();
    }

    @Test
    void maxPendingTimeouts_countsGroupTimeouts_andStopGivesThePlacesBack() {
        WheelTimer timer = timer(1, 2);
        TimeoutGroup group = timer.newGroup();
        group.newTimeout(t -> { }, 1, HOURS);
        group.newTimeout(t -> { }, 1, HOURS);
        assertThatThrownBy(() -> group.newTimeout(t -> { }, 1, HOURS))
                .isInstanceOf(RejectedExecutionException.class);
        assertThat(group.pendingTimeouts()).isEqualTo(2);

        group.stop();

        assertThat(timer.pendingTimeouts()).isZero();
        TimeoutGroup next = timer.newGroup();
        next.newTimeout(t -> { }, 1, HOURS);
        next.newTimeout(t -> { }, 1, HOURS);
        assertThat(next.pendingTimeouts()).isEqualTo(2);
    }

    /**
     * A serial group's timeouts that fire give their places under maxPendingTimeouts back, as
     * other timeouts do. Mutant: the serial drain firing a timeout without giving its place back
     * (the timer then refused every timeout once two had fired).
     */
    @Test
    void maxPendingTimeouts_serialGroupTimeoutsThatFire_giveThePlacesBack() throws Exception {
        WheelTimer timer = timer(1, 2);
        TimeoutGroup group = timer.newSerialGroup();
        CountDownLatch fired = new CountDownLatch(2);
        group.newTimeout(t -> fired.countDown(), 1, MILLISECONDS);
        group.newTimeout(t -> fired.countDown(), 1, MILLISECONDS);

        workers(timer, clock).advance(1, MILLISECONDS);
        await(fired);
        awaitCondition("both runs ended", () -> timer.pendingTimeouts() == 0);

        group.newTimeout(t -> { }, 1, HOURS);
        timer.newTimeout(t -> { }, 1, HOURS);
        assertThat(timer.pendingTimeouts()).isEqualTo(2);
    }

    /** A serial group's timeouts, due together on two workers: one at a time, in order. */
    @Test
    void serialGroup_firesOneAtATime_inDeadlineThenSubmissionOrder() throws Exception {
        WheelTimer timer = timer(2, 0);
        TimeoutGroup group = timer.newSerialGroup();
        long seed = System.nanoTime();
        Random random = new Random(seed);
        int count = 500;
        long[] delays = new long[count];
        List<Integer> order = new CopyOnWriteArrayList<>();
        AtomicInteger active = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(count);
        for (int id = 0; id < count; id++) {
            int me = id;
            delays[id] = random.nextInt(3) * 10L;
            group.newTimeout(timeout -> {
                if (active.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                order.add(me);
                Thread.yield();
                active.decrementAndGet();
                done.countDown();
            }, delays[id], MILLISECONDS);
        }

        workers(timer, clock).advance(1, SECONDS);
        await(done);

        List<Integer> expected = new ArrayList<>();
        for (int id = 0; id < count; id++) {
            expected.add(id);
        }
        expected.sort(Comparator.comparingLong((Integer id) -> delays[id]).thenComparing(id -> id));
        assertThat(order).as("seed %d", seed).containsExactlyElementsOf(expected);
        assertThat(overlaps.get()).isZero();
        awaitCondition("every timeout left the group", () -> group.pendingTimeouts() == 0);
    }
}
