package io.github.timingwheel.stress;

import io.github.timingwheel.core.TimeSource;
import io.github.timingwheel.executor.Rearmable;
import io.github.timingwheel.executor.RearmableFuture;
import io.github.timingwheel.executor.RearmableTimeout;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Two touches of one re-armable handle at once, one with an older clock reading than the other.
 *
 * <p>A touch reads the clock, then CASes the handle's armed deadline. Two touches may CAS in the
 * other order than they read; a touch only moves the deadline later, so it ends at the later
 * reading's target whatever the order, and both touches keep their promise ("fires no earlier
 * than now plus the timeout"). To make the readings differ on every sample, the scheduler's
 * time source is per thread: the first actor's thread reads 1 ms, the second's 2 ms, every other
 * thread (the worker, the arbiter, the state's maker) 0. The handles are armed for an hour, so
 * the worker, which reads 0, never fires one; the arbiter cancels each.
 * <ul>
 *   <li>{@link Executor}: {@link WheelScheduledExecutor#scheduleRearmable}.
 *   <li>{@link Timer}: {@link WheelTimer#newRearmableTimeout}.
 * </ul>
 * r1 and r2 are the touches' results, r3 the deadline the handle ended at, in ms past the hour:
 * 2 is the later reading's, 1 the older's.
 *
 * <p>Mutant seen red: a touch that moves the deadline to its target whatever it was
 * ({@code ArmedDeadline.moveTo} in place of {@code moveLater} in the touches) gives
 * {@code 1, 1, 1} in both tests.
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t TwoTouchesStress -m quick
 * </pre>
 */
public final class TwoTouchesStress {

    private TwoTouchesStress() {
    }

    /** Each thread's reading of the clock, in nanoseconds; 0 unless an actor set its own. */
    private static final ThreadLocal<long[]> NOW = ThreadLocal.withInitial(() -> new long[1]);
    private static final TimeSource PER_THREAD = () -> NOW.get()[0];

    private static final long HOUR_NANOS = TimeUnit.HOURS.toNanos(1);
    private static final long MS_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    static final WheelScheduledExecutor EXECUTOR;
    static final WheelTimer TIMER;

    static {
        NOW.get()[0] = 0L; // the origin of both schedulers' wheel time
        EXECUTOR = WheelScheduledExecutor.builder().workers(1).daemon(true).timeSource(PER_THREAD)
                .threadNamePrefix("two-touches-worker-").build();
        TIMER = WheelTimer.builder().daemon(true).timeSource(PER_THREAD)
                .threadNamePrefix("two-touches-timer-").build();
    }

    /** Touches at the calling thread's reading {@code atMillis}. */
    private static int touchAt(long atMillis, Rearmable handle) {
        NOW.get()[0] = atMillis * MS_NANOS;
        return handle.touch() ? 1 : 0;
    }

    /** The handle's deadline in ms past the hour, read at wheel time 0. */
    private static int deadlinePastTheHour(Rearmable handle) {
        NOW.get()[0] = 0L;
        return (int) ((handle.remaining(TimeUnit.NANOSECONDS) - HOUR_NANOS) / MS_NANOS);
    }

    @JCStressTest
    @Outcome(id = "1, 1, 2", expect = Expect.ACCEPTABLE,
            desc = "Both touches succeeded; the deadline is the later reading's (2 ms + 1 h).")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A touch that failed on an armed handle, or a deadline moved back to the older "
                    + "reading's target (r3 = 1), before the other touch's promise.")
    @State
    public static class Executor {
        final RearmableFuture<Void> handle;

        public Executor() {
            NOW.get()[0] = 0L;
            handle = EXECUTOR.scheduleRearmable(() -> { }, 1L, TimeUnit.HOURS);
        }

        @Actor
        public void olderReading(III_Result r) {
            r.r1 = touchAt(1, handle);
        }

        @Actor
        public void laterReading(III_Result r) {
            r.r2 = touchAt(2, handle);
        }

        @Arbiter
        public void deadline(III_Result r) {
            r.r3 = deadlinePastTheHour(handle);
            handle.cancel(false);
        }
    }

    @JCStressTest
    @Outcome(id = "1, 1, 2", expect = Expect.ACCEPTABLE,
            desc = "Both touches succeeded; the deadline is the later reading's (2 ms + 1 h).")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A touch that failed on an armed handle, or a deadline moved back to the older "
                    + "reading's target (r3 = 1), before the other touch's promise.")
    @State
    public static class Timer {
        final RearmableTimeout handle;

        public Timer() {
            NOW.get()[0] = 0L;
            handle = TIMER.newRearmableTimeout(timeout -> { }, 1L, TimeUnit.HOURS);
        }

        @Actor
        public void olderReading(III_Result r) {
            r.r1 = touchAt(1, handle);
        }

        @Actor
        public void laterReading(III_Result r) {
            r.r2 = touchAt(2, handle);
        }

        @Arbiter
        public void deadline(III_Result r) {
            r.r3 = deadlinePastTheHour(handle);
            handle.cancel();
        }
    }
}
