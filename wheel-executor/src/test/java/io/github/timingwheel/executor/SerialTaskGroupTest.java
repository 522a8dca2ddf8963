package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static io.github.timingwheel.executor.ExecutorTesting.awaitInTask;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.ExecutorTesting.get;
import static io.github.timingwheel.executor.ExecutorTesting.shutDownAll;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Serial {@link TaskGroup}s: one task of a group at a time, in deadline-then-submission order,
 * with several workers; a slow task holds up only its own group.
 */
class SerialTaskGroupTest {

    private final List<WheelScheduledExecutor> executors = new CopyOnWriteArrayList<>();

    private WheelScheduledExecutor executor(int workers, ManualTimeSource clock) {
        WheelScheduledExecutor.Builder builder = WheelScheduledExecutor.builder()
                .workers(workers)
                .daemon(true)
                .threadNamePrefix("serial-group-test-");
        if (clock != null) {
            builder.timeSource(clock);
        }
        WheelScheduledExecutor executor = new WheelScheduledExecutor(builder) {
            /**
             * Widens the window between a worker taking a task from the wheel and running it,
             * where two workers' tasks of one group could swap places if the group queued
             * them on arrival instead of at hand-out (SerialRunQueue, note [1]).
             */
            @Override
            protected void beforeExecute(Thread thread, Runnable task) {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                if (random.nextInt(4) == 0) {
                    LockSupport.parkNanos(random.nextInt(20_000));
                }
            }
        };
        executor.prestartAllCoreThreads();
        executors.add(executor);
        return executor;
    }

    @AfterEach
    void shutDown() throws InterruptedException {
        shutDownAll(executors);
    }

    /**
     * The last body counts its latch down before its task completes and leaves the group, so
     * the count reaches zero a moment after the latch.
     */
    private static void assertEmptied(TaskGroup group) {
        awaitCondition("every task left the group", () -> group.pendingTasks() == 0);
    }

    /** Records the order of runs and whether two ever overlapped. */
    private static final class RunLog {
        final List<Integer> order = new CopyOnWriteArrayList<>();
        final AtomicInteger active = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        /** Plain field: each run must see the previous run's write (happens-before). */
        int plainCount;

        Runnable task(int id, CountDownLatch done) {
            return () -> {
                if (active.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                plainCount++;
                order.add(id);
                Thread.yield(); // widen the window in which an overlap would show
                active.decrementAndGet();
                done.countDown();
            };
        }
    }

    /**
     * Many tasks at a few deadlines, submitted in random order, all due at once when the manual
     * clock jumps; several workers take them. They run one at a time, earliest deadline first
     * and in submission order within a deadline. More than a batch of them is due at once, so
     * the drain also passes itself on to fresh worker tasks on the way.
     */
    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {1, 2, 4})
    void tasksDueTogether_runOneAtATime_inDeadlineThenSubmissionOrder(int workerCount) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(-SECONDS.toNanos(3));
        WheelScheduledExecutor executor = executor(workerCount, clock);
        TaskGroup group = executor.newSerialGroup();
        TaskGroup other = executor.newGroup(); // a plain group's tasks interleave on the same workers
        long seed = System.nanoTime();
        Random random = new Random(seed);
        int count = 1_000;
        RunLog log = new RunLog();
        CountDownLatch done = new CountDownLatch(count);
        long[] delays = new long[count];
        for (int id = 0; id < count; id++) {
            delays[id] = random.nextInt(4) * 100L; // 4 deadlines, 250 tasks each on average
            group.schedule(log.task(id, done), delays[id], MILLISECONDS);
            other.schedule(() -> { }, delays[id], MILLISECONDS);
        }

        new ManualClockWorkers(clock, executor).advance(1, SECONDS);
        await(done);

