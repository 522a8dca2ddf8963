package io.github.timingwheel.examples;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/** The side-by-side table at the end of the demo: one column per scheduler. */
final class ReportTable {

    /**
     * Everything measured on one scheduler: the throughput of the flat-out run, the paced run,
     * and the measurements afterwards.
     */
    record Column(String name, double flatOutCallsPerSecond, Workload.Result run, long idleCpuNanos,
            long idleWindowNanos, double bytesPerPendingTimer) {
    }

    /** A line of the table; a heading if it has no cells. */
    private record Row(String label, Function<Column, String> cell) {
    }

    private static List<Row> rows(DemoOptions options, boolean anyLost) {
        List<Row> rows = new ArrayList<>();
        rows.add(new Row(String.format("flat out, %,d timers", options.timers), null));
        rows.add(new Row("  schedule+cancel calls/s", c -> count(Math.round(c.flatOutCallsPerSecond()))));
        rows.add(new Row(options.rate == 0 ? "flat out again" : String.format("at %,d timers/s", options.rate), null));
        rows.add(new Row("  timers armed", c -> count(c.run().armed())));
        rows.add(new Row("    cancelled before firing", c -> count(c.run().cancelled())));
        rows.add(new Row("    fired", c -> count(c.run().fired())));
        rows.add(new Row("    cancelled at the end", c -> count(c.run().cancelledAtEnd())));
        if (anyLost) {
            rows.add(new Row("    neither (lost!)", c -> count(c.run().unsettled())));
        }
        rows.add(new Row("  late by, p50", c -> late(c, 50.0)));
        rows.add(new Row("  late by, p99", c -> late(c, 99.0)));
        rows.add(new Row("  late by, p99.9", c -> late(c, 99.9)));
        rows.add(new Row("  late by, max", c -> late(c, 100.0)));
        rows.add(new Row("  fired early", c -> count(c.run().early())));
        rows.add(new Row("  peak pending (sampled)", c -> count(c.run().peakPending())));
        rows.add(new Row("afterwards", null));
        rows.add(new Row("  heap per pending timer",
                c -> String.format("%.0f B", c.bytesPerPendingTimer())));
        rows.add(new Row("  CPU used while idle",
                c -> Durations.format(Math.round(c.idleCpuNanos() * 1e9 / c.idleWindowNanos())) + "/s"));
        return rows;
    }

    private static final String LEGEND = String.join(System.lineSeparator(),
            "What to read here:",
            "- fired early: a timer must never start before its deadline; ours never does.",
            "- late by: ours hands a timer over at its deadline; HWT starts it at the next tick,",
            "  so up to a tick late; STPE's tail grows with the cancelled tasks it keeps in its",
            "  heap. What this run measured, and on how many processors, is summed up last.",
            "- peak pending and heap: a cancelled timer leaves ours at once; STPE keeps it until",
            "  its deadline (by default), HWT until its next tick.",
            "- CPU while idle: ours parks until the next deadline; HWT wakes every tick.",
            "- schedule+cancel, flat out: HWT's newTimeout and cancel only put the timeout on a",
            "  queue; its one thread does the wheel work at its next tick, so its calls return",
            "  fast and the work follows: the row counts until that work is done too. What HWT",
            "  defers also shows in the rows above: lateness of up to a tick, cancelled timers",
            "  kept until then. Ours does the wheel work in the call, on the producer's thread",
            "  (a timer due 2 ms or more ahead first waits in a small ring and takes its slot",
            "  only if it is still pending a while later: most timeouts are cancelled before);",
            "  STPE takes one lock for a heap of every pending task.",
            "",
            "schedule+cancel: calls per second by all producers together, from the first call until",
            "  the scheduler has done the work of the last (a timer with no delay, armed after",
            "  the last call, has run).",
            "  The rest is measured in a paced run: on a saturated CPU, lateness measures the",
            "  operating system's thread scheduler more than the timer's.",
            "late by: from each timer's own deadline (System.nanoTime() when armed, plus its delay)",
            "  to the start of its body. fired early: bodies that started before that deadline.",
            "peak pending: what the scheduler holds, sampled every 20 ms. ScheduledThreadPoolExecutor",
            "  keeps a cancelled task until its deadline unless setRemoveOnCancelPolicy(true).",
            "heap per pending timer: heap growth after System.gc() with N timers pending 5-35 s ahead.",
            "CPU used while idle: CPU time of the scheduler's threads per second after the paced run,",
            "  with 10 timers pending a minute ahead. HashedWheelTimer wakes up every tick;",
            "  ScheduledThreadPoolExecutor is still discarding the cancelled tasks it kept.");

    private ReportTable() {
    }

    static void print(List<Column> columns, DemoOptions options, PrintStream out) {
        List<Row> rows = rows(options, columns.stream().anyMatch(c -> c.run().unsettled() != 0));
        int labelWidth = rows.stream().mapToInt(r -> r.label().length()).max().orElse(0);
        int[] widths = new int[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            widths[i] = columns.get(i).name().length();
            for (Row row : rows) {
                if (row.cell() != null) {
                    widths[i] = Math.max(widths[i], row.cell().apply(columns.get(i)).length());
                }
            }
        }
        StringBuilder header = new StringBuilder(" ".repeat(labelWidth));
        for (int i = 0; i < columns.size(); i++) {
            header.append(pad(columns.get(i).name(), widths[i] + 3));
        }
        out.println(header);
        for (Row row : rows) {
            if (row.cell() == null) {
                out.println(row.label());
                continue;
            }
            StringBuilder line = new StringBuilder(row.label());
            line.append(" ".repeat(labelWidth - row.label().length()));
            for (int i = 0; i < columns.size(); i++) {
                line.append(pad(row.cell().apply(columns.get(i)), widths[i] + 3));
            }
            out.println(line);
        }
        out.println();
        out.println(LEGEND.replace("with N timers", String.format("with %,d timers", options.footprintTimers)));
    }

    private static String late(Column column, double percentile) {
        Histogram lateness = column.run().lateness();
        if (lateness.getTotalCount() == 0) {
            return "-";
        }
        long nanos = percentile >= 100.0 ? lateness.getMaxValue() : lateness.getValueAtPercentile(percentile);
        return Durations.format(nanos);
    }

    private static String count(long value) {
        return String.format("%,d", value);
    }

    private static String pad(String text, int width) {
        return " ".repeat(Math.max(0, width - text.length())) + text;
    }
}
