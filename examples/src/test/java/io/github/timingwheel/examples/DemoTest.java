package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * Runs the demo in-process with small settings and every scheduler, and reads its table. No
 * assertion is about speed: only counts, presence and the never-early rule.
 */
class DemoTest {

    private static final String[] SMALL = {
        "--timers", "20000", "--producers", "2", "--rate", "100000",
        "--short-delay", "1-5ms", "--long-delay", "1s-30s",
        "--schedulers", "wheel,stpe,hwt-100ms,hwt-1ms,wheel-timer",
        "--footprint-timers", "20000", "--idle", "100ms", "--warm-up", "1ms",
    };

    private static final List<String> COLUMNS = List.of("wheel", "STPE", "HWT 100ms", "HWT 1ms", "WheelTimer");

    @Test
    void smallRun_printsTheTableWithCountsThatAddUp() {
        Captured run = Captured.run(Demo::run, SMALL);

        assertThat(run.exitCode()).as(run.text()).isZero();
        Map<String, List<String>> table = table(run);
        assertThat(table.get("header")).containsExactlyElementsOf(COLUMNS);
        assertThat(table).containsKeys("schedule+cancel calls/s", "late by, p50", "late by, p99",
                "late by, p99.9", "late by, max", "peak pending (sampled)", "heap per pending timer",
                "CPU used while idle");
        assertThat(table).doesNotContainKey("neither (lost!)");
        for (int column = 0; column < COLUMNS.size(); column++) {
            long armed = count(table, "timers armed", column);
            long cancelled = count(table, "cancelled before firing", column);
            long fired = count(table, "fired", column);
            long cancelledAtEnd = count(table, "cancelled at the end", column);
            assertThat(armed).as(COLUMNS.get(column)).isEqualTo(20_000);
            assertThat(cancelled + fired + cancelledAtEnd).as(COLUMNS.get(column)).isEqualTo(armed);
            assertThat(cancelled).as(COLUMNS.get(column)).isPositive();
            assertThat(fired).as(COLUMNS.get(column)).isPositive();
            assertThat(table.get("late by, p50").get(column)).as(COLUMNS.get(column)).isNotEqualTo("-");
        }
        assertThat(count(table, "fired early", 0)).as("wheel never fires early").isZero();
        assertThat(count(table, "fired early", 4)).as("WheelTimer never fires early").isZero();
        assertThat(run.text()).contains("late by: from each timer's own deadline", "What to read here:",
                "HWT's newTimeout and cancel only put the timeout on a");
        int processors = Runtime.getRuntime().availableProcessors();
        assertThat(run.text()).as("what was measured, not a figure from elsewhere")
                .contains("Measured in this run, on " + processors + " processor")
                .contains("late by p50 / p99: wheel " + table.get("late by, p50").get(0) + " / "
                        + table.get("late by, p99").get(0) + ", STPE ")
                .doesNotContain("tens of microseconds");
    }

    /**
     * The closing lines read the run's own figures: the scheduler that was soonest at the median
     * and at p99, and whether the threads outnumbered the processors.
     */
    @Test
    void measured_namesTheSoonest_andSaysWhetherTimersWaitedForACore() {
        List<ReportTable.Column> columns = List.of(column("wheel", 40_000, 900_000), column("STPE", 35_000, 2_000_000),
                column("HWT 1ms", 1_000_000, 1_900_000));
        DemoOptions options = new DemoOptions(); // 4 producers, 2 workers

        assertThat(Demo.meaning(columns, options, 2))
                .startsWith("Soonest at the median: STPE; at p99: wheel;")
                .contains("4 producers and 2 workers shared 2 processors, so a timer also waited for a core");
        assertThat(Demo.meaning(columns.subList(0, 1), options, 8))
                .startsWith("Soonest at the median and at p99: wheel;")
                .contains("had a processor of its own");

        String text = Captured.run((args, out) -> {
            Demo.printMeasured(columns, options, out);
            return 0;
        }).text();
        String cells = Captured.run((args, out) -> { // in the locale the demo printed in
            for (ReportTable.Column column : columns) {
                Histogram lateness = column.run().lateness();
                out.print((column == columns.get(0) ? "" : ", ") + column.name() + " "
                        + Durations.format(lateness.getValueAtPercentile(50.0)) + " / "
                        + Durations.format(lateness.getValueAtPercentile(99.0)));
            }
            return 0;
        }).text();
        assertThat(text).contains("Measured in this run, on ", "late by p50 / p99: " + cells + ".",
                Demo.meaning(columns, options,
                Runtime.getRuntime().availableProcessors()));
    }

    /** A column whose paced run's lateness has the given median and p99, 100 values in all. */
    private static ReportTable.Column column(String name, long p50Nanos, long p99Nanos) {
        Histogram lateness = new Histogram(3);
        lateness.recordValueWithCount(p50Nanos, 98);
        lateness.recordValueWithCount(p99Nanos, 2);
        Workload.Result run = new Workload.Result(100, 0, 100, 0, 0, 0, lateness, 1e6, 100, 1_000_000_000L);
        return new ReportTable.Column(name, 1e6, run, 0, 1_000_000_000L, 64.0);
    }

    @Test
    void help_printsUsageAndExitsZero() {
        Captured run = Captured.run(Demo::run, "--help");

        assertThat(run.exitCode()).isZero();
        assertThat(run.text()).contains("Usage:", "--timers", "--producers", "--short-delay", "--long-delay",
                "--cancel-percent", "--schedulers");
    }

