package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Shutdown racing with submission: while producers submit from several threads and tasks are
 * pending and running, the executor is shut down. No task may vanish: each one submitted is
 * exactly one of
 *
 * <ul>
 *   <li><b>rejected</b>: the submission threw {@link RejectedExecutionException};
 *   <li><b>ran</b>: a one-shot task's body started (exactly once);
 *   <li><b>returned</b>: in the list {@code shutdownNow} returned, never started and not done;
 *   <li><b>cancelled</b>: accepted, then cancelled because the shutdown policy drops it
 *       (periodic tasks end this way or are returned, however often they ran).
 * </ul>
 *
 * The JDK's executor runs the same rounds as the control. Each round is bounded: 900 tasks,
 * delays of at most 30 ms.
 */
class ShutdownRaceTest {

    private static final int PRODUCERS = 3;
    private static final int TASKS_PER_PRODUCER = 300;
    private static final int ROUNDS = 8;
    /** The most a producer waits between two submissions: about 3 ms for a whole round. */
    private static final int MAX_PACE_NANOS = 20_000;

    enum Implementation {
        WHEEL((workers, threads) -> new WheelScheduledExecutor(workers, threads)),
        WHEEL_ONE_SHARD((workers, threads) -> WheelScheduledExecutor.builder()
                .workers(workers).threadFactory(threads).shards(1).build()),
        JDK(ScheduledThreadPoolExecutor::new);

        private final BiFunction<Integer, ThreadFactory, ScheduledExecutorService> factory;

        Implementation(BiFunction<Integer, ThreadFactory, ScheduledExecutorService> factory) {
            this.factory = factory;
        }

        ScheduledExecutorService create(int workers, ThreadFactory threads) {
            return factory.apply(workers, threads);
        }

        ScheduledExecutorService create(int workers, boolean dropDelayedAtShutdown) {
            ScheduledExecutorService executor = create(workers, Executors.defaultThreadFactory());
            if (dropDelayedAtShutdown) {
                if (executor instanceof WheelScheduledExecutor wheel) {
                    wheel.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
                } else {
                    ((ScheduledThreadPoolExecutor) executor)
                            .setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
                }
            }
            return executor;
        }
    }

    enum Stop {
        /** shutdown() at half-way: accepted delayed tasks still run, periodic ones are cancelled. */
        SHUTDOWN,
        /** shutdownNow() at half-way. */
        SHUTDOWN_NOW,
        /** shutdown() at half-way, shutdownNow() at three quarters. */
        SHUTDOWN_THEN_NOW,
        /** As above, with the policy that cancels delayed tasks at shutdown. */
        DROP_DELAYED_THEN_NOW
    }

