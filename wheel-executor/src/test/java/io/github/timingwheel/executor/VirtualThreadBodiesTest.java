package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.TIMEOUT_SECONDS;
import static io.github.timingwheel.executor.ExecutorTesting.await;
import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Bodies on virtual threads ({@code taskExecutor(Executors.newVirtualThreadPerTaskExecutor())},
 * JDK 21 and later; skipped before): a fixed-delay body that blocks does not hold up a
 * fixed-rate task on the one worker, whose runs keep their rate (one per period, on a manual
 * clock) and never overlap; shutdownNow() interrupts the blocked body and no run starts after.
 *
 * <p>Red (on JDK 25) before {@code BodiesElsewhere}: shutdownNow() did not interrupt a body on
 * the task executor, which blocked on after the executor terminated ("the blocked body
 * ended"). Mutant seen red: bodies on the one worker whatever {@code taskExecutor} says
 * ({@code runsBodiesOnWorkers()} true): the body is not on a virtual thread.
 */
class VirtualThreadBodiesTest {

    private static final int PERIODS = 100;

    @Test
    void blockingFixedDelayBody_doesNotHoldUpAFixedRateTask() throws Exception {
        ExecutorService virtual = newVirtualThreadPerTaskExecutor();
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true)
                .timeSource(clock).taskExecutor(virtual).build();
        ManualClockWorkers workers = new ManualClockWorkers(clock, executor);
        try {
            CountDownLatch blocking = new CountDownLatch(1);
            CountDownLatch neverReleased = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            AtomicBoolean onVirtualThread = new AtomicBoolean();
            executor.scheduleWithFixedDelay(() -> {
                onVirtualThread.set(isVirtual(Thread.currentThread()));
                blocking.countDown();
                try {
                    neverReleased.await(); // blocks until shutdownNow interrupts it
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
            }, 0, 1, MILLISECONDS);
            await(blocking);
            assertThat(onVirtualThread).isTrue();

            Semaphore runs = new Semaphore(0);
            AtomicInteger inBody = new AtomicInteger();
            AtomicBoolean overlapped = new AtomicBoolean();
            ScheduledFuture<?> fixedRate = executor.scheduleAtFixedRate(() -> {
                if (inBody.incrementAndGet() != 1) {
                    overlapped.set(true);
                }
                inBody.decrementAndGet();
                runs.release();
            }, 10, 10, MILLISECONDS);
            for (int period = 1; period <= PERIODS; period++) {
                workers.advance(10, MILLISECONDS);
                assertThat(runs.tryAcquire(TIMEOUT_SECONDS, SECONDS))
                        .as("run %d of the fixed-rate task while the fixed-delay body blocks", period).isTrue();
            }
            assertThat(runs.availablePermits()).as("one run per period, no more").isZero();
            assertThat(overlapped).as("two runs of the fixed-rate task at once").isFalse();
            assertThat(blocking.getCount()).isZero();
            assertThat(interrupted).as("the fixed-delay body still blocks").isFalse();

            assertThat(executor.shutdownNow()).as("as the JDK's: returned, not run again").contains((Runnable) fixedRate);
            awaitTermination(executor);
            virtual.shutdown();
            assertThat(virtual.awaitTermination(TIMEOUT_SECONDS, SECONDS)).as("the blocked body ended").isTrue();
            assertThat(interrupted).as("shutdownNow interrupted the body on its virtual thread").isTrue();
            assertThat(runs.availablePermits()).as("no run after shutdownNow").isZero();
        } finally {
            executor.shutdownNow();
            virtual.shutdownNow();
        }
    }

    /** The JDK 21 factory, reached by reflection on the JDK 17 baseline; skips the test before 21. */
    private static ExecutorService newVirtualThreadPerTaskExecutor() throws ReflectiveOperationException {
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (NoSuchMethodException beforeJdk21) {
            Assumptions.abort("no virtual threads before JDK 21");
            throw new AssertionError("unreachable");
        }
    }

    private static boolean isVirtual(Thread thread) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
}
