package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Runs the socket example on loopback with a few hundred requests and reads its summary. */
class NetworkTimeoutsTest {

    private static final Pattern ANSWERED = Pattern.compile("^\\s*answered\\s+([\\d,]+)");
    private static final Pattern TIMED_OUT = Pattern.compile("^\\s*timed out\\s+([\\d,]+)");

    @Test
    void bothClients_reportAnsweredAndTimedOutRequests() {
        int requests = 200;
        int slowPercent = 25;
        Captured run = Captured.run(NetworkTimeouts::run, "--requests", String.valueOf(requests),
                "--connections", "2", "--slow-percent", String.valueOf(slowPercent), "--timeout", "200ms");

        assertThat(run.exitCode()).as(run.text()).isZero();
        assertThat(run.text()).contains("127.0.0.1", "WheelTimer", "WheelScheduledExecutor");
        List<Long> answered = numbers(run, ANSWERED);
        List<Long> timedOut = numbers(run, TIMED_OUT);
        assertThat(answered).as(run.text()).hasSize(2);
        assertThat(timedOut).as(run.text()).hasSize(2);

        // Shared connections: requests 0..199; one connection each: requests 200..219.
        long[] first = {0, requests};
        long[] total = {requests, requests / 10};
        for (int part = 0; part < 2; part++) {
            long slow = 0;
            for (long id = first[part]; id < first[part] + total[part]; id++) {
                slow += SlowServer.isSlow(id, slowPercent) ? 1 : 0;
            }
            assertThat(slow).as("the chosen ids include slow ones").isPositive();
            assertThat(answered.get(part) + timedOut.get(part)).as(run.text()).isEqualTo(total[part]);
            assertThat(answered.get(part)).as(run.text()).isPositive();
            // A slow reply comes three deadlines late: each of those requests times out.
            assertThat(timedOut.get(part)).as(run.text()).isGreaterThanOrEqualTo(slow);
        }
    }

    @Test
    void badOption_exitsTwo() {
        Captured run = Captured.run(NetworkTimeouts::run, "--timeout", "soon");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.text()).contains("--timeout");
    }

    private static List<Long> numbers(Captured run, Pattern pattern) {
        return run.lines().stream()
                .map(pattern::matcher)
                .filter(Matcher::find)
                .map(m -> Long.parseLong(m.group(1).replace(",", "")))
                .toList();
    }
}
