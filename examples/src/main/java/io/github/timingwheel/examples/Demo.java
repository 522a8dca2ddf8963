package io.github.timingwheel.examples;

import io.github.timingwheel.core.TimeSource;
import io.github.timingwheel.core.TimerNode;
import io.github.timingwheel.core.TimingWheel;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The core wheel driven by one thread: arms a million short timers, cancels most of them (as
 * completed requests cancel their timeouts), and fires the rest, parking exactly until the
 * next event. Prints how late the fired timers were and whether any fired early.
 *
 * <p>Run: {@code java -jar examples/target/examples.jar [timers] [cancelPercent]}
 */
public final class Demo {

    private static final class Timeout extends TimerNode {
        final long deadlineNanos;

        Timeout(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }
    }

    private Demo() {
    }

    public static void main(String[] args) {
        int timers = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int cancelPercent = args.length > 1 ? Integer.parseInt(args[1]) : 90;
        TimeSource clock = TimeSource.system();
        TimingWheel<Timeout> wheel = new TimingWheel<>(clock.nanoTime());
        SplittableRandom random = new SplittableRandom(42);

        long armStart = clock.nanoTime();
        long cancelled = 0;
        Firings stats = new Firings();
        for (int i = 0; i < timers; i++) {
            long now = clock.nanoTime();
            long delay = TimeUnit.MILLISECONDS.toNanos(random.nextInt(1, 51));
            Timeout timeout = new Timeout(now + delay);
            wheel.schedule(timeout, wheel.deadlineAfter(now, delay));
            if (random.nextInt(100) < cancelPercent && wheel.cancel(timeout)) {
                cancelled++;
            }
            if ((i & 1023) == 0) {
                stats.fireDue(wheel, clock); // one thread arms and fires, as an event loop does
            }
        }
        long armNanos = clock.nanoTime() - armStart;
        System.out.printf("armed %,d timers and cancelled %,d in %d ms (%,.0f schedule+cancel per second)%n",
                timers, cancelled, TimeUnit.NANOSECONDS.toMillis(armNanos), timers * 1e9 / armNanos);

        while (!wheel.isEmpty()) {
            stats.fireDue(wheel, clock);
            long park = wheel.nanosUntilNextEvent(clock.nanoTime());
            if (park > 0 && park != Long.MAX_VALUE) {
                LockSupport.parkNanos(park);
            }
        }
        System.out.printf("fired %,d timers: early %d, mean lateness %,d us, max lateness %,d us%n",
                stats.fired, stats.early, TimeUnit.NANOSECONDS.toMicros(stats.meanLateNanos()),
                TimeUnit.NANOSECONDS.toMicros(stats.maxLateNanos));
    }

    /** Fires what is due and records how late each timer fired. */
    private static final class Firings {
        long fired;
        long early;
        long maxLateNanos;
        long totalLateNanos;

        void fireDue(TimingWheel<Timeout> wheel, TimeSource clock) {
            Timeout due;
            while ((due = wheel.poll(clock.nanoTime())) != null) {
                long late = clock.nanoTime() - due.deadlineNanos;
                fired++;
                early += late < 0 ? 1 : 0;
                maxLateNanos = Math.max(maxLateNanos, late);
                totalLateNanos += late;
            }
        }

        long meanLateNanos() {
            return fired == 0 ? 0 : totalLateNanos / fired;
        }
    }
}
