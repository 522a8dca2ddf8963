package io.github.timingwheel.examples;

import io.github.timingwheel.examples.CommandLine.UsageException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The demo's settings: defaults, and the command line that changes them. */
final class DemoOptions {

    static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -jar examples/target/examples.jar [options]",
            "",
            "Plays the network-timeout pattern on several schedulers: producer threads arm timers,",
            "cancel most of them before they fire (as completed requests do), and let the rest fire.",
            "Each scheduler gets two runs: one flat out, for throughput, and one paced at --rate, for",
            "everything else (a saturated CPU would measure the machine rather than the scheduler).",
            "",
            "Options (defaults in brackets):",
            "  --timers N             timers armed on each scheduler, in each of the two runs [1000000]",
            "  --rate N               timers armed per second in the paced run; 0: flat out [500000]",
            "  --producers N          threads that arm and cancel timers, together [4]",
            "  --workers N            worker threads of the executors under test, as in the README [2]",
            "  --short-delay MIN-MAX  delay of short timers, e.g. 1-50ms [1-50ms]",
            "  --long-delay MIN-MAX   delay of request timeouts, e.g. 1-30s [1-30s]",
            "  --long-percent P       share of timers that are request timeouts [50]",
            "  --cancel-percent P     share of timers cancelled before they fire [90]",
            "  --schedulers LIST      comma-separated, from: " + Contender.keys(),
            "                         [" + String.join(",", Contender.defaultKeys()) + "]",
            "  --footprint-timers N   timers pending while heap per timer is measured [200000]",
            "  --warm-up DURATION     flat-out running before each scheduler is measured [3s]",
            "  --idle DURATION        window in which idle CPU is measured, e.g. 1s [1s]",
            "  --seed N               seed of the random delays [42]",
            "  --help                 print this and exit",
            "",
            "Durations take a unit: ns, us, ms or s. Exit codes: 0 done, 2 bad option.");

    int timers = 1_000_000;
    long rate = 500_000;
    int producers = 4;
    int workers = 2;
    DelayRange shortDelay = new DelayRange(TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(50));
    DelayRange longDelay = new DelayRange(TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(30));
    int longPercent = 50;
    int cancelPercent = 90;
    List<Contender> contenders = Contender.defaults();
    int footprintTimers = 200_000;
    long warmUpNanos = TimeUnit.SECONDS.toNanos(3);
    long idleNanos = TimeUnit.SECONDS.toNanos(1);
    long seed = 42;

    /** An inclusive range of delays in nanoseconds. */
    record DelayRange(long minNanos, long maxNanos) {
        @Override
        public String toString() {
            return Durations.format(minNanos) + " to " + Durations.format(maxNanos);
        }
    }

    void set(String name, String value) throws UsageException {
        switch (name) {
            case "--timers" -> timers = CommandLine.positiveInt(name, value);
            case "--rate" -> rate = CommandLine.nonNegative(name, value);
            case "--producers" -> producers = CommandLine.positiveInt(name, value);
            case "--workers" -> workers = CommandLine.positiveInt(name, value);
            case "--short-delay" -> shortDelay = range(name, value);
            case "--long-delay" -> longDelay = range(name, value);
            case "--long-percent" -> longPercent = CommandLine.percent(name, value);
            case "--cancel-percent" -> cancelPercent = CommandLine.percent(name, value);
            case "--schedulers" -> contenders = contenders(name, value);
            case "--footprint-timers" -> footprintTimers = CommandLine.positiveInt(name, value);
            case "--warm-up" -> warmUpNanos = CommandLine.positiveDuration(name, value);
            case "--idle" -> idleNanos = CommandLine.positiveDuration(name, value);
            case "--seed" -> seed = CommandLine.integer(name, value);
            default -> throw CommandLine.unknown(name);
        }
    }

    /** "1-50ms" or "1ms-50ms": a minimum without a unit takes the maximum's. */
    private static DelayRange range(String name, String value) throws UsageException {
        int dash = value.indexOf('-');
        if (dash <= 0 || dash == value.length() - 1) {
            throw new UsageException(name + ": expected MIN-MAX such as 1-50ms, got '" + value + "'");
        }
        String maxText = value.substring(dash + 1).trim();
        long max = CommandLine.duration(name, maxText, null);
        long min = CommandLine.duration(name, value.substring(0, dash), CommandLine.unitOf(maxText));
        if (min > max) {
            throw new UsageException(name + ": MIN must be at most MAX, got '" + value + "'");
        }
        return new DelayRange(min, max);
    }

    private static List<Contender> contenders(String name, String value) throws UsageException {
        List<Contender> chosen = new ArrayList<>();
        for (String key : value.split(",")) {
            Contender contender = Contender.byKey(key.trim());
            if (contender == null) {
                throw new UsageException(name + ": unknown scheduler '" + key.trim() + "'; choose from "
                        + Contender.keys());
            }
            if (!chosen.contains(contender)) {
                chosen.add(contender);
            }
        }
        return chosen;
    }
}