    @Test
    void badOptions_nameTheOptionAndExitTwo() {
        assertThat(Captured.run(Demo::run, "--timers", "many"))
                .satisfies(run -> assertThat(run.exitCode()).isEqualTo(2))
                .satisfies(run -> assertThat(run.text()).contains("--timers", "'many'"));
        assertThat(Captured.run(Demo::run, "--schedulers", "wheel,cron").text())
                .contains("--schedulers", "'cron'");
        assertThat(Captured.run(Demo::run, "--short-delay", "50-1ms").text()).contains("--short-delay");
        assertThat(Captured.run(Demo::run, "--cancel-percent", "101").text()).contains("--cancel-percent");
        assertThat(Captured.run(Demo::run, "--idle", "1").text()).contains("--idle", "unit");
        assertThat(Captured.run(Demo::run, "--warm-up", "0s").text()).contains("--warm-up");
        assertThat(Captured.run(Demo::run, "--frobnicate", "1").text()).contains("unknown option --frobnicate");
        assertThat(Captured.run(Demo::run, "--bogus"))
                .satisfies(run -> assertThat(run.exitCode()).isEqualTo(2))
                .satisfies(run -> assertThat(run.text()).contains("unknown option --bogus")
                        .doesNotContain("missing value"));
        assertThat(Captured.run(Demo::run, "--timers").text()).contains("--timers: missing value");
        assertThat(Captured.run(Demo::run, "--producers", "0").exitCode()).isEqualTo(2);
    }

    /**
     * The intro describes the run that is made: the number of timers it arms, and only the
     * schedulers that run (the default run has no WheelTimer column).
     */
    @Test
    void intro_countsTheTimers_andExplainsOnlyTheSchedulersThatRun() throws Exception {
        DemoOptions defaults = new DemoOptions();
        String defaultIntro = Captured.run((args, out) -> {
            Demo.printIntro(defaults, out);
            return 0;
        }).text();
        assertThat(defaultIntro).startsWith("A million short timers")
                .contains("wheel = WheelScheduledExecutor", "STPE = ScheduledThreadPoolExecutor",
                        "HWT = Netty's HashedWheelTimer", "HWT has one")
                .contains("4 producer threads together arm 1,000,000 timers on each scheduler",
                        "Executors run 2 worker threads (the README's table compares 2)")
                .doesNotContain("WheelTimer =");

        DemoOptions smaller = new DemoOptions();
        smaller.set("--timers", "200000");
        smaller.set("--schedulers", "wheel,wheel-timer");
        String smallerIntro = Captured.run((args, out) -> {
            Demo.printIntro(smaller, out);
            return 0;
        }).text();
        assertThat(smallerIntro).startsWith("200,000 short timers").doesNotContain("million")
                .contains("wheel = WheelScheduledExecutor", "WheelTimer = ours as a Netty Timer")
                .doesNotContain("STPE", "HWT");
    }

    /** The warm-up run's progress says it is the warm-up, not the measured run. */
    @Test
    void warmUpProgress_isLabelledAsWarmUp() {
        String[] tiny = {
            "--timers", "2000", "--producers", "1", "--rate", "0", "--short-delay", "1-5ms",
            "--long-delay", "1s-2s", "--schedulers", "wheel", "--footprint-timers", "2000", "--idle", "10ms",
            "--warm-up", "1ms",
        };
        Captured run = Captured.run((args, out) -> Demo.run(args, out, out, true), tiny);

        assertThat(run.exitCode()).as(run.text()).isZero();
        assertThat(run.text()).contains("wheel warm-up").doesNotContain("wheel*");
    }

    /**
     * The warm-up runs until its time has passed, and at least once: on a clock that moves 1 s
     * per run, 3 s take three runs, and a time shorter than one run takes one.
     */
    @Test
    void warmUp_runsUntilItsTimeHasPassed_andAtLeastOnce() {
        long[] clock = {0L};
        int[] runs = {0};
        Runnable oneRun = () -> {
            runs[0]++;
            clock[0] += TimeUnit.SECONDS.toNanos(1);
        };

        assertThat(Demo.warmUp(oneRun, TimeUnit.SECONDS.toNanos(3), () -> clock[0])).isEqualTo(3);
        assertThat(runs[0]).isEqualTo(3);
        assertThat(Demo.warmUp(oneRun, 1L, () -> clock[0])).isEqualTo(1);
        assertThat(runs[0]).isEqualTo(4);
    }

    /**
     * The table's rows by label (trimmed), each a list of cells; "header" holds the column
     * titles. Cells are at least three blanks apart, labels have single blanks.
     */
    private static Map<String, List<String>> table(Captured run) {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        List<String> lines = run.lines();
        int header = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).trim().startsWith(COLUMNS.get(0) + " ") && lines.get(i).contains(COLUMNS.get(1))) {
                header = i;
            }
        }
        assertThat(header).as(run.text()).isNotNegative();
        rows.put("header", Arrays.asList(lines.get(header).trim().split("\\s{3,}")));
        for (String line : lines.subList(header + 1, lines.size())) {
            if (line.isBlank()) {
                break;
            }
            String[] cells = line.trim().split("\\s{3,}");
            if (cells.length > 1) {
                rows.put(cells[0], Arrays.asList(cells).subList(1, cells.length));
            }
        }
        return rows;
    }

    private static long count(Map<String, List<String>> table, String row, int column) {
        assertThat(table).containsKey(row);
        return Long.parseLong(table.get(row).get(column).replace(",", ""));
    }
}
