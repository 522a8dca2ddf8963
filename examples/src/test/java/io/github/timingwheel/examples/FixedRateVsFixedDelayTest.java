package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs the fixed-rate/fixed-delay example with a short period and reads its table. The bounds
 * are the contract's (never early, never less than the delay) and one catch-up; none is an
 * upper bound on lateness.
 */
class FixedRateVsFixedDelayTest {

    private static final long PERIOD = 20;
    private static final int SLOW_RUN = 2;
    private static final Pattern ROW = Pattern.compile(
            "^\\s*(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(-|\\d+)\\s+(late: waited for run \\d+)?\\s*(\\d+)\\s+(-|\\d+)");

    /** One row: run number, fixed rate due/started/gap since previous start, fixed delay started/gap since end. */
    private record Row(int run, long due, long rateStarted, long rateGap, boolean late, long delayStarted,
            long delayGap) {
    }

    @Test
    void fixedRateCatchesUp_fixedDelayKeepsItsDelay() {
        Captured output = Captured.run(FixedRateVsFixedDelay::run, "--period", PERIOD + "ms", "--work", "2ms",
                "--slow-work", "70ms", "--slow-run", String.valueOf(SLOW_RUN), "--runs", "8");

        assertThat(output.exitCode()).as(output.text()).isZero();
        List<Row> rows = rows(output);
        assertThat(rows).as(output.text()).hasSize(8);
        assertThat(output.line(String.valueOf(SLOW_RUN))).contains("<- the slow run");
        for (Row row : rows) {
            assertThat(row.due()).isEqualTo((row.run() - 1) * PERIOD);
            assertThat(row.rateStarted()).as("fixed rate never early, run %d", row.run()).isGreaterThanOrEqualTo(row.due());
            if (row.run() > 1) {
                assertThat(row.delayGap()).as("fixed delay, run %d", row.run()).isGreaterThanOrEqualTo(PERIOD);
            }
        }
        List<Row> afterSlow = rows.subList(SLOW_RUN, rows.size());
        assertThat(afterSlow).as("a run that waited for the slow one").anyMatch(Row::late);
        assertThat(afterSlow).as("fixed rate catches up: runs closer than a period")
                .anyMatch(row -> row.rateGap() < PERIOD);
        assertThat(output.text()).contains("scheduleAtFixedRate", "scheduleWithFixedDelay", "back to back");
    }

    private static List<Row> rows(Captured output) {
        return output.lines().stream()
                .map(ROW::matcher)
                .filter(Matcher::find)
                .map(m -> new Row(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                        number(m.group(4)), m.group(5) != null, Long.parseLong(m.group(6)), number(m.group(7))))
                .toList();
    }

    private static long number(String cell) {
        return cell.equals("-") ? -1 : Long.parseLong(cell);
    }
}
