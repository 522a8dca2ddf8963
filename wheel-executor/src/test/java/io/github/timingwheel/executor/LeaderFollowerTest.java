package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.get;
import static io.github.timingwheel.executor.ExecutorTesting.observeFor;
import static io.github.timingwheel.executor.ExecutorTesting.shutDownAll;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.TimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The leader/follower protocol of {@link WheelWorkQueue} on real threads: no lost wake-up when a
 * new earliest task arrives while the leader parks on a later one, no task taken twice, and no
 * wake-ups while nothing is due. The properties run with 2 and 4 workers; the wake-up and
 * exactly-once checks with one wheel and with eight
 * {@linkplain WheelScheduledExecutor.Builder#shards shards}.
 *
 * <p>A lost wake-up here does not hang: the leader would sleep until its next event, seconds
 * away, and the bounded {@code get} fails first.
 */
class LeaderFollowerTest {

    /**
     * The far task the leader parks on. Its first wheel event, the cascade at the start of its
     * level-2 slot (4096 ticks wide by default), is more than 5.9 s away.
     */
    private static final long FAR_SECONDS = 10L;
    /** How long a near task may take before we call its wake-up lost: far below FAR_SECONDS. */
    private static final long NEAR_BOUND_SECONDS = 5L;

    /**
     * How long the workers must wait untimed, with no wake-up, before the pool counts as idle:
     * a tenth of the idle observation that follows, so that a wake-up every 50 to 500 ms while
     * idle still shows, in the observation if not here (here it would keep the pool from
     * counting as quiet until the bound).
     */
    private static final long QUIET_MILLIS = 50L;

    private static final String WORKER_PREFIX = "leader-follower-test-";

    private final List<WheelScheduledExecutor> executors = new CopyOnWriteArrayList<>();

    /** A started executor and its worker threads. */
    private record Pool(WheelScheduledExecutor executor, List<Thread> workers) {

        WheelWorkQueue queue() {
            return executor.queue();
        }

        /** Whether some worker is the leader parked with a timeout, inside the queue's take. */
        boolean leaderParkedTimed() {
            return workers.stream().anyMatch(t -> t.getState() == Thread.State.TIMED_WAITING
                    && LockSupport.getBlocker(t) == queue());
        }

        /** Whether every worker waits untimed: the leader parked, the followers on the condition. */
        boolean allWaitingUntimed() {
            return workers.size() == executor.getCorePoolSize()
                    && workers.stream().allMatch(t -> t.getState() == Thread.State.WAITING);
        }
    }

    private Pool pool(int workers, int shards) {
        return pool(workers, shards, TimeSource.system());
    }

    private Pool pool(int workers, int shards, TimeSource clock) {
        List<Thread> threads = new CopyOnWriteArrayList<>();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, WORKER_PREFIX + threads.size());
            thread.setDaemon(true);
            threads.add(thread);
            return thread;
        };
        // Witnessing wraps only bodies that carry a CancelWitness; every other task is as built.
        WheelScheduledExecutor executor = new CancelWitness.WitnessingExecutor(WheelScheduledExecutor.builder()
                .workers(workers)
                .shards(shards)
                .threadFactory(factory)
                .timeSource(clock));
        executors.add(executor);
        executor.prestartAllCoreThreads();
        return new Pool(executor, threads);
    }

    @AfterEach
    void shutDown() throws InterruptedException {
        shutDownAll(executors);
    }

    static Stream<Arguments> configurations() {
        return Stream.of(
                Arguments.of(2, 1),
                Arguments.of(4, 1),
                Arguments.of(2, 8),
                Arguments.of(4, 8));
    }

    // ---------------------------------------------------------------------------------------
    // No lost wake-up.

    @ParameterizedTest(name = "{0} workers, {1} shards")
    @MethodSource("configurations")
    void aNewEarliestTask_wakesTheLeaderParkedOnALaterOne(int workers, int shards)
            throws Exception {
        Pool pool = pool(workers, shards);
        ScheduledFuture<?> far = pool.executor().schedule(() -> { }, FAR_SECONDS, SECONDS);

        for (int round = 0; round < 3; round++) {
            awaitCondition("a leader parks on the far task", pool::leaderParkedTimed);
            long before = System.nanoTime();
            ScheduledFuture<Long> near = pool.executor().schedule(System::nanoTime, 20L, MILLISECONDS);

            long startedAt = near.get(NEAR_BOUND_SECONDS, SECONDS);

            assertThat(startedAt - before).as("round %d", round)
                    .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(20L))
                    .isLessThan(SECONDS.toNanos(NEAR_BOUND_SECONDS));
        }
        assertThat(far.isDone()).isFalse();
    }

    /**
     * Near tasks in quick succession from two producers, without waiting for the leader to park:
     * each schedule races with a leader that is computing its park time, publishing it, or parking.
     */
    @ParameterizedTest(name = "{0} workers, {1} shards")
    @MethodSource("configurations")
    void nearTasksRacingWithTheLeaderPark_areNeverLeftForTheFarDeadline(int workers, int shards)
            throws Exception {
        Pool pool = pool(workers, shards);
        pool.executor().schedule(() -> { }, FAR_SECONDS, SECONDS);
        int producers = 2;
        int rounds = 100;
        long seed = System.nanoTime();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(producers);

        for (int p = 0; p < producers; p++) {
            Random random = new Random(seed + p);
            Thread producer = new Thread(() -> {
                try {
                    for (int i = 0; i < rounds; i++) {
                        long delayNanos = random.nextInt(2_000_000);
                        pool.executor().schedule(() -> { }, delayNanos, NANOSECONDS)
                                .get(NEAR_BOUND_SECONDS, SECONDS);
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    done.countDown();
                }
            }, "near-producer-" + p);
            producer.start();
        }
        await(done);

        assertThat(failure.get()).as("seed %d", seed).isNull();
    }

    /**
     * System time, read after a random pause of up to 50 us on worker threads in half the calls.
     * The leader reads the clock between its last drain of the inbox and publishing its park
     * deadline, so the pause widens exactly the window in which a producer's task can miss the
     * leader ([4] in WheelWorkQueue); the readings are still real and monotonic.
     */
    static final TimeSource PAUSING_ON_WORKERS = () -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (Thread.currentThread().getName().startsWith(WORKER_PREFIX) && random.nextBoolean()) {
            LockSupport.parkNanos(random.nextInt(50_000));
        }
        return System.nanoTime();
    };

    /**
     * Ping-pong with a single free worker: the producer schedules a due task the moment the
     * previous one completes, which is when that worker goes back to lead. No other worker comes
     * by to drain the inbox (the second one is busy), so a task that slipped in between the
     * leader's last look and its park would wait for the far task's cascade, seconds away.
     */
    @ParameterizedTest(name = "{0} shards")
    @ValueSource(ints = {1, 8})
    void aTaskArrivingWhileTheLeaderPreparesToPark_stillWakesIt(int shards) throws Exception {
        Pool pool = pool(2, shards, PAUSING_ON_WORKERS);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch busy = new CountDownLatch(1);
        pool.executor().execute(() -> {
            busy.countDown();
            ExecutorTesting.awaitInTask(release);
        });
        await(busy);
        pool.executor().schedule(() -> { }, FAR_SECONDS, SECONDS);

        try {
            for (int round = 0; round < 3_000; round++) {
                pool.executor().schedule(() -> { }, 0L, NANOSECONDS).get(NEAR_BOUND_SECONDS, SECONDS);
            }
        } finally {
            release.countDown();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Exactly once.

    @ParameterizedTest(name = "{0} workers, {1} shards")
    @MethodSource("configurations")
    void everyTaskRunsExactlyOnce_underConcurrentProducersAndCancels(int workers, int shards)
            throws Exception {
        Pool pool = pool(workers, shards);
        int producers = 4;
        int perProducer = 2_500;
        int tasks = producers * perProducer;
        AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
        AtomicIntegerArray cancelled = new AtomicIntegerArray(tasks);
        AtomicIntegerArray startsAfterCancel = new AtomicIntegerArray(tasks);
        AtomicReferenceArray<ScheduledFuture<?>> futures = new AtomicReferenceArray<>(tasks);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(producers);
        long seed = System.nanoTime();

        for (int p = 0; p < producers; p++) {
            int first = p * perProducer;
            Random random = new Random(seed + p);
            new Thread(() -> {
                try {
                    start.await();
                    for (int id = first; id < first + perProducer; id++) {
                        int task = id;
                        long delayNanos = random.nextInt(4) == 0 ? 0L : random.nextInt(3_000_000);
                        CancelWitness witness = new CancelWitness();
                        ScheduledFuture<?> future = pool.executor().schedule(CancelWitness.body(witness, () -> {
                            if (witness.bodyStartsAfterCancel()) {
                                startsAfterCancel.incrementAndGet(task);
                            }
                            runs.incrementAndGet(task);
                        }), delayNanos, NANOSECONDS);
                        futures.set(id, future);
                        // Every fifth is cancelled at once, racing with its own run when due now.
                        if (id % 5 == 0 && future.cancel(false)) {
                            cancelled.set(id, future.isCancelled() ? 1 : 2);
                            witness.cancelReturnedTrue();
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    done.countDown();
                }
            }, "producer-" + p).start();
        }
        start.countDown();
        await(done);
        assertThat(failure.get()).isNull();
        for (int id = 0; id < tasks; id++) {
            if (cancelled.get(id) == 0) {
                get(futures.get(id)); // a lost wake-up with nothing later pending would hang here
            }
        }
        pool.executor().shutdown();
        awaitTermination(pool.executor());

        List<String> wrong = new ArrayList<>();
        for (int id = 0; id < tasks; id++) {
            // A successful cancel(false) of a task due now may still see its body start once, if
            // a worker had entered its run before the cancel won (FutureTask behaves the same
            // way): never twice, and never a start that the witness orders after the cancel.
            // Shown to catch a ScheduledTask.cancel that returns true without its CAS on one
            // call in 256, leaving the task to fire; and one that makes its CAS (the future says
            // cancelled) but leaves the body, the wheel and runBody to fire it anyway.
            boolean right = cancelled.get(id) == 1
                    ? runs.get(id) <= 1 && startsAfterCancel.get(id) == 0
                    : cancelled.get(id) == 0 && runs.get(id) == 1;
            if (!right) {
                wrong.add("task " + id + " ran " + runs.get(id) + " times (" + startsAfterCancel.get(id)
                        + " after cancel(false) returned true), cancel returned true: " + (cancelled.get(id) != 0)
                        + (cancelled.get(id) == 2 ? ", yet the future was not cancelled" : ""));
            }
        }
        assertThat(wrong).as("seed %d", seed).isEmpty();
        assertThat(pool.executor().getCompletedTaskCount()).isLessThanOrEqualTo(tasks);
    }

    // ---------------------------------------------------------------------------------------
    // Quiet when idle. These count wake-ups over wall-clock time, so they are tagged "timing":
    // mvn -B verify runs them in the Surefire execution that reruns a failure and reports a
    // rerun that passed as a flake. Plain tests, one per worker count: Surefire may report a
    // parameterized test as a flake when one invocation passed and another failed every rerun.

    @Test
    @Tag("timing")
    void withNothingScheduled_theLeaderNeverWakesUp_2workers() {
        withNothingScheduled_theLeaderNeverWakesUp(2);
    }

    @Test
    @Tag("timing")
    void withNothingScheduled_theLeaderNeverWakesUp_4workers() {
        withNothingScheduled_theLeaderNeverWakesUp(4);
    }

    private void withNothingScheduled_theLeaderNeverWakesUp(int workers) {
        Pool pool = pool(workers, WheelWorkQueue.defaultShardCount());
        awaitCondition("every worker waits untimed", pool::allWaitingUntimed);

        observeFor(300L, MILLISECONDS);

        assertThat(pool.queue().leaderWakeUps()).isZero();
        assertThat(pool.allWaitingUntimed()).isTrue();
    }

    /**
     * One task at +500 ms costs a handful of leader wake-ups, not one per tick (that would be
     * ~500). The bound of 8 is: 1 for the unpark by the producer (the task is the new earliest
     * event of a leader parked without timeout), at most one per level the task cascades through
     * (the default shape has 4 levels; 500 ticks place it on level 0, so in practice 1: level 0
     * to the due heap at tick 500), 1 for its exact nanosecond
     * deadline inside that tick, 1 for the stand-in woken to watch the run (WorkerRoles [2];
     * it parks again untimed, nothing else being due), and 1 spare for a spurious return from
     * parkNanos. In the runs seen it is 3: the producer's unpark, the deadline, the stand-in.
     * Afterwards the executor is idle again and the count must not move.
     */
    @Test
    @Tag("timing")
    void oneDelayedTask_costsAFewLeaderWakeUps_andNoneOnceIdleAgain_2workers() throws Exception {
        oneDelayedTask_costsAFewLeaderWakeUps_andNoneOnceIdleAgain(2);
    }

    @Test
    @Tag("timing")
    void oneDelayedTask_costsAFewLeaderWakeUps_andNoneOnceIdleAgain_4workers() throws Exception {
        oneDelayedTask_costsAFewLeaderWakeUps_andNoneOnceIdleAgain(4);
    }

    /**
     * Waits until every worker has waited untimed, with the wake-up count standing still, for
     * QUIET_MILLIS in a row, and returns that count. One look at the threads' states is not
     * enough: a worker unparked but not yet running still shows WAITING, and counts its wake-up
     * only once it runs. The stand-in, woken as the leader hands the task out so that it
     * watches the run (WorkerRoles [2]), counted its wake-up after the task's get had
     * returned in 1 run in 10 of the 4-worker case, and so during the idle observation.
     */
    private static long awaitQuiet(Pool pool) {
        long deadline = System.nanoTime() + SECONDS.toNanos(NEAR_BOUND_SECONDS);
        long count = -1L;
        long quietSince = 0L;
        for (;;) {
            boolean waiting = pool.allWaitingUntimed();
            long now = System.nanoTime();
            long wakeUps = pool.queue().leaderWakeUps();
            if (!waiting || wakeUps != count) {
                count = waiting ? wakeUps : -1L;
                quietSince = now;
            } else if (now - quietSince >= MILLISECONDS.toNanos(QUIET_MILLIS)) {
                return count;
            }
            assertThat(now - deadline).as("quiet within %d s", NEAR_BOUND_SECONDS).isNegative();
            LockSupport.parkNanos(MILLISECONDS.toNanos(1L));
        }
    }

    private void oneDelayedTask_costsAFewLeaderWakeUps_andNoneOnceIdleAgain(int workers) throws Exception {
        Pool pool = pool(workers, WheelWorkQueue.defaultShardCount());
        awaitCondition("every worker waits untimed", pool::allWaitingUntimed);
        long before = System.nanoTime();

        ScheduledFuture<?> task = pool.executor().schedule(() -> { }, 500L, MILLISECONDS);
        get(task);
        assertThat(System.nanoTime() - before).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(500L));
        long wakeUpsForTheTask = awaitQuiet(pool);

        assertThat(wakeUpsForTheTask).isBetween(1L, 8L);
        observeFor(500L, MILLISECONDS);
        assertThat(pool.queue().leaderWakeUps()).isEqualTo(wakeUpsForTheTask);
    }
}