    /** The fate of one submitted task. */
    enum Fate { REJECTED, RAN, RETURNED, CANCELLED, VANISHED }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Implementation.class)
    void shutdown_whileSubmitting_losesNoTask(Implementation implementation) throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            runRound(implementation, Stop.SHUTDOWN, round);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Implementation.class)
    void shutdownNow_whileSubmitting_losesNoTask(Implementation implementation) throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            runRound(implementation, Stop.SHUTDOWN_NOW, round);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Implementation.class)
    void shutdownThenShutdownNow_whileSubmitting_losesNoTask(Implementation implementation)
            throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            runRound(implementation, Stop.SHUTDOWN_THEN_NOW, round);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Implementation.class)
    void droppingDelayedTasksThenShutdownNow_whileSubmitting_losesNoTask(
            Implementation implementation) throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            runRound(implementation, Stop.DROP_DELAYED_THEN_NOW, round);
        }
    }

    private void runRound(Implementation implementation, Stop stop, int round) throws Exception {
        long seed = System.nanoTime();
        int tasks = PRODUCERS * TASKS_PER_PRODUCER;
        ScheduledExecutorService executor =
                implementation.create(2, stop == Stop.DROP_DELAYED_THEN_NOW);
        Round state = new Round(tasks);
        // The main thread stops the executor once every producer is half-way (and three quarters
        // of the way); producers pace their submissions, so that they are still submitting then.
        CountDownLatch halfway = new CountDownLatch(PRODUCERS);
        CountDownLatch threeQuarters = new CountDownLatch(PRODUCERS);
        CountDownLatch done = new CountDownLatch(PRODUCERS);
        List<Runnable> returned = new ArrayList<>();
        try {
            for (int p = 0; p < PRODUCERS; p++) {
                int first = p * TASKS_PER_PRODUCER;
                Random random = new Random(seed + p);
                new Thread(() -> {
                    try {
                        for (int i = 0; i < TASKS_PER_PRODUCER; i++) {
                            state.submit(executor, first + i, random);
                            if (i == TASKS_PER_PRODUCER / 2) {
                                halfway.countDown();
                            } else if (i == TASKS_PER_PRODUCER * 3 / 4) {
                                threeQuarters.countDown();
                            }
                            spinFor(random.nextInt(MAX_PACE_NANOS));
                        }
                    } catch (Throwable t) {
                        state.failure.compareAndSet(null, t);
                    } finally {
                        done.countDown();
                    }
                }, "shutdown-race-producer-" + p).start();
            }

            await(halfway);
            if (stop == Stop.SHUTDOWN_NOW) {
                returned.addAll(executor.shutdownNow());
            } else {
                executor.shutdown();
            }
            await(threeQuarters);
            if (stop == Stop.SHUTDOWN_THEN_NOW || stop == Stop.DROP_DELAYED_THEN_NOW) {
                returned.addAll(executor.shutdownNow());
            }
            await(done);
            awaitTermination(executor);
        } finally {
            executor.shutdownNow();
        }

        String context = implementation + " " + stop + " round " + round + " seed " + seed;
        assertThat(state.failure.get()).as(context).isNull();
        state.check(returned, context);
    }

    /** Busy-waits: a pause far shorter than a park's timer slack, and no sleep. */
    private static void spinFor(long nanos) {
        long start = System.nanoTime();
        while (System.nanoTime() - start < nanos) {
            Thread.onSpinWait();
        }
    }

    /** What one round submitted and what became of it. */
    private static final class Round {
        final int tasks;
        final AtomicReferenceArray<Future<?>> futures;
        final AtomicIntegerArray runs;
        final AtomicIntegerArray rejected;
        final AtomicIntegerArray periodic;
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        Round(int tasks) {
            this.tasks = tasks;
            this.futures = new AtomicReferenceArray<>(tasks);
            this.runs = new AtomicIntegerArray(tasks);
            this.rejected = new AtomicIntegerArray(tasks);
            this.periodic = new AtomicIntegerArray(tasks);
        }

        /** Submits task {@code id} in one of several forms, recording its future or rejection. */
        void submit(ScheduledExecutorService executor, int id, Random random) {
            boolean slow = random.nextInt(8) == 0;
            Runnable body = () -> {
                runs.incrementAndGet(id);
                if (slow) {
                    LockSupport.parkNanos(200_000L); // a running task for shutdownNow to interrupt
                }
            };
            try {
                Future<?> future = switch (random.nextInt(16)) {
                    case 0 -> {
                        periodic.set(id, 1);
                        yield executor.scheduleAtFixedRate(body, random.nextInt(2_000_000), 1_000_000L,
                                NANOSECONDS);
                    }
                    case 1, 2, 3 -> executor.submit(() -> {
                        body.run();
                        return id;
                    });
                    case 4, 5, 6, 7 -> executor.schedule(body, 0L, NANOSECONDS);
                    case 8, 9, 10, 11 -> executor.schedule(body, random.nextInt(2_000_000), NANOSECONDS);
                    default -> executor.schedule(body, 5L + random.nextInt(25), MILLISECONDS);
                };
                futures.set(id, future);
            } catch (RejectedExecutionException e) {
                rejected.set(id, 1);
            }
        }

        void check(List<Runnable> returned, String context) {
            Set<Object> returnedSet = Collections.newSetFromMap(new IdentityHashMap<>());
            returnedSet.addAll(returned);
            assertThat(returnedSet).as("%s: shutdownNow returned a task twice", context)
                    .hasSameSizeAs(returned);
            Set<Object> accepted = Collections.newSetFromMap(new IdentityHashMap<>());
            Map<Fate, Integer> counts = new java.util.EnumMap<>(Fate.class);
            List<String> problems = new ArrayList<>();
            for (int id = 0; id < tasks; id++) {
                Fate fate = fateOf(id, returnedSet, problems);
                counts.merge(fate, 1, Integer::sum);
                if (futures.get(id) != null) {
                    accepted.add(futures.get(id));
                }
            }
            assertThat(accepted).as("%s: shutdownNow returned only accepted tasks", context)
                    .containsAll(returnedSet);
            assertThat(problems).as("%s %s", context, counts).isEmpty();
            assertThat(counts.getOrDefault(Fate.VANISHED, 0)).as("%s %s", context, counts).isZero();
            assertThat(counts.values().stream().mapToInt(Integer::intValue).sum())
                    .as("%s %s", context, counts).isEqualTo(tasks);
        }

        private Fate fateOf(int id, Set<Object> returned, List<String> problems) {
            int ran = runs.get(id);
            Future<?> future = futures.get(id);
            if (rejected.get(id) == 1) {
                if (ran != 0 || future != null) {
                    problems.add("task " + id + " was rejected but ran " + ran + " times");
                }
                return Fate.REJECTED;
            }
            if (future == null) {
                problems.add("task " + id + " has neither a future nor a rejection");
                return Fate.VANISHED;
            }
            if (returned.contains(future)) {
                if (future.isDone() || (periodic.get(id) == 0 && ran != 0)) {
                    problems.add("task " + id + " was returned by shutdownNow but ran " + ran
                            + " times, done=" + future.isDone());
                }
                return Fate.RETURNED;
            }
            if (periodic.get(id) == 1) {
                return future.isCancelled() ? Fate.CANCELLED : Fate.VANISHED;
            }
            if (ran > 1) {
                problems.add("task " + id + " ran " + ran + " times");
            }
            if (ran == 1) {
                if (future.isCancelled()) {
                    problems.add("task " + id + " ran and was cancelled by the shutdown policy");
                }
                return Fate.RAN;
            }
            return future.isCancelled() ? Fate.CANCELLED : Fate.VANISHED;
        }
    }
}