        List<Integer> expected = new ArrayList<>();
        for (int id = 0; id < count; id++) {
            expected.add(id);
        }
        expected.sort(Comparator.comparingLong((Integer id) -> delays[id]).thenComparing(id -> id));
        assertThat(log.order).as("seed %d", seed).containsExactlyElementsOf(expected);
        assertThat(log.overlaps.get()).isZero();
        assertThat(log.plainCount).isEqualTo(count);
        assertEmptied(group);
    }

    /**
     * A drain that finds more than a batch queued: the first task holds the group until the
     * wheel has handed out all the others (they queue in the group), so one drain meets them
     * all and must pass itself on to fresh worker tasks; order and exclusion still hold.
     */
    @Test
    void aLongQueue_isRunInBatches_inOrder() throws Exception {
        WheelScheduledExecutor executor = executor(2, null);
        TaskGroup group = executor.newSerialGroup();
        int count = SerialRunQueue.BATCH * 5;
        RunLog log = new RunLog();
        CountDownLatch done = new CountDownLatch(count + 1);
        CountDownLatch release = new CountDownLatch(1);
        group.execute(() -> {
            awaitInTask(release);
            done.countDown();
        });
        for (int id = 0; id < count; id++) {
            group.execute(log.task(id, done));
        }
        awaitCondition("every task handed out of the wheel", () -> executor.getQueue().isEmpty());
        release.countDown();
        await(done);

        assertThat(log.order).hasSize(count).isSorted();
        assertThat(log.overlaps.get()).isZero();
        assertEmptied(group);
    }

    /**
     * Two workers. Group A's first task blocks; A's second task, due at the same time, waits for
     * it, but group B's task, due later, runs on the other worker meanwhile.
     */
    @Test
    void aSlowTask_holdsUpOnlyItsOwnGroup() throws Exception {
        WheelScheduledExecutor executor = executor(2, null);
        TaskGroup slow = executor.newSerialGroup();
        TaskGroup fast = executor.newSerialGroup();
        CountDownLatch slowStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger secondRanEarly = new AtomicInteger();
        slow.execute(() -> {
            slowStarted.countDown();
            awaitInTask(release);
        });
        ScheduledFuture<?> second = slow.schedule(() -> {
            if (release.getCount() != 0) {
                secondRanEarly.incrementAndGet();
            }
        }, 0, NANOSECONDS);
        await(slowStarted);

        ScheduledFuture<String> other = fast.schedule(() -> "ran", 1, MILLISECONDS);

        assertThat(get(other)).as("the other group's task ran while the slow one held its group").isEqualTo("ran");
        assertThat(second.isDone()).isFalse();
        release.countDown();
        get(second);
        assertThat(secondRanEarly.get()).isZero();
    }

    /** Many serial groups on real time, with tasks due close together: no overlap within a group. */
    @Test
    void manyGroups_realTime_neverOverlapWithinAGroup() throws Exception {
        WheelScheduledExecutor executor = executor(4, null);
        int groups = 8;
        int perGroup = 500;
        List<RunLog> logs = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(groups * perGroup);
        Random random = new Random(42);
        List<TaskGroup> serialGroups = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            logs.add(new RunLog());
            serialGroups.add(executor.newSerialGroup());
        }
        for (int i = 0; i < perGroup; i++) {
            for (int g = 0; g < groups; g++) {
                serialGroups.get(g).schedule(logs.get(g).task(i, done), random.nextInt(2_000), MICROSECONDS);
            }
        }
        await(done);

        for (int g = 0; g < groups; g++) {
            assertThat(logs.get(g).overlaps.get()).as("group %d", g).isZero();
            assertThat(logs.get(g).plainCount).as("group %d", g).isEqualTo(perGroup);
            assertEmptied(serialGroups.get(g));
        }
    }

    /**
     * A serial group's periodic task takes its turn with the one-shot tasks by deadline and
     * sequence (a rescheduled run keeps the sequence it was submitted with, as the JDK's
     * executor keeps its sequence number), and close ends it.
     */
    @Test
    void periodicTask_inASerialGroup_runsInTurn_andNotAfterClose() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor executor = executor(2, clock);
        ManualClockWorkers workers = new ManualClockWorkers(clock, executor);
        TaskGroup group = executor.newSerialGroup();
        List<String> order = new CopyOnWriteArrayList<>();
        group.scheduleAtFixedRate(() -> order.add("tick"), 1, 1, SECONDS);
        ScheduledFuture<?> oneShot = group.schedule(() -> order.add("one-shot"), 1, SECONDS);
        ScheduledFuture<?> later = group.schedule(() -> order.add("later"), 2, SECONDS);

        workers.advance(1, SECONDS);
        get(oneShot);
        workers.advance(1, SECONDS);
        get(later);
        awaitCondition("the second tick ran", () -> order.size() == 4);

        // At 2 s, the tick (submitted first) comes before "later": equal deadlines go in the
        // order the tasks were submitted, however often a periodic one went back into the wheel.
        assertThat(order).containsExactly("tick", "one-shot", "tick", "later");
        group.cancelAll();
        workers.advance(5, SECONDS);
        assertThat(order).hasSize(4);
        assertThat(group.awaitTermination(TIMEOUT_SECONDS, SECONDS)).isTrue();
    }

    /** close() of a serial group with tasks queued behind a running one: they never run. */
    @Test
    void cancelAll_cancelsTasksQueuedBehindARunningOne() throws Exception {
        WheelScheduledExecutor executor = executor(2, null);
        TaskGroup group = executor.newSerialGroup();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger queuedRuns = new AtomicInteger();
        group.execute(() -> {
            started.countDown();
            awaitInTask(release);
        });
        List<ScheduledFuture<?>> queued = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            queued.add(group.schedule(queuedRuns::incrementAndGet, 0, NANOSECONDS));
        }
        ScheduledFuture<?> far = group.schedule(queuedRuns::incrementAndGet, 1, HOURS);
        await(started);
        awaitCondition("the queued tasks handed out", () -> executor.getQueue().size() == 1);

        group.cancelAll();
        release.countDown();

        assertThat(group.awaitTermination(TIMEOUT_SECONDS, SECONDS)).isTrue();
        assertThat(queued).allMatch(ScheduledFuture::isCancelled);
        assertThat(far.isCancelled()).isTrue();
        assertThat(queuedRuns.get()).isZero();
    }
}
