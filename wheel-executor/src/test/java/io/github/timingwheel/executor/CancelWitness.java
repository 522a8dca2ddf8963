package io.github.timingwheel.executor;

import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tells a one-shot run that starts after a successful {@code cancel(false)} returned, which is
 * never allowed, from the one run {@code FutureTask}'s contract allows: a worker had entered the
 * task's {@code run} before the cancel won, and the body starts a moment later.
 *
 * <p>A {@link WitnessingExecutor} wraps every task whose body is {@link Witnessed}: the wrapper's
 * {@code run} marks {@link #enter() ENTERED} before it calls the task's. The caller of
 * {@code cancel(false)} marks {@link #cancelReturnedTrue() CANCELLED} once it returned true.
 * Both mark by a CAS from {@code OPEN}, so exactly one wins and the witness holds the order in
 * which they happened. If the cancel won, any worker's {@code run} came after the task had
 * become cancelled and must not start the body: {@link #bodyStartsAfterCancel()} is then true.
 * If the worker won, the body may start once, concurrently with the cancel.
 *
 * <p>This is what a bare "cancel returned true" flag read by the body cannot tell: a body that
 * reads the flag as set may have been claimed well before the cancel and only be slow to start.
 */
final class CancelWitness {

    private static final int OPEN = 0;
    private static final int ENTERED = 1;
    private static final int CANCELLED = 2;

    private final AtomicInteger phase = new AtomicInteger(OPEN);

    /** A task body that carries its witness. */
    interface Witnessed extends Runnable {
        CancelWitness witness();
    }

    /** A witnessed body that runs {@code body}. */
    static Witnessed body(CancelWitness witness, Runnable body) {
        return new Witnessed() {
            @Override
            public CancelWitness witness() {
                return witness;
            }

            @Override
            public void run() {
                body.run();
            }
        };
    }

    /** Called by the wrapper, on the worker, before the task's run. */
    void enter() {
        phase.compareAndSet(OPEN, ENTERED);
    }

    /**
     * Called by the canceller once {@code cancel(false)} returned true.
     *
     * @return true if a worker had entered the run first (the body may then start once)
     */
    boolean cancelReturnedTrue() {
        return !phase.compareAndSet(OPEN, CANCELLED);
    }

    /** Called by the body as it starts: whether the cancel won, so the start is a violation. */
    boolean bodyStartsAfterCancel() {
        return phase.get() == CANCELLED;
    }

    /** An executor that wraps every {@link Witnessed} task so that entering its run is witnessed. */
    static final class WitnessingExecutor extends WheelScheduledExecutor {

        WitnessingExecutor(Builder builder) {
            super(builder);
        }

        @Override
        protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
            return runnable instanceof Witnessed witnessed && !task.isPeriodic()
                    ? new Entering<>(runnable, task, witnessed.witness())
                    : task;
        }
    }

    /** Delegates everything to the task, as a decorated task does; marks the witness before its run. */
    private static final class Entering<V> extends ScheduledExecutorContractTest.DecoratedTask<V> {
        private final CancelWitness witness;

        Entering(Runnable body, RunnableScheduledFuture<V> task, CancelWitness witness) {
            super(body, task);
            this.witness = witness;
        }

        @Override
        public void run() {
            witness.enter();
            super.run();
        }
    }
}
