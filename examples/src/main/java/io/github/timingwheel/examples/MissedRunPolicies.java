package io.github.timingwheel.examples;

import io.github.timingwheel.examples.CommandLine.UsageException;
import io.github.timingwheel.executor.MissedRunPolicy;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * What a fixed-rate task does after missed runs, under each {@link MissedRunPolicy}: three
 * executors of one worker each run the same fixed-rate task, and in each the worker is stalled
 * by another task for several periods, as a long GC pause or an overloaded host would stall it.
 * A table shows when each run started.
 *
 * <ul>
 *   <li>{@code CATCH_UP} (the JDK's behaviour, the default of {@code scheduleAtFixedRate}): every
 *       missed run happens once the worker is free, back to back.
 *   <li>{@code SKIP}: the missed runs are dropped; the task goes on at its old phase.
 *   <li>{@code RESTART}: the missed runs are dropped; the period starts again from the late run.
 * </ul>
 *
 * <p>The policy is chosen per task,
 * {@code executor.scheduleAtFixedRate(task, 0, period, unit, MissedRunPolicy.SKIP)}, or for every
 * {@code scheduleAtFixedRate} of an executor, {@code builder().missedRunPolicy(SKIP)}.
 *
 * <p>The executors also record JDK Flight Recorder events for runs that start more than half a
 * period late and runs that take longer than a period; start a recording to keep them.
 *
 * <p>Run: {@code java -cp examples/target/examples.jar io.github.timingwheel.examples.MissedRunPolicies}
 * <br>With a recording: {@code java -XX:StartFlightRecording:filename=missed-runs.jfr -cp
 * examples/target/examples.jar io.github.timingwheel.examples.MissedRunPolicies}, then
 * {@code jfr print --events io.github.timingwheel.TaskLate missed-runs.jfr}
 */
public final class MissedRunPolicies {

    static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -cp examples/target/examples.jar io.github.timingwheel.examples.MissedRunPolicies [options]",
            "",
            "Options (defaults in brackets):",
            "  --period DURATION      period of the fixed-rate task [100ms]",
            "  --stall-at DURATION    when the worker is stalled [250ms]",
            "  --stall DURATION       how long the worker is stalled [330ms]",
            "  --runs N               runs shown [8]",
            "  --help                 print this and exit");

    private long periodMillis = 100;
    private long stallAtMillis = 250;
    private long stallMillis = 330;
    private int runs = 8;

    private MissedRunPolicies() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the example; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        MissedRunPolicies example = new MissedRunPolicies();
        return CommandLine.runExample(args, out, USAGE, example::set, example::play);
    }

    private void set(String name, String value) throws UsageException {
        switch (name) {
            case "--period" -> periodMillis = CommandLine.positiveMillis(name, value);
            case "--stall-at" -> stallAtMillis = CommandLine.positiveMillis(name, value);
            case "--stall" -> stallMillis = CommandLine.positiveMillis(name, value);
            case "--runs" -> runs = CommandLine.positiveInt(name, value);
            default -> throw CommandLine.unknown(name);
        }
    }

    private void play(PrintStream out) throws InterruptedException {
        List<Lane> lanes = new ArrayList<>();
        for (MissedRunPolicy policy : MissedRunPolicy.values()) {
            lanes.add(new Lane(policy));
        }
        for (Lane lane : lanes) {
            lane.start();
        }
        for (Lane lane : lanes) {
            lane.done.await();
        }
        for (Lane lane : lanes) {
            lane.stop();
        }
        for (Lane lane : lanes) {
            lane.executor.awaitTermination(10, TimeUnit.SECONDS); // so that the metrics are final
        }
        print(lanes, out);
    }

    private void print(List<Lane> lanes, PrintStream out) {
        out.printf("Fixed rate, period %d ms, one worker. At %d ms another task stalls the worker for %d ms,%n",
                periodMillis, stallAtMillis, stallMillis);
        out.printf("as a long GC pause or an overloaded host would, so the runs due at %s ms are missed.%n%n",
                missedDeadlines());
        StringBuilder header = new StringBuilder(" run    due");
        for (Lane lane : lanes) {
            header.append(String.format("%11s", lane.policy));
        }
        out.println(header);
        for (int i = 0; i < runs; i++) {
            StringBuilder row = new StringBuilder(String.format("%4d %6d", i + 1, i * periodMillis));
            for (Lane lane : lanes) {
                row.append(String.format("%11d", lane.startedMillis(i)));
            }
            out.println(row);
        }
        out.println();
        out.println("When each run started, in ms since its task was scheduled; due is the first schedule.");
        out.println("CATCH_UP (the JDK's behaviour and the default): every missed run happens once the worker");
        out.println("is free, back to back. SKIP: the missed runs are dropped and the task keeps its phase.");
        out.println("RESTART: the missed runs are dropped and the period starts again from the late run.");
        out.println();
        out.println("Each executor's metrics (note how late its runs started):");
        for (Lane lane : lanes) {
            out.println(lane.executor.metrics());
        }
        out.println();
        out.printf("Runs that started %d ms late or more, and runs that took %d ms or more, were also JDK Flight%n",
                periodMillis / 2, periodMillis);
        out.println("Recorder events (io.github.timingwheel.TaskLate and TaskRanLong), kept if a recording runs:");
        out.println("java -XX:StartFlightRecording:filename=missed-runs.jfr -cp examples/target/examples.jar \\");
        out.println("    io.github.timingwheel.examples.MissedRunPolicies");
        out.println("jfr print --events io.github.timingwheel.TaskLate,io.github.timingwheel.TaskRanLong missed-runs.jfr");
    }

    /** The deadlines that fall inside the stall, when the worker cannot start them. */
    private String missedDeadlines() {
        StringJoiner missed = new StringJoiner(", ");
        for (long due = 0; due < stallAtMillis + stallMillis; due += periodMillis) {
            if (due > stallAtMillis) {
                missed.add(Long.toString(due));
            }
        }
        return missed.toString();
    }

    /** One policy: an executor of one worker, the fixed-rate task and the stall. */
    private final class Lane implements Runnable {
        final MissedRunPolicy policy;
        final WheelScheduledExecutor executor;
        final CountDownLatch done = new CountDownLatch(1);
        final long[] startedNanos = new long[runs];
        /** Written before the task is scheduled: visible to its runs. */
        private long start;
        /** Written and read by runs only; each run happens-before the next. */
        private int count;
        private ScheduledFuture<?> task;

        Lane(MissedRunPolicy policy) {
            this.policy = policy;
            this.executor = WheelScheduledExecutor.builder()
                    .workers(1)
                    .daemon(true)
                    .name("missed-runs-" + policy.name().toLowerCase(Locale.ROOT))
                    .lateTaskEventThreshold(periodMillis / 2, TimeUnit.MILLISECONDS)
                    .longTaskEventThreshold(periodMillis, TimeUnit.MILLISECONDS)
                    .build();
            executor.prestartAllCoreThreads(); // so that the first run does not wait for a thread
            // Loads the classes of a fixed-rate task now, so that the table shows the schedule
            // rather than class loading.
            executor.scheduleAtFixedRate(() -> { }, 1, 1, TimeUnit.HOURS, policy).cancel(false);
        }

        void start() {
            start = System.nanoTime();
            task = executor.scheduleAtFixedRate(this, 0, periodMillis, TimeUnit.MILLISECONDS, policy);
            executor.schedule(new Stall(stallMillis), stallAtMillis, TimeUnit.MILLISECONDS);
        }

        void stop() {
            task.cancel(false);
            executor.shutdown();
        }

        @Override
        public void run() {
            int i = count++;
            if (i >= runs) {
                return; // a run after the last one shown, before the cancel
            }
            startedNanos[i] = System.nanoTime();
            if (i == runs - 1) {
                done.countDown();
            }
        }

        long startedMillis(int i) {
            return TimeUnit.NANOSECONDS.toMillis(startedNanos[i] - start);
        }
    }

    /** The task that holds the worker; a class of its own, so that its events name it. */
    private static final class Stall implements Runnable {
        private final long millis;

        Stall(long millis) {
            this.millis = millis;
        }

        @Override
        public void run() {
            try {
                Thread.sleep(millis); // stands for work that holds the worker
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
