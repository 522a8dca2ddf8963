package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs the missed-run example with a short period and reads its table. Every bound but one is a
 * lower bound that follows from the contract (never early; the worker is stalled; each policy's
 * next deadline), so a slow machine cannot fail it. The exception is the catch-up, shown by two
 * runs closer than a period: nothing in the contract makes them wait for a deadline (every
 * missed run is due when the stall ends), but a loaded machine can keep the worker off its core
 * for a period between two of them. So that check alone, if it fails, is made again on a run of
 * the example at ten times the scale (a 400 ms period), where the machine would have to have
 * held the worker 40 ms and then 400 ms at the same point; a CATCH_UP that waits for a period
 * after the late run fails both, whatever the machine. (The SKIP bound assumes that the task was scheduled within 30
 * ms, times the scale, of the example's time origin.)
 *
 * <p>Shown to catch a CATCH_UP that behaves as RESTART ({@code PeriodicTask.fixedRate} making a
 * {@code Restarting} task for it): red at both scales.
 */
class MissedRunPoliciesTest {

    private static final long PERIOD = 40;
    private static final long STALL_AT = 100;
    private static final long STALL = 130;
    /** The first run due after the stall began: run 4, due at 120 ms (times the scale). */
    private static final int FIRST_MISSED = 4;
    /** The scale of the second run, if the first shows no catch-up. */
    private static final long RETRY_SCALE = 10;
    private static final Pattern ROW = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s*$");

    /** One row: run number, first-schedule due time, and when the run started under CATCH_UP, SKIP, RESTART. */
    private record Row(int run, long due, long catchUp, long skip, long restart) {
    }

    @Test
    void eachPolicy_afterAStallOfSeveralPeriods() {
        String first = eachPolicy(1);
        if (first != null) {
            String retry = eachPolicy(RETRY_SCALE);
            assertThat(retry).as("CATCH_UP: missed runs back to back, at scale 1 and at scale %d", RETRY_SCALE)
                    .isNull();
        }
    }

    /**
     * Runs the example at {@code scale} times the test's times and checks every lower bound.
     *
     * @return null if CATCH_UP's missed runs came back to back, else the table that did not show it
     */
    private static String eachPolicy(long scale) {
        long period = PERIOD * scale;
        long stallAt = STALL_AT * scale;
        long stall = STALL * scale;
        Captured output = Captured.run(MissedRunPolicies::run, "--period", period + "ms", "--stall-at",
                stallAt + "ms", "--stall", stall + "ms", "--runs", "7");

        assertThat(output.exitCode()).as(output.text()).isZero();
        assertThat(output.text()).contains("runs due at " + 3 * period + ", " + 4 * period + ", " + 5 * period
                + " ms are missed", "CATCH_UP", "SKIP", "RESTART");
        List<Row> rows = rows(output);
        assertThat(rows).as(output.text()).hasSize(7);
        for (Row row : rows) {
            assertThat(row.due()).isEqualTo((row.run() - 1) * period);
            assertThat(List.of(row.catchUp(), row.skip(), row.restart()))
                    .as("never before the first schedule, run %d", row.run()).allMatch(started -> started >= row.due());
        }
        Row late = rows.get(FIRST_MISSED - 1);
        Row next = rows.get(FIRST_MISSED);
        Row after = rows.get(FIRST_MISSED + 1);
        assertThat(List.of(late.catchUp(), late.skip(), late.restart()))
                .as("the late run waits for the stall to end").allMatch(started -> started >= stallAt + stall);

        // SKIP's next deadline is the first on the old phase after the late run ended, itself after the stall.
        long firstOnPhaseAfterStall = roundUp(stallAt + stall, period);
        assertThat(next.skip()).as("SKIP: the next run on the old phase\n%s", output.text())
                .isGreaterThanOrEqualTo(firstOnPhaseAfterStall);
        assertThat(after.skip()).isGreaterThanOrEqualTo(firstOnPhaseAfterStall + period);
        assertThat(next.restart()).as("RESTART: a period after the late run\n%s", output.text())
                .isGreaterThanOrEqualTo(late.restart() + period);
        assertThat(after.restart()).isGreaterThanOrEqualTo(late.restart() + 2 * period);

        assertThat(output.line("missed-runs-catch_up:")).contains("pending=0 scheduled=3", "failed=0", "late n=");
        assertThat(output.line("missed-runs-skip:")).contains("pending=0 scheduled=3");
        assertThat(output.line("missed-runs-restart:")).contains("pending=0 scheduled=3");
        assertThat(output.text()).contains("jfr print --events io.github.timingwheel.TaskLate");

        // The run due a period after the late one was already due when the late one started:
        // CATCH_UP starts it at once. (RESTART and SKIP start it a period, or on the old phase,
        // later; so does a CATCH_UP that waits, whatever the machine.)
        boolean backToBack = next.catchUp() - late.catchUp() < period;
        return backToBack ? null : output.text();
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
