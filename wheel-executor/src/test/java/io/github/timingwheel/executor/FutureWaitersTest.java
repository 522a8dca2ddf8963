package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.awaitCondition;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The threads waiting in a future's get: one that leaves by a time-out or an interrupt takes its
 * place in the list with it, wherever it stands, so that a future polled with a timed get for a
 * long time does not keep a node per poll; completion releases the rest.
 */
class FutureWaitersTest {

    private final WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1)
            .timeSource(new ManualTimeSource()).daemon(true).build();

    @AfterEach
    void shutDown() {
        executor.shutdownNow();
    }

    /** Mutant: a waiter that timed out left in the list (a hundred nodes here). */
    @Test
    void timedGetsThatTimeOut_leaveNoWaiter() {
        ScheduledTask<?> task = (ScheduledTask<?>) executor.schedule(() -> { }, 1L, HOURS);

        for (int i = 0; i < 100; i++) {
            assertThatThrownBy(() -> task.get(20L, MICROSECONDS)).isInstanceOf(TimeoutException.class);
        }

        assertThat(task.waiterCount()).isZero();
    }

    /**
     * A timed waiter between two untimed ones (its second runs out while the other three wait)
     * and an interrupted one leave; the two stay until the cancel releases them. Mutants:
     * removal that only looks at the head of the list, and an interrupted waiter left in it.
     */
    @Test
    void waitersThatLeave_fromTheMiddleOfTheList_areUnlinked_andTheRestReleasedAtTheEnd() throws Exception {
        ScheduledTask<?> task = (ScheduledTask<?>) executor.schedule(() -> { }, 1L, HOURS);
        List<AtomicReference<Throwable>> outcomes = new ArrayList<>();

        Thread first = waiter(task, () -> task.get(), outcomes, Thread.State.WAITING);
        Thread timed = waiter(task, () -> task.get(1L, SECONDS), outcomes, Thread.State.TIMED_WAITING);
        Thread last = waiter(task, () -> task.get(), outcomes, Thread.State.WAITING);
        Thread interrupted = waiter(task, () -> task.get(), outcomes, Thread.State.WAITING);

        interrupted.interrupt();
        interrupted.join(SECONDS.toMillis(ExecutorTesting.TIMEOUT_SECONDS));
        timed.join(SECONDS.toMillis(ExecutorTesting.TIMEOUT_SECONDS));
        assertThat(task.waiterCount()).as("the two untimed waiters only").isEqualTo(2);

        assertThat(task.cancel(false)).isTrue();
        first.join(SECONDS.toMillis(ExecutorTesting.TIMEOUT_SECONDS));
        last.join(SECONDS.toMillis(ExecutorTesting.TIMEOUT_SECONDS));
        assertThat(task.waiterCount()).isZero();
        assertThat(outcomes.get(0).get()).isInstanceOf(CancellationException.class);
        assertThat(outcomes.get(1).get()).isInstanceOf(TimeoutException.class);
        assertThat(outcomes.get(2).get()).isInstanceOf(CancellationException.class);
        assertThat(outcomes.get(3).get()).isInstanceOf(InterruptedException.class);
    }

    private interface Get {
        Object call() throws Exception;
    }

    /** Starts a thread that waits in {@code get}; returns once it is parked on the task (or done). */
    private static Thread waiter(ScheduledTask<?> task, Get get, List<AtomicReference<Throwable>> outcomes,
            Thread.State parked) {
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        outcomes.add(outcome);
        Thread thread = new Thread(() -> {
            try {
                get.call();
            } catch (Throwable thrown) {
                outcome.set(thrown);
            }
        });
        thread.setDaemon(true);
        thread.start();
        // Or gone already: a timed waiter whose thread was not run for its whole timeout.
        awaitCondition("a waiter parked on the task", () -> thread.getState() == Thread.State.TERMINATED
                || thread.getState() == parked && LockSupport.getBlocker(thread) == task);
        return thread;
    }
}
