package io.github.timingwheel.executor;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;

/**
 * Waits and bounds shared by the executor tests. Every wait is bounded by {@link #TIMEOUT_SECONDS}:
 * long enough that a loaded two-core machine never trips it, short enough that a hang fails the
 * test instead of the build.
 */
final class ExecutorTesting {

    /** The bound on every wait for something that should happen. */
    static final long TIMEOUT_SECONDS = 10L;
    /** How late a task may start and still pass: generous, real-clock tests must not flake. */
    static final long LATE_SLACK_NANOS = SECONDS.toNanos(5L);

    private ExecutorTesting() {
    }

    /**
     * Starts {@code body} on a new virtual thread (JDK 21 and later, reached by reflection on
     * the JDK 17 baseline); aborts the calling test, as skipped, before JDK 21.
     */
    static Thread startVirtual(Runnable body) throws ReflectiveOperationException {
        Method ofVirtual;
        try {
            ofVirtual = Thread.class.getMethod("ofVirtual");
        } catch (NoSuchMethodException beforeJdk21) {
            Assumptions.abort("no virtual threads before JDK 21");
            throw new AssertionError("unreachable");
        }
        Object builder = ofVirtual.invoke(null);
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class)
                .invoke(builder, body);
    }

    /**
     * Runs {@code action} on a new platform thread whose home shard in {@code executor} is not
     * the calling thread's, and waits for it; threads take their first home in turn over the
     * JVM (WheelShards [1]), so of two new threads one lives elsewhere.
     *
     * @return the home shard it ran on
     */
    static int onAnotherShard(WheelScheduledExecutor executor, Runnable action) throws InterruptedException {
        int mine = executor.queue().homeShard();
        int[] home = {mine};
        for (int tries = 0; tries < 2 && home[0] == mine; tries++) {
            Thread other = new Thread(() -> {
                home[0] = executor.queue().homeShard();
                if (home[0] != mine) {
                    action.run();
                }
            });
            other.start();
            other.join();
        }
        assertThat(home[0]).as("a new thread's home shard").isNotEqualTo(mine);
        return home[0];
    }

    static long nanosSince(long startNanos) {
        return System.nanoTime() - startNanos;
    }

    static void await(CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(TIMEOUT_SECONDS, SECONDS))
                .as("latch reached zero within %d s (count left: %d)", TIMEOUT_SECONDS, latch.getCount())
                .isTrue();
    }

    /** A latch await for task bodies, which cannot throw checked exceptions. */
    static void awaitInTask(CountDownLatch latch) {
        try {
            if (!latch.await(TIMEOUT_SECONDS, SECONDS)) {
                throw new AssertionError("latch not released within " + TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    static <V> V get(Future<V> future) throws Exception {
        return future.get(TIMEOUT_SECONDS, SECONDS);
    }

    static void awaitTermination(ExecutorService executor) throws InterruptedException {
        assertThat(executor.awaitTermination(TIMEOUT_SECONDS, SECONDS))
                .as("terminated within %d s: %s", TIMEOUT_SECONDS, executor)
                .isTrue();
    }

    /** Stops every executor at once ({@code shutdownNow}), then waits for each to terminate. */
    static void shutDownAll(Iterable<? extends ExecutorService> executors) throws InterruptedException {
        for (ExecutorService executor : executors) {
            executor.shutdownNow();
        }
        for (ExecutorService executor : executors) {
            awaitTermination(executor);
        }
    }

    /**
     * Polls {@code condition} until it holds, for states no latch can report (a thread parked
     * inside the queue). Not a sleep for synchronisation: it returns as soon as the state is seen.
     */
    static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + SECONDS.toNanos(TIMEOUT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within %d s: %s", TIMEOUT_SECONDS, what);
            }
            LockSupport.parkNanos(MILLISECONDS.toNanos(1L));
        }
    }

    /** Daemon threads named {@code name}, each added to {@code made} as it is made. */
    static ThreadFactory recordingThreads(String name, List<Thread> made) {
        return body -> {
            Thread thread = new Thread(body, name);
            thread.setDaemon(true);
            made.add(thread);
            return thread;
        };
    }

    /**
     * Waits until the one worker in {@code workers} parks with a timeout: on a manual clock that
     * stands still, a worker parked for a distant deadline, which only a wake-up can cut short.
     */
    static void awaitTimedPark(List<Thread> workers) {
        awaitCondition("the worker parked until its next deadline", () -> workers.size() == 1
                && workers.get(0).getState() == Thread.State.TIMED_WAITING);
    }

    /**
     * Lets {@code nanos} of real time pass. Only for observation windows: the test checks that
     * nothing happens during it, so there is nothing a latch could wait for.
     */
    static void observeFor(long duration, TimeUnit unit) {
        long end = System.nanoTime() + unit.toNanos(duration);
        for (long left; (left = end - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }
}
