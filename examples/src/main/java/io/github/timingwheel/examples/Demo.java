package io.github.timingwheel.examples;

import io.github.timingwheel.examples.ReportTable.Column;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * The main demo, "a million short timers": the network-timeout pattern played on our
 * {@code WheelScheduledExecutor}, the JDK's {@code ScheduledThreadPoolExecutor} and Netty's
 * {@code HashedWheelTimer} (with its default 100 ms tick, and with a 1 ms tick) in one run,
 * then a table side by side: throughput, lateness, early firings, pending, heap per timer and
 * CPU while idle, and under it what the table shows and why each scheduler wins or loses where
 * it does; last, the lateness this run measured, the machine's processors, and what the two
 * mean together ({@link #printMeasured}).
 *
 * <p>Run: {@code java -jar examples/target/examples.jar [--help]}
 *
 * <p>For each scheduler, in turn, each step on a new instance of it: warm-up runs of a fifth of
 * the timers each, flat out, for {@code --warm-up} (3 s by default) and at least one, not
 * reported ("name warm-up" in the progress lines), so that the JIT has compiled the hot paths of
 * this scheduler before it is measured: ours has more of them than Netty's timer, and on two
 * busy cores the compiler takes seconds to reach them all (docs/examples.md has the figures of
 * one warm-up run against 3 s); a run flat out, for the throughput of schedule and cancel; a
 * run paced at {@code --rate}, for everything else ({@link Workload}), then the CPU it uses
 * while idle; the heap per pending timer ({@link Measurements}). Lateness is measured at a pace
 * the machine can keep, since on a saturated CPU it measures the operating system's scheduler
 * rather than ours.
 */
public final class Demo {

    private Demo() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, Progress.stdoutIsTerminal()));
    }

    /** Runs the demo with plain progress lines; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        return run(args, out, out, false);
    }

    static int run(String[] args, PrintStream out, PrintStream err, boolean terminal) {
        DemoOptions options = new DemoOptions();
        int exit = CommandLine.parseOrExit(args, options::set, DemoOptions.USAGE, out, err);
        if (exit >= 0) {
            return exit;
        }
        printIntro(options, out);
        Progress progress = terminal ? Progress.bar(out) : Progress.lines(out);
        List<Column> columns = new ArrayList<>();
        for (Contender contender : options.contenders) {
            columns.add(measure(contender, options, progress));
        }
        out.println();
        ReportTable.print(columns, options, out);
        out.println();
        printMeasured(columns, options, out);
        return 0;
    }

    /**
     * What this run measured of lateness, and what that means on this machine: the median and
     * p99 of each scheduler's paced run, the processors they had, and one line that reads them.
     * Nothing here is a figure from elsewhere: a busy or small machine prints what it saw.
     */
    static void printMeasured(List<Column> columns, DemoOptions options, PrintStream out) {
        int processors = Runtime.getRuntime().availableProcessors();
        out.printf("Measured in this run, on %d processor%s (Java %s):%n", processors, processors == 1 ? "" : "s",
                System.getProperty("java.version"));
        List<String> cells = new ArrayList<>();
        for (Column column : columns) {
            Histogram lateness = column.run().lateness();
            cells.add(lateness.getTotalCount() == 0 ? column.name() + " -"
                    : column.name() + " " + Durations.format(lateness.getValueAtPercentile(50.0)) + " / "
                            + Durations.format(lateness.getValueAtPercentile(99.0)));
        }
        out.println("  late by p50 / p99: " + String.join(", ", cells) + ".");
        out.println("  " + meaning(columns, options, processors));
    }

    /**
     * One line on what the figures above mean here: which scheduler started its timers soonest
     * at the median and at p99, and whether the run's threads had a processor each (if not, a
     * timer also waited for a core, and the tail is the machine's as much as the scheduler's).
     */
    static String meaning(List<Column> columns, DemoOptions options, int processors) {
        Column bestMedian = best(columns, 50.0);
        Column bestTail = best(columns, 99.0);
        String soonest = bestMedian == null ? "No timer fired in the paced run"
                : bestMedian == bestTail ? "Soonest at the median and at p99: " + bestMedian.name()
                : "Soonest at the median: " + bestMedian.name() + "; at p99: " + bestTail.name();
        int threads = options.producers + options.workers;
        String machine = threads > processors
                ? String.format("; %d producers and %d workers shared %d processor%s, so a timer also waited for a"
                        + " core: the p99 is the machine's as much as the scheduler's.", options.producers,
                        options.workers, processors, processors == 1 ? "" : "s")
                : "; every producer and worker had a processor of its own: no timer waited for a core among them.";
        return soonest + machine;
    }

    /** The column whose paced run had the lowest lateness at {@code percentile}; null if none fired. */
    private static Column best(List<Column> columns, double percentile) {
        Column best = null;
        long bestNanos = Long.MAX_VALUE;
        for (Column column : columns) {
            Histogram lateness = column.run().lateness();
            if (lateness.getTotalCount() > 0 && lateness.getValueAtPercentile(percentile) < bestNanos) {
                bestNanos = lateness.getValueAtPercentile(percentile);
                best = column;
            }
        }
        return best;
    }

    private static Column measure(Contender contender, DemoOptions options, Progress progress) {
        Workload workload = new Workload(options);
        String name = contender.title;
        long warmUpStart = System.nanoTime();
        int warmUpRuns = warmUp(() -> {
            try (Subject<?> subject = contender.start(options.workers)) {
                workload.run(subject, Math.max(1, options.timers / 5), 0, progress, name + " warm-up");
            }
        }, options.warmUpNanos, System::nanoTime);
        long warmUpNanos = System.nanoTime() - warmUpStart;
        Workload.Result flatOut;
        try (Subject<?> subject = contender.start(options.workers)) {
            flatOut = workload.run(subject, options.timers, 0, progress, name);
        }
        Workload.Result paced;
        long idleCpuNanos;
        try (Subject<?> subject = contender.start(options.workers)) {
            paced = workload.run(subject, options.timers, options.rate, progress, name);
            progress.status(name, "measuring CPU while idle");
            idleCpuNanos = Measurements.idleCpuNanos(subject, options.idleNanos);
        }
        double bytes;
        try (Subject<?> subject = contender.start(options.workers)) {
            progress.status(name, "measuring heap per pending timer");
            bytes = Measurements.bytesPerPendingTimer(subject, options.footprintTimers, options.seed);
        }
        progress.done(name, String.format("warm-up %s (%d run%s), flat out %s, paced %s: %,d fired, %,d early",
                Durations.format(warmUpNanos), warmUpRuns, warmUpRuns == 1 ? "" : "s",
                Durations.format(flatOut.elapsedNanos()), Durations.format(paced.elapsedNanos()),
                paced.fired(), paced.early()));
        return new Column(name, flatOut.callsPerSecond(), paced, idleCpuNanos, options.idleNanos, bytes);
    }

    /**
     * Runs {@code oneRun} again and again until {@code nanos} have passed on {@code clock}, and
     * at least once: the warm-up before a scheduler is measured.
     *
     * @return how many runs it made
     */
    static int warmUp(Runnable oneRun, long nanos, LongSupplier clock) {
        long until = clock.getAsLong() + nanos;
        int runs = 0;
        do {
            oneRun.run();
            runs++;
        } while (clock.getAsLong() - until < 0);
        return runs;
    }

    static void printIntro(DemoOptions options, PrintStream out) {
        Runtime runtime = Runtime.getRuntime();
        out.printf("%s short timers: the network-timeout pattern on %s.%n",
                options.timers == 1_000_000 ? "A million" : String.format("%,d", options.timers),
                options.contenders.stream().map(c -> c.title).collect(Collectors.joining(", ")));
        out.printf("  %d producer threads together arm %,d timers on each scheduler, once flat out and once%n",
                options.producers, options.timers);
        out.printf("  at %s timers/s:%n", options.rate == 0 ? "as many" : String.format("%,d", options.rate));
        out.printf("  %d%% short (%s), %d%% request timeouts (%s). %d%% are cancelled before they%n",
                100 - options.longPercent, options.shortDelay, options.longPercent, options.longDelay,
                options.cancelPercent);
        out.println("  fire, as replies come in; of the rest, short ones fire and request timeouts are");
        out.println("  cancelled when the producers are done.");
        List<String> legends = options.contenders.stream().map(c -> c.legend).distinct().toList();
        for (int i = 0; i < legends.size(); i += 2) {
            out.println("  " + String.join(", ", legends.subList(i, Math.min(i + 2, legends.size())))
                    + (i + 2 < legends.size() ? "," : ";"));
        }
        out.println("  each as a user makes it, with default settings.");
        boolean hashedWheelTimer = legends.contains(Contender.HWT_LEGEND);
        out.printf("  Executors run %d worker thread%s (the README's table compares 2)%s.%n",
                options.workers, options.workers == 1 ? "" : "s", hashedWheelTimer ? "; HWT has one" : "");
        out.printf("  Each first runs flat out for %s, not reported, so that the JIT has compiled its hot%n",
                Durations.format(options.warmUpNanos));
        out.println("  paths before it is measured.");
        out.printf("  Machine: %d CPUs, Java %s, max heap %.1f GB. About 30 s.%n%n",
                runtime.availableProcessors(), System.getProperty("java.version"), runtime.maxMemory() / 1e9);
    }
}
