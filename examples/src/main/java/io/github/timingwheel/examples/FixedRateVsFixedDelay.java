package io.github.timingwheel.examples;

import io.github.timingwheel.examples.CommandLine.UsageException;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fixed rate against fixed delay, made visible: two periodic tasks with the same period, one
 * of whose runs is slower than the period, and a table of when each run started.
 *
 * <ul>
 *   <li>{@code scheduleAtFixedRate}: run n is due at {@code n * period}. A run that overruns
 *       delays the next ones (runs of one task never overlap), and those that fell behind then
 *       start back to back until the task is on schedule again.
 *   <li>{@code scheduleWithFixedDelay}: each run starts {@code period} after the previous one
 *       ended. A slow run shifts all later ones; nothing catches up.
 * </ul>
 *
 * <p>Catching up is the JDK's rule for missed fixed-rate runs and the default; a task can skip
 * them or restart its period instead, with a {@code MissedRunPolicy}: see
 * {@link MissedRunPolicies}.
 *
 * <p>Run: {@code java -cp examples/target/examples.jar io.github.timingwheel.examples.FixedRateVsFixedDelay}
 */
public final class FixedRateVsFixedDelay {

    static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -cp examples/target/examples.jar io.github.timingwheel.examples.FixedRateVsFixedDelay [options]",
            "",
            "Options (defaults in brackets):",
            "  --period DURATION     period of both tasks [100ms]",
            "  --work DURATION       how long a run takes [20ms]",
            "  --slow-work DURATION  how long the slow run takes [250ms]",
            "  --slow-run N          which run is slow [3]",
            "  --runs N              runs shown [8]",
            "  --help                print this and exit");

    private long periodMillis = 100;
    private long workMillis = 20;
    private long slowWorkMillis = 250;
    private int slowRun = 3;
    private int runs = 8;

    private FixedRateVsFixedDelay() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the example; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        FixedRateVsFixedDelay example = new FixedRateVsFixedDelay();
        return CommandLine.runExample(args, out, USAGE, example::set, example::play);
    }

    private void set(String name, String value) throws UsageException {
        switch (name) {
            case "--period" -> periodMillis = CommandLine.positiveMillis(name, value);
            case "--work" -> workMillis = CommandLine.positiveMillis(name, value);
            case "--slow-work" -> slowWorkMillis = CommandLine.positiveMillis(name, value);
            case "--slow-run" -> slowRun = CommandLine.positiveInt(name, value);
            case "--runs" -> runs = CommandLine.positiveInt(name, value);
            default -> throw CommandLine.unknown(name);
        }
    }

    private void play(PrintStream out) throws InterruptedException {
        // Two workers, so that the two tasks do not wait for each other.
        ScheduledExecutorService scheduler = WheelScheduledExecutor.builder().workers(2).daemon(true).build();
        startWorkers(scheduler);
        Runs fixedRate = new Runs();
        Runs fixedDelay = new Runs();
        long start = System.nanoTime();
        fixedRate.start = start;
        fixedDelay.start = start;
        ScheduledFuture<?> rate = scheduler.scheduleAtFixedRate(fixedRate, 0, periodMillis, TimeUnit.MILLISECONDS);
        ScheduledFuture<?> delay = scheduler.scheduleWithFixedDelay(fixedDelay, 0, periodMillis, TimeUnit.MILLISECONDS);
        fixedRate.done.await();
        fixedDelay.done.await();
        rate.cancel(false);
        delay.cancel(false);
        scheduler.shutdown();
        print(fixedRate, fixedDelay, out);
    }

    private void print(Runs fixedRate, Runs fixedDelay, PrintStream out) {
        out.printf("Period %d ms. Each run works %d ms, but run %d works %d ms, longer than the period.%n%n",
                periodMillis, workMillis, slowRun, slowWorkMillis);
        out.println("       scheduleAtFixedRate                                scheduleWithFixedDelay");
        out.println(" run    due  started  since previous start             started  since previous end");
        long tolerance = Math.max(2, periodMillis / 4); // how close counts as "at once"
        for (int i = 0; i < runs; i++) {
            long due = i * periodMillis;
            long started = fixedRate.startedMillis(i);
            String note = "";
            if (i > 0 && started - due > tolerance && started - fixedRate.endedMillis(i - 1) <= tolerance) {
                note = "late: waited for run " + i;
            }
            out.printf("%4d %6d %8d %8s  %-24s %8d %8s%s%n", i + 1, due, started,
                    i == 0 ? "-" : started - fixedRate.startedMillis(i - 1), note,
                    fixedDelay.startedMillis(i),
                    i == 0 ? "-" : fixedDelay.startedMillis(i) - fixedDelay.endedMillis(i - 1),
                    i + 1 == slowRun ? "   <- the slow run" : "");
        }
        out.println();
        out.println("Times in ms since both tasks were scheduled.");
        out.println("Fixed rate: run n is due at (n - 1) x period. Runs of one task never overlap, so after the");
        out.println("slow run those that fell behind start as soon as the previous one ends, back to back,");
        out.println("until the task is on schedule again. Fixed delay: every run starts one period after the");
        out.println("previous one ended, so the slow run shifts every later run and nothing catches up.");
        out.println("To skip missed fixed-rate runs or restart the period instead of catching up, give");
        out.println("scheduleAtFixedRate a MissedRunPolicy (see the MissedRunPolicies example).");
    }

    /** Runs two empty tasks at once, so that the first timed run does not wait for a thread. */
    private static void startWorkers(ScheduledExecutorService scheduler) throws InterruptedException {
        CountDownLatch both = new CountDownLatch(2);
        Runnable meet = () -> {
            both.countDown();
            try {
                both.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        scheduler.execute(meet);
        scheduler.execute(meet);
        both.await();
    }

    /** One periodic task: works, and records when each run started and ended. */
    private final class Runs implements Runnable {
        final CountDownLatch done = new CountDownLatch(1);
        final long[] startedNanos = new long[runs];
        final long[] endedNanos = new long[runs];
        /** Written before the task is scheduled: visible to its runs. */
        long start;
        /** Written and read by runs only; each run happens-before the next. */
        private int count;

        @Override
        public void run() {
            int i = count++;
            if (i >= runs) {
                return; // a run after the last one shown, before the cancel
            }
            startedNanos[i] = System.nanoTime();
            work(i + 1 == slowRun ? slowWorkMillis : workMillis);
            endedNanos[i] = System.nanoTime();
            if (i == runs - 1) {
                done.countDown();
            }
        }

        long startedMillis(int i) {
            return TimeUnit.NANOSECONDS.toMillis(startedNanos[i] - start);
        }

        long endedMillis(int i) {
            return TimeUnit.NANOSECONDS.toMillis(endedNanos[i] - start);
        }

        private void work(long millis) {
            try {
                Thread.sleep(millis); // stands for real work
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
