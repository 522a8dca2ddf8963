package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs the AsyncHttpClient example on loopback with a hundred requests and reads its summary:
 * slow requests time out through our timer, none sooner than the timeout, fast ones are
 * answered, and after {@code close()} the timer still runs with nothing pending.
 */
class AsyncHttpClientTimeoutsTest {

    private static final int REQUESTS = 100;
    private static final int SLOW_PERCENT = 25;
    private static final long TIMEOUT_MILLIS = 200;
    /** Far above what a timeout's lateness is expected to be, for a loaded machine. */
    private static final long MARGIN_MILLIS = 2_000;
    private static final Pattern TIMED_OUT_RANGE = Pattern.compile("timed out after ([\\d.]+) to ([\\d.]+) ms");

    @Test
    void slowRequestsTimeOut_neverEarly_andTheTimerOutlivesTheClient() {
        Captured run = Captured.run(AsyncHttpClientTimeouts::run, "--requests", String.valueOf(REQUESTS),
                "--in-flight", "8", "--slow-percent", String.valueOf(SLOW_PERCENT), "--timeout", TIMEOUT_MILLIS + "ms");

        assertThat(run.exitCode()).as(run.text()).isZero();
        assertThat(run.text()).contains("127.0.0.1", "setNettyTimer(WheelTimer)");
        long slow = 0;
        for (long id = 0; id < REQUESTS; id++) {
            slow += SlowServer.isSlow(id, SLOW_PERCENT) ? 1 : 0;
        }
        assertThat(slow).as("the chosen ids include slow ones").isPositive();
        long answered = count(run, "answered");
        long timedOut = count(run, "timed out");
        assertThat(answered + timedOut).as(run.text()).isEqualTo(REQUESTS);
        assertThat(count(run, "other failures")).as(run.text()).isZero();
        assertThat(answered).as("fast requests succeed:%n%s", run.text()).isPositive();
        // A slow reply comes three timeouts late: each of those requests times out.
        assertThat(timedOut).as(run.text()).isGreaterThanOrEqualTo(slow);
        assertThat(count(run, "timed out early")).as(run.text()).isZero();

        Matcher range = TIMED_OUT_RANGE.matcher(run.text());
        assertThat(range.find()).as(run.text()).isTrue();
        assertThat(Double.parseDouble(range.group(1))).as("never early").isGreaterThanOrEqualTo(TIMEOUT_MILLIS);
        assertThat(Double.parseDouble(range.group(2))).as(run.text()).isLessThan(TIMEOUT_MILLIS + MARGIN_MILLIS);

        assertThat(run.line("our timer still runs")).endsWith("fired");
        assertThat(run.line("pending timeouts:")).contains("pending timeouts: 0 ");
        assertThat(run.line("timer.stop() returned")).contains("returned 0 unprocessed");
        assertThat(run.line("http-timeouts:")).contains("http-timeouts: pending=0", "failed=0", "rejected=0");
    }

    /**
     * The read-timeout mode, with the same requests sent again through Netty's timer: slow
     * requests fail through the client's read timeout, never sooner than it, with either timer,
     * and the program counts those the client re-armed for a whole period. How many that is
     * depends on the machine (see ClientReadTimeoutTest for the comparison), so only the lines
     * are checked here.
     */
    @Test
    void readTimeouts_neverEarly_andThoseLateByAWholePeriodAreCounted_forBothTimers() {
        Captured run = Captured.run(AsyncHttpClientTimeouts::run, "--requests", "60", "--in-flight", "4",
                "--slow-percent", String.valueOf(SLOW_PERCENT), "--read-timeout", "100ms", "--tolerance", "2ms",
                "--against-netty", "true");

        assertThat(run.exitCode()).as(run.text()).isZero();
        assertThat(run.text()).contains("read timeout 100 ms", "timer tolerance 2000 us");
        assertThat(count(run, "timed out")).as(run.text()).isPositive();
        assertThat(count(run, "timed out early")).as(run.text()).isZero();
        assertThat(count(run, "other failures")).as(run.text()).isZero();
        assertThat(count(run, "a period late")).as(run.text()).isLessThanOrEqualTo(count(run, "timed out"));
        for (String timer : new String[] {"WheelTimer (as above)", "HashedWheelTimer, 1 ms tick"}) {
            Matcher passes = Pattern.compile(Pattern.quote(timer)
                    + "\\s+1 \\+ 2\\s+(\\d+) \\+\\s+(\\d+)\\s+(\\d+) \\+\\s+(\\d+)\\s+(\\d+) \\+\\s+(\\d+)")
                    .matcher(run.text());
            assertThat(passes.find()).as("the passes of %s in:%n%s", timer, run.text()).isTrue();
            for (int pass = 0; pass < 2; pass++) {
                long timedOut = Long.parseLong(passes.group(1 + pass));
                assertThat(timedOut).as(run.text()).isPositive();
                assertThat(Long.parseLong(passes.group(3 + pass))).as("early: %s", run.text()).isZero();
                assertThat(Long.parseLong(passes.group(5 + pass))).as(run.text()).isLessThanOrEqualTo(timedOut);
            }
        }
    }

    @Test
    void help_printsUsage_andBadOptionsExitTwo() {
        Captured.assertHelpAndABadOption(AsyncHttpClientTimeouts::run, List.of("--requests", "--in-flight",
                "--slow-percent", "--timeout", "--read-timeout", "--tolerance", "--against-netty"), "--in-flight", "0");

        Captured notABoolean = Captured.run(AsyncHttpClientTimeouts::run, "--against-netty", "maybe");
        assertThat(notABoolean.exitCode()).isEqualTo(2);
        assertThat(notABoolean.text()).contains("--against-netty", "true or false");
    }

    /** The number on the line that starts with {@code label} followed by blanks and digits. */
    private static long count(Captured run, String label) {
        return count(run.text(), label);
    }

    /** The number on the first line of {@code text} that starts with {@code label}, blanks and digits. */
    private static long count(String text, String label) {
        Matcher m = Pattern.compile("^\\s*" + Pattern.quote(label) + "\\s+([\\d,]+)", Pattern.MULTILINE)
                .matcher(text);
        assertThat(m.find()).as("a line '%s N' in:%n%s", label, text).isTrue();
        return Long.parseLong(m.group(1).replace(",", ""));
    }
}
