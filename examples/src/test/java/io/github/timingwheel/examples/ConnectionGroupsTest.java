package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The groups example on a small load: every stalled connection is closed by its own request
 * timeout with no timer of it left, every timer of every connection ends (the client's closes
 * cancel all three; a timeout's close cancels the rest, and its own future, from inside its
 * run), and the Micrometer meters read the same counts. Mutant: a connection whose close does
 * not close its group leaves its idle timeout and keep-alive pending (pending 3 per connection).
 */
class ConnectionGroupsTest {

    @Test
    void everyTimerEnds_andEachStalledConnectionIsClosedByItsTimeout() {
        Captured run = Captured.run(ConnectionGroups::run,
                "--connections", "2000", "--stalled", "5", "--request-timeout", "20ms");

        assertThat(run.exitCode()).as(run.text()).isZero();
        assertThat(run.line("opened and closed")).as(run.text()).startsWith("opened and closed 1,995 connections");
        assertThat(run.line("stalled connections")).as(run.text()).isEqualTo(
                "stalled connections: 5, request timeouts fired: 5, closed by their timeout with no timer left: 5");
        assertThat(run.line("the executor")).as(run.text())
                .isEqualTo("the executor: pending 0, scheduled 6,000, cancelled 6,000, ran 5");
        assertThat(run.line("Micrometer")).as(run.text())
                .isEqualTo("Micrometer: timingwheel.pending 0, timingwheel.cancelled 6000");
    }

    @Test
    void help_printsUsage_andBadOptionsExitTwo() {
        Captured.assertHelpAndABadOption(ConnectionGroups::run,
                List.of("--connections", "--stalled", "--request-timeout"), "--connections", "0");
    }
}
