package io.github.timingwheel.benchmarks.core;

import io.github.timingwheel.core.TimerNode;
import io.github.timingwheel.core.TimingWheel;
import io.github.timingwheel.core.WheelShape;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/**
 * Where a burst's lateness comes from in the wheel alone: {@code count} nodes due uniformly in
 * a {@code windowMs} window that opens 2 s ahead are polled out, and the wall time each step's
 * polls take is recorded. Until the window opens the wheel is polled as a parked driver polls
 * it, at each {@link TimingWheel#nextEventTime()}; from then on in steps of 2 µs of wheel time.
 * Most steps cost a few microseconds; a step that moves many nodes down a level at once (a
 * level-1 slot of 64 ticks holds about 64,000 of them) is what a task due just then waits for,
 * and the longest step is printed.
 *
 * <p>Run: {@code java -Xmx4g -cp benchmarks/target/benchmarks.jar
 * io.github.timingwheel.benchmarks.core.CascadeStall [count] [windowMs]} (default 1000000 in 1000 ms).
 */
public final class CascadeStall {

    private CascadeStall() {
    }

    private static final class Node extends TimerNode {
    }

    public static void main(String[] args) {
        int count = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 1_000_000;
        long window = (args.length > 1 ? Long.parseLong(args[1]) : 1_000L) * 1_000_000L;
        long opens = 2_000_000_000L;
        long step = 2_000L;
        System.out.printf("%,d nodes due in %,d ms; polled at each event until then, in steps of %d µs"
                + " after (worst at: ms since the window opened)%n", count, window / 1_000_000, step / 1_000);
        System.out.printf("%5s %14s %14s %14s %18s%n", "round", "median step µs", "p99.9 step µs",
                "worst step µs", "worst at ms");
        for (int round = 1; round <= 5; round++) {
            TimingWheel<Node> wheel = new TimingWheel<>(WheelShape.defaults(), 0L);
            SplittableRandom random = new SplittableRandom(11);
            for (int i = 0; i < count; i++) {
                wheel.schedule(new Node(), opens + random.nextLong(window));
            }
            Histogram steps = new Histogram(3);
            long worst = 0;
            long worstAt = 0;
            int polled = 0;
            for (long now = 0; now <= opens + window + step;
                    now = now < opens ? Math.min(opens, wheel.nextEventTime()) : now + step) {
                long start = System.nanoTime();
                while (wheel.poll(now) != null) {
                    polled++;
                }
                long took = System.nanoTime() - start;
                steps.recordValue(took);
                if (took > worst) {
                    worst = took;
                    worstAt = now - opens;
                }
            }
            if (polled != count) {
                throw new IllegalStateException("polled " + polled + " of " + count);
            }
            System.out.printf("%5d %,14.1f %,14.1f %,14.0f %,18.0f%n", round, steps.getValueAtPercentile(50) / 1e3,
                    steps.getValueAtPercentile(99.9) / 1e3, worst / 1e3, worstAt / 1e6);
        }
    }
}
