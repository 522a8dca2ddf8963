package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitInTask;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.observeFor;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link WheelTimer} under the contract, plus what only it does. */
class WheelTimerContractTest extends TimerContractTest {

    @Override
    Timer newTimer(long maxPendingTimeouts) {
        return WheelTimer.builder().maxPendingTimeouts(maxPendingTimeouts).build();
    }

    @Override
    long pendingTimeouts(Timer timer) {
        return ((WheelTimer) timer).pendingTimeouts();
    }

    /** Timeouts fire at their exact deadline; a tick of slack costs nothing to allow. */
    @Override
    long lateByDesignNanos() {
        return MILLISECONDS.toNanos(1L);
    }

    /** One worker by default, which takes due timeouts earliest deadline first. */
    @Override
    boolean firesInDeadlineOrder() {
        return true;
    }

    @Override
    String loggerName() {
        return WheelTimer.class.getName();
    }

    // ---------------------------------------------------------------------------------------
    // Several workers.

    /**
     * The first task blocks its worker until the second has run: with one worker this would
     * wait out the 10 s bound and fail; with two, the second worker runs it. Both workers refuse
     * stop() from a task, and stop() from the test ends both.
     */
    @Test
    void severalWorkers_runTimeoutsInParallel_refuseStopFromTasks_andAllEndOnStop() throws Exception {
        WheelTimer timer = track(WheelTimer.builder().workers(2).build());
        Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
        List<Throwable> stopFailures = new CopyOnWriteArrayList<>();
        CountDownLatch secondRan = new CountDownLatch(1);
        CountDownLatch bothDone = new CountDownLatch(2);

        timer.newTimeout(timeout -> {
            ranOn.add(Thread.currentThread());
            awaitInTask(secondRan);
            stopFailures.add(stopFromTask(timeout));
            bothDone.countDown();
        }, 1L, MILLISECONDS);
        timer.newTimeout(timeout -> {
            ranOn.add(Thread.currentThread());
            stopFailures.add(stopFromTask(timeout));
            secondRan.countDown();
            bothDone.countDown();
        }, 20L, MILLISECONDS);
        await(bothDone);

        assertThat(ranOn).hasSize(2);
        assertThat(stopFailures).hasSize(2).allMatch(e -> e instanceof IllegalStateException);
        assertThat(timer.stop()).isEmpty();
        for (Thread worker : ranOn) {
            worker.join(SECONDS.toMillis(TIMEOUT_SECONDS));
            assertThat(worker.isAlive()).as("%s alive after stop", worker).isFalse();
        }
    }

    private static Throwable stopFromTask(Timeout timeout) {
        try {
            timeout.timer().stop();
            return null;
        } catch (Throwable e) {
            return e;
        }
    }

