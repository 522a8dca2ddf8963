package io.github.timingwheel.stress;

import io.github.timingwheel.core.ManualTimeSource;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * Races on {@link ManualTimeSource}: a test thread advances it while others advance or read it.
 *
 * <p>Advancing is a read-modify-write of one {@code long}. Done as a plain or volatile
 * {@code nanos += amount} (read, add, write), two advances that overlap can both read the old
 * value, and one of them is lost; a reader on another thread could also see a stale value after
 * a newer one. {@code ManualTimeSource} promises neither happens: advances are atomic
 * ({@code AtomicLong.addAndGet}) and reads are volatile. Each nested test checks one of those
 * promises:
 * <ul>
 *   <li>{@link ConcurrentAdvances}: two actors advance by 1 ns and 2 ns at once; an arbiter reads
 *       the final time. No advance may be lost, and each actor's returned time must be the sum of
 *       the advances that were applied up to and including its own.
 *   <li>{@link ReadsNeverGoBack}: one actor advances by 1 ns and then by 2 ns; another reads the
 *       time twice. The second read must never be older than the first.
 * </ul>
 * Both start just below {@link Long#MAX_VALUE}, so the advances wrap across it as
 * {@link System#nanoTime()} may; results are reported as differences from the start time, which
 * are wrap-safe.
 *
 * <p>Run (after {@code mvn -B -q -pl stress-tests -am package -DskipTests}):
 * <pre>
 * cd stress-tests/target
 * java -jar jcstress.jar -t ManualTimeSourceAdvanceStress -m quick
 * </pre>
 * ({@code -m default} or {@code -m tough} for a longer, stronger run; jcstress writes its report
 * into the current directory.)
 */
public final class ManualTimeSourceAdvanceStress {

    private ManualTimeSourceAdvanceStress() {
    }

    /** The start time: 1 below Long.MAX_VALUE, so that an advance of 2 or more wraps. */
    static final long START = Long.MAX_VALUE - 1;

    /**
     * Two overlapping advances, by 1 and by 2 ns. Result: (time returned to the first actor,
     * time returned to the second, final time), each minus {@link #START}.
     */
    @JCStressTest
    @Outcome(id = "1, 3, 3", expect = Expect.ACCEPTABLE,
            desc = "The +1 advance went first (returned 1), then the +2 (returned 3); final 3.")
    @Outcome(id = "3, 2, 3", expect = Expect.ACCEPTABLE,
            desc = "The +2 advance went first (returned 2), then the +1 (returned 3); final 3.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "A lost or torn advance (final time not 3), or an actor that did not see the "
                    + "other's earlier advance in its returned time.")
    @State
    public static class ConcurrentAdvances {
        final ManualTimeSource time = new ManualTimeSource(START);

        @Actor
        public void advanceByOne(JJJ_Result r) {
            r.r1 = time.advanceNanos(1) - START;
        }

        @Actor
        public void advanceByTwo(JJJ_Result r) {
            r.r2 = time.advanceNanos(2) - START;
        }

        @Arbiter
        public void finalTime(JJJ_Result r) {
            r.r3 = time.nanoTime() - START;
        }
    }

    /**
     * One actor advances by 1 ns and then by 2 ns, so the time passes through 0, 1 and 3 (minus
     * {@link #START}); another reads it twice. Result: (first read, second read).
     */
    @JCStressTest
    @Outcome(id = "0, 0", expect = Expect.ACCEPTABLE,
            desc = "Both reads before either advance.")
    @Outcome(id = "0, 1", expect = Expect.ACCEPTABLE,
            desc = "First read before the advances, second between the +1 and the +2.")
    @Outcome(id = "0, 3", expect = Expect.ACCEPTABLE,
            desc = "First read before the advances, second after both.")
    @Outcome(id = "1, 1", expect = Expect.ACCEPTABLE,
            desc = "Both reads between the +1 and the +2.")
    @Outcome(id = "1, 3", expect = Expect.ACCEPTABLE,
            desc = "First read between the two advances, second after both.")
    @Outcome(id = "3, 3", expect = Expect.ACCEPTABLE,
            desc = "Both reads after both advances.")
    @Outcome(expect = Expect.FORBIDDEN,
            desc = "Time went backwards (second read older than the first), or a value no "
                    + "sequence of whole advances produces (a torn or partial advance).")
    @State
    public static class ReadsNeverGoBack {
        final ManualTimeSource time = new ManualTimeSource(START);

        @Actor
        public void advanceTwice() {
            time.advanceNanos(1);
            time.advanceNanos(2);
        }

        @Actor
        public void readTwice(JJ_Result r) {
            r.r1 = time.nanoTime() - START;
            r.r2 = time.nanoTime() - START;
        }
    }
}
