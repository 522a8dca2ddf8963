package io.github.timingwheel.examples;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.core.ManualTimeSource;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reaper on real loopback sockets and a manual clock: quiet connections are closed once the
 * idle timeout passes, active ones stay open, whichever way the timeouts are written; the
 * touching way schedules once per connection and re-arms lazily, the other schedules on every
 * read. Mutant: a reaper whose read does not push the timeout back ({@code activity} left out
 * of {@code read}) closes the active connections too.
 */
class IdleConnectionReaperTest {

    private static final int ACTIVE = 3;
    private static final int QUIET = 3;
    /** Short in wheel time, so that the leader, parked in real time, wakes soon to see the clock. */
    private static final long IDLE_MILLIS = 100L;

    @ParameterizedTest
    @ValueSource(strings = {"touch", "cancel+schedule"})
    void quietConnectionsAreReaped_activeOnesStay(String way) throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        WheelScheduledExecutor scheduler = WheelScheduledExecutor.builder()
                .workers(1).timeSource(clock).daemon(true).build();
        IdleConnectionReaper.IdleTimeouts timeouts = way.equals("touch")
                ? IdleConnectionReaper.touching(scheduler, IDLE_MILLIS, MILLISECONDS)
                : IdleConnectionReaper.cancelAndSchedule(scheduler, IDLE_MILLIS, MILLISECONDS);
        List<SocketChannel> clients = new ArrayList<>();
        try (IdleConnectionReaper reaper = new IdleConnectionReaper(timeouts)) {
            for (int i = 0; i < ACTIVE + QUIET; i++) {
                SocketChannel client = SocketChannel.open(reaper.address());
                client.setOption(StandardSocketOptions.TCP_NODELAY, true);
                clients.add(client);
            }
            reaper.awaitAccepted(ACTIVE + QUIET);
            writeToActive(clients, reaper); // at 0 ms
            clock.advance(60, MILLISECONDS);
            writeToActive(clients, reaper); // at 60 ms: their deadline moves to 160 ms
            clock.advance(60, MILLISECONDS); // 120 ms: the quiet ones' deadline (100 ms) passed
            passDueTasks(scheduler);

            for (int i = ACTIVE; i < ACTIVE + QUIET; i++) {
                assertThat(readUntilClosed(clients.get(i))).as("quiet connection %d closed", i).isTrue();
            }
            assertThat(reaper.reaped()).isEqualTo(QUIET);
            assertThat(reaper.open()).isEqualTo(ACTIVE);

            clock.advance(40, MILLISECONDS); // 160 ms: the active ones' deadline
            passDueTasks(scheduler);
            assertThat(reaper.reaped()).isEqualTo(ACTIVE + QUIET);
            if (way.equals("touch")) {
                assertThat(scheduler.metrics().scheduled()).isEqualTo(ACTIVE + QUIET + 2); // + 2 markers
                assertThat(scheduler.metrics().rearms()).isEqualTo(ACTIVE); // once each, at 100 ms
            } else {
                assertThat(scheduler.metrics().scheduled()).isEqualTo(ACTIVE + QUIET + 2 * ACTIVE + 2);
            }
        } finally {
            for (SocketChannel client : clients) {
                client.close();
            }
            scheduler.shutdownNow();
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void help_printsUsage_badOptionsExitTwo_andARunPrintsBothWays() {
        Captured.assertHelpAndABadOption(IdleConnectionReaper::run, List.of("--connections", "--idle", "--seconds"),
                "--idle", "0ms");
        assertThat(Captured.run(IdleConnectionReaper::run, "400").exitCode()).as("a bare number").isEqualTo(2);

        Captured run = Captured.run(IdleConnectionReaper::run, "--connections", "4", "--idle", "50ms", "--seconds", "1");
        assertThat(run.exitCode()).as(run.text()).isZero();
        assertThat(run.line("touch ")).contains("4 connections, idle 50 ms, 1 s");
        assertThat(run.line("cancel+schedule ")).contains("4 connections, idle 50 ms, 1 s");
    }

    private static void writeToActive(List<SocketChannel> clients, IdleConnectionReaper reaper) throws Exception {
        for (int i = 0; i < ACTIVE; i++) {
            clients.get(i).write(ByteBuffer.wrap(new byte[] {1}));
        }
        reaper.awaitReads(ACTIVE); // the server has read, and touched, each of them
    }

    /**
     * Lets the one worker take every task due on the manual clock: a marker submitted now runs
     * after them (ties and earlier deadlines go first). The leader parked in real time for at
     * most the idle timeout, so it wakes within that to see the clock.
     */
    private static void passDueTasks(WheelScheduledExecutor scheduler) throws Exception {
        scheduler.submit(() -> { }).get(10, TimeUnit.SECONDS);
    }

    /** True once the server closed the connection (end of stream). */
    private static boolean readUntilClosed(SocketChannel client) throws Exception {
        client.socket().setSoTimeout(10_000);
        return client.socket().getInputStream().read() == -1;
    }
}