    /**
     * Counts the fires of each timeout; the latch waits for every first fire, and stop() (which
     * returns once the workers have ended) lets any second fire in progress finish before the
     * counts are read. Shown to catch a WheelTimeout.run that fires one timeout in 64 twice.
     */
    @Test
    void severalWorkers_manyTimeouts_eachFiresOnceAndNeverEarly() throws Exception {
        WheelTimer timer = track(WheelTimer.builder().workers(2).build());
        int count = 500;
        long seed = System.nanoTime();
        Random random = new Random(seed);
        long[] delays = new long[count];
        long[] befores = new long[count];
        AtomicLongArray firstFiredAt = new AtomicLongArray(count);
        AtomicIntegerArray fires = new AtomicIntegerArray(count);
        CountDownLatch firstFires = new CountDownLatch(count);

        for (int i = 0; i < count; i++) {
            int id = i;
            delays[i] = MILLISECONDS.toNanos(random.nextInt(100));
            befores[i] = System.nanoTime();
            timer.newTimeout(timeout -> {
                long now = System.nanoTime();
                if (fires.incrementAndGet(id) == 1) {
                    firstFiredAt.set(id, now);
                    firstFires.countDown();
                }
            }, delays[i], NANOSECONDS);
        }
        await(firstFires);
        assertThat(timer.pendingTimeouts()).isZero();
        assertThat(timer.stop()).as("timeouts left at stop").isEmpty();

        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (fires.get(i) != 1) {
                wrong.add("timeout " + i + " fired " + fires.get(i) + " times");
            }
        }
        assertThat(wrong).as("seed %d", seed).isEmpty();
        for (int i = 0; i < count; i++) {
            assertFiredOnTime("timeout " + i + ", seed " + seed, befores[i], firstFiredAt.get(i), delays[i]);
        }
    }

    /**
     * stop() racing a thread that schedules until it is refused: every timeout newTimeout
     * returned is in stop()'s set, cancelled; none is left pending forever. (HashedWheelTimer
     * can lose one here: a timeout queued just after its worker drained the queue for the last
     * time is neither returned nor ever run; about once in 200 rounds on a 2-core machine.)
     * The producer stops at a cap, so that a descheduled test thread cannot make it fill the
     * heap; a round in which it got there first is simply not a race.
     */
    @Test
    void stop_racingNewTimeout_returnsEveryAcceptedTimeout() throws Exception {
        int cap = 20_000;
        TimerTask noop = timeout -> { };
        for (int round = 0; round < 30; round++) {
            Timer timer = timer();
            timer.newTimeout(noop, 1L, MINUTES); // the worker runs
            List<Timeout> accepted = new ArrayList<>();
            AtomicReference<Throwable> refusal = new AtomicReference<>();
            CountDownLatch producing = new CountDownLatch(1);
            Thread producer = new Thread(() -> {
                try {
                    while (accepted.size() < cap) {
                        accepted.add(timer.newTimeout(noop, 1L, MINUTES));
                        producing.countDown();
                    }
                } catch (Throwable e) {
                    refusal.set(e);
                }
            }, "wheel-timer-test-producer");
            producer.start();
            await(producing);

            Set<Timeout> unprocessed = timer.stop();
            producer.join(SECONDS.toMillis(TIMEOUT_SECONDS));

            assertThat(producer.isAlive()).isFalse();
            if (accepted.size() < cap) {
                assertThat(refusal.get()).as("round %d", round).isInstanceOf(IllegalStateException.class);
            }
            // Set.containsAll, a hash lookup per element; AssertJ's containsAll compares pairwise.
            assertThat(unprocessed.containsAll(accepted)).as("round %d: every accepted timeout returned", round)
                    .isTrue();
            assertThat(unprocessed).as("round %d", round).hasSize(accepted.size() + 1);
            assertThat(accepted).allMatch(Timeout::isCancelled);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Exact deadlines.

    /**
     * With a 50 ms tick, a 7 ms timeout still fires at its deadline, not at a tick boundary.
     * Each attempt starts right after the previous one fired: a timer that fires only on tick
     * boundaries would then be about a whole tick late every time. The best of five attempts
     * must be far below the tick, so that one descheduled moment cannot fail the test.
     */
    @Test
    void coarseTick_timeoutFiresAtItsDeadline_notAtTheNextTick() throws Exception {
        WheelTimer timer = track(WheelTimer.builder().tick(50L, MILLISECONDS).build());
        long delay = MILLISECONDS.toNanos(7L);
        long best = Long.MAX_VALUE;
        List<Long> elapsed = new ArrayList<>();

        for (int attempt = 0; attempt < 5; attempt++) {
            Probe task = new Probe();
            long before = System.nanoTime();
            timer.newTimeout(task, delay, NANOSECONDS);
            await(task.ran);
            long took = task.ranAt - before;
            assertFiredOnTime("attempt " + attempt, before, task.ranAt, delay);
            elapsed.add(took);
            best = Math.min(best, took);
        }

        assertThat(best).as("best of %s ns", elapsed).isLessThan(MILLISECONDS.toNanos(25L));
    }

    // ---------------------------------------------------------------------------------------
    // Cancelled timeouts are released at once.

    @ParameterizedTest(name = "maxPendingTimeouts {0}")
    @ValueSource(longs = {0L, 100_000L})
    void cancelledTimeouts_areReleasedAtOnce(long maxPendingTimeouts) throws Exception {
        WheelTimer timer = track(WheelTimer.builder().maxPendingTimeouts(maxPendingTimeouts).build());
        int count = 100_000;
        Random random = new Random(count);
        List<Timeout> timeouts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            // From 1 ms to about 12 days: every level of the default wheel.
            timeouts.add(timer.newTimeout(new Probe(), 1L + random.nextInt(1 << 30), MILLISECONDS));
        }
        assertThat(timer.pendingTimeouts()).isEqualTo(count);
        if (maxPendingTimeouts > 0) {
            assertThatThrownBy(() -> timer.newTimeout(new Probe(), 1L, MINUTES))
                    .isInstanceOf(RejectedExecutionException.class);
        }
        List<WeakReference<Timeout>> sample = new ArrayList<>();
        for (int i = 0; i < count; i += count / 10) {
            sample.add(new WeakReference<>(timeouts.get(i)));
        }

        int cancelled = 0;
        for (Timeout timeout : timeouts) {
            cancelled += timeout.cancel() ? 1 : 0;
        }
        timeouts.clear();

        assertThat(cancelled).isEqualTo(count);
        assertThat(timer.pendingTimeouts()).isZero();
        assertThat(timer.engine().getQueue()).isEmpty();
        awaitCondition("cancelled timeouts collected", () -> {
            System.gc();
            return sample.stream().allMatch(ref -> ref.get() == null);
        });
        Probe accepted = new Probe();
        timer.newTimeout(accepted, 1L, MILLISECONDS);
        await(accepted.ran);
    }

    // ---------------------------------------------------------------------------------------
    // Idle: nothing ticks.

    /**
     * An idle timer's worker parks untimed: over 300 ms it wakes up zero times and uses next to
     * no CPU, with a 1 ms tick. A ticking timer would wake 300 times. With a timeout an hour
     * away it parks until the wheel's next event, which is not within the window either, save
     * for at most one cascade.
     */
    @ParameterizedTest(name = "pending timeout an hour away: {0}")
    @ValueSource(booleans = {false, true})
    void idleTimer_doesNotTick(boolean farTimeoutPending) throws Exception {
        WheelTimer timer = track(WheelTimer.builder().build());
        Probe first = new Probe();
        timer.newTimeout(first, 0L, MILLISECONDS);
        await(first.ran);
        Thread worker = first.ranOn;
        if (farTimeoutPending) {
            timer.newTimeout(new Probe(), 1L, HOURS);
        }
        Thread.State parked = farTimeoutPending ? Thread.State.TIMED_WAITING : Thread.State.WAITING;
        awaitCondition("worker parked as the leader", () -> worker.getState() == parked
                && LockSupport.getBlocker(worker) == timer.engine().queue());
        WheelWorkQueue queue = timer.engine().queue();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long wakeUpsBefore = queue.leaderWakeUps();
        long cpuBefore = threadCpuNanos(threads, worker);

        observeFor(300L, MILLISECONDS);

        long wakeUps = queue.leaderWakeUps() - wakeUpsBefore;
        long cpu = threadCpuNanos(threads, worker) - cpuBefore;
        assertThat(wakeUps).as("leader wake-ups while idle").isLessThanOrEqualTo(farTimeoutPending ? 1L : 0L);
        if (cpuBefore >= 0L) {
            assertThat(cpu).as("worker CPU ns while idle").isLessThan(MILLISECONDS.toNanos(20L));
        }
    }

    /** The thread's CPU time, or -1 where the JVM does not measure it. */
    private static long threadCpuNanos(ThreadMXBean threads, Thread thread) {
        if (!threads.isThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) {
            return -1L;
        }
        return threads.getThreadCpuTime(thread.getId());
    }

    // ---------------------------------------------------------------------------------------
    // Differences from HashedWheelTimer, from our side.

    /** Ours calls cancelled() for each timeout stop() cancels, on the stopping thread. */
    @Test
    void stop_callsCancelledForTheTimeoutsItCancels_onTheStoppingThread() throws Exception {
        assumeTrue(NETTY_HAS_CANCELLED, "TimerTask.cancelled exists (Netty 4.2)");
        Timer timer = timer();
        AtomicReference<Thread> cancelledOn = new AtomicReference<>();
        Probe task = new Probe() {
            @Override
            public void cancelled(Timeout timeout) {
                cancelledOn.set(Thread.currentThread());
                super.cancelled(timeout);
            }
        };
        Timeout timeout = timer.newTimeout(task, 1L, MINUTES);

        assertThat(timer.stop()).containsExactly(timeout);

        assertThat(task.cancellations).hasValue(1);
        assertThat(cancelledOn.get()).isSameAs(Thread.currentThread());
    }

    /** Ours calls cancelled() on the cancelling thread, before cancel() returns. */
    @Test
    void cancel_callsCancelledOnTheCancellingThread() {
        assumeTrue(NETTY_HAS_CANCELLED, "TimerTask.cancelled exists (Netty 4.2)");
        Timer timer = timer();
        AtomicReference<Thread> cancelledOn = new AtomicReference<>();
        Probe task = new Probe() {
            @Override
            public void cancelled(Timeout timeout) {
                cancelledOn.set(Thread.currentThread());
                super.cancelled(timeout);
            }
        };
        Timeout timeout = timer.newTimeout(task, 1L, MINUTES);

        assertThat(timeout.cancel()).isTrue();

        assertThat(task.cancellations).hasValue(1);
        assertThat(cancelledOn.get()).isSameAs(Thread.currentThread());
        assertThat(timer.stop()).isEmpty();
    }

    @Test
    void taskExecutor_runsTheBodies() throws Exception {
        Set<Thread> executorThreads = ConcurrentHashMap.newKeySet();
        ExecutorService bodies = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "wheel-timer-test-body");
            thread.setDaemon(true);
            executorThreads.add(thread);
            return thread;
        });
        try {
            WheelTimer timer = track(WheelTimer.builder().taskExecutor(bodies).build());
            Probe task = new Probe();
            timer.newTimeout(task, 1L, MILLISECONDS);
            await(task.ran);

            assertThat(executorThreads).containsExactly(task.ranOn);
        } finally {
            bodies.shutdownNow();
        }
        awaitTermination(bodies);
    }
}
