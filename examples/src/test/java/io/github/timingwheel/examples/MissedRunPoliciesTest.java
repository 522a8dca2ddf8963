package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs the missed-run example with a short period and reads its table. Every bound but one is a
 * lower bound that follows from the contract (never early; the worker is stalled; each policy's
 * next deadline), so a slow machine cannot fail it; the exception is the catch-up, which is
 * shown by two runs closer than a period, as in {@code FixedRateVsFixedDelayTest}. (The SKIP
 * bound assumes that the task was scheduled within 30 ms of the example's time origin.)
 */
class MissedRunPoliciesTest {

    private static final long PERIOD = 40;
    private static final long STALL_AT = 100;
    private static final long STALL = 130;
    /** The first run due after the stall began: run 4, due at 120 ms. */
    private static final int FIRST_MISSED = 4;
    private static final Pattern ROW = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s*$");

    /** One row: run number, first-schedule due time, and when the run started under CATCH_UP, SKIP, RESTART. */
    private record Row(int run, long due, long catchUp, long skip, long restart) {
    }

    @Test
    void eachPolicy_afterAStallOfSeveralPeriods() {
        Captured output = Captured.run(MissedRunPolicies::run, "--period", PERIOD + "ms", "--stall-at",
                STALL_AT + "ms", "--stall", STALL + "ms", "--runs", "7");

        assertThat(output.exitCode()).as(output.text()).isZero();
        assertThat(output.text()).contains("runs due at 120, 160, 200 ms are missed", "CATCH_UP", "SKIP", "RESTART");
        List<Row> rows = rows(output);
        assertThat(rows).as(output.text()).hasSize(7);
        for (Row row : rows) {
            assertThat(row.due()).isEqualTo((row.run() - 1) * PERIOD);
            assertThat(List.of(row.catchUp(), row.skip(), row.restart()))
                    .as("never before the first schedule, run %d", row.run()).allMatch(started -> started >= row.due());
        }
        Row late = rows.get(FIRST_MISSED - 1);
        Row next = rows.get(FIRST_MISSED);
        Row after = rows.get(FIRST_MISSED + 1);
        assertThat(List.of(late.catchUp(), late.skip(), late.restart()))
                .as("the late run waits for the stall to end").allMatch(started -> started >= STALL_AT + STALL);

        assertThat(next.catchUp() - late.catchUp() < PERIOD || after.catchUp() - next.catchUp() < PERIOD)
                .as("CATCH_UP: missed runs back to back\n%s", output.text()).isTrue();
        // SKIP's next deadline is the first on the old phase after the late run ended, itself after the stall.
        long firstOnPhaseAfterStall = roundUp(STALL_AT + STALL, PERIOD);
        assertThat(next.skip()).as("SKIP: the next run on the old phase\n%s", output.text())
                .isGreaterThanOrEqualTo(firstOnPhaseAfterStall);
        assertThat(after.skip()).isGreaterThanOrEqualTo(firstOnPhaseAfterStall + PERIOD);
        assertThat(next.restart()).as("RESTART: a period after the late run\n%s", output.text())
                .isGreaterThanOrEqualTo(late.restart() + PERIOD);
        assertThat(after.restart()).isGreaterThanOrEqualTo(late.restart() + 2 * PERIOD);

        assertThat(output.line("missed-runs-catch_up:")).contains("pending=0 scheduled=3", "failed=0", "late n=");
        assertThat(output.line("missed-runs-skip:")).contains("pending=0 scheduled=3");
        assertThat(output.line("missed-runs-restart:")).contains("pending=0 scheduled=3");
        assertThat(output.text()).contains("jfr print --events io.github.timingwheel.TaskLate");
    }

    private static long roundUp(long millis, long period) {
        return (millis + period - 1) / period * period;
    }

    private static List<Row> rows(Captured output) {
        return output.lines().stream()
                .map(ROW::matcher)
                .filter(Matcher::find)
                .map(m -> new Row(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                        Long.parseLong(m.group(4)), Long.parseLong(m.group(5))))
                .toList();
    }
}
