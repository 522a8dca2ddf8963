package io.github.timingwheel.clients;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.executor.SchedulerMetrics;
import io.github.timingwheel.executor.WheelTimer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.util.Timeout;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lettuce, the Redis client, with our {@link WheelTimer} as its {@code ClientResources.timer()},
 * against a few lines of Redis protocol on a loopback socket. With command timeouts on, Lettuce
 * arms one {@code io.netty.util.Timer} timeout per command as it writes it and cancels it when
 * the reply completes the command: the network-timeout pattern, almost every timer cancelled.
 * Lettuce does not check its own clock when its timeout runs: it fails the command if no reply
 * has come, so a timer that fired early would end a command early, which the caller sees.
 */
class LettuceCommandTimeoutTest {

    /** The timeout of commands the server never answers. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(50L);
    /**
     * The timeout of commands the server answers: long enough that a cold client and server on
     * a loaded machine answer each of a thousand in time (50 ms did not, once).
     */
    private static final Duration ANSWERED_TIMEOUT = Duration.ofSeconds(1L);

    /**
     * No tolerance: the timer runs each timeout as soon as it is due, as Netty's timer does
     * within its tick, so that a timeout a millisecond early would end a command before its
     * time by the caller's clock, not be hidden by lateness the default tolerance allows.
     */
    private final WheelTimer timer = WheelTimer.builder().tolerance(0L, MILLISECONDS).name("lettuce-timeouts")
            .daemon(true).build();
    private final ClientResources resources = DefaultClientResources.builder().timer(timer).build();
    private TinyRedisServer server;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;

    @BeforeEach
    void connect() throws IOException {
        server = new TinyRedisServer();
        client = RedisClient.create(resources, RedisURI.create("127.0.0.1", server.port()));
        client.setOptions(ClientOptions.builder()
                .protocolVersion(ProtocolVersion.RESP2)
                .timeoutOptions(TimeoutOptions.enabled()) // the connection's timeout, set by each test
                .build());
        connection = client.connect();
    }

    @AfterEach
    void close() throws Exception {
        if (connection.isOpen()) { // a test may have shut the client down itself
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
            resources.shutdown(0, 5, SECONDS).get(10, SECONDS);
        }
        server.close();
        timer.stop();
    }

    /**
     * 1,000 commands answered at once each armed a timeout that their reply cancelled: none
     * ran, none is left pending. Mutant: a cancel that reports success but leaves the timeout
     * in the wheel (each runs at its deadline, in the observation).
     */
    @Test
    void answeredCommands_cancelEveryTimeout_andLeaveNothingPending() throws Exception {
        connection.setTimeout(ANSWERED_TIMEOUT);
        long armedBefore = timer.metrics().scheduled();
        List<RedisFuture<String>> replies = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            replies.add(connection.async().get("key-" + i));
        }
        for (RedisFuture<String> reply : replies) {
            assertThat(reply.get(10, SECONDS)).isNull();
        }

        // Lettuce cancels a timeout when it completes the command, which may come just after
        // the caller's future has completed: wait for the count, which must then stay.
        awaitPendingZero();
        observeFor(ANSWERED_TIMEOUT.toMillis() * 3 / 2);
        SchedulerMetrics metrics = timer.metrics();
        assertThat(metrics.scheduled() - armedBefore).as("timeouts armed by the 1,000 commands")
                .isGreaterThanOrEqualTo(1_000L);
        assertThat(metrics.cancelled()).as("timeouts cancelled").isEqualTo(metrics.scheduled());
        assertThat(metrics.ran()).as("timeouts that ran").isZero();
        assertThat(timer.pendingTimeouts()).isZero();
    }

    /**
     * Commands the server never answers fail with Lettuce's RedisCommandTimeoutException, none
     * sooner than the command timeout by the caller's clock, each by one timer run. Mutants: a
     * task that never runs (the commands never end); every deadline a millisecond early (some
     * commands fail sooner than the timeout).
     */
    @Test
    void commandsNeverAnswered_timeOutNoSoonerThanTheirTimeout() throws Exception {
        connection.setTimeout(COMMAND_TIMEOUT);
        long ranBefore = timer.metrics().ran();
        AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(100);
        long[] elapsed = InRounds.elapsedNanos(10, 10, (index, onEnd) -> connection.async().get("stall")
                .whenComplete((value, failure) -> {
                    failures.set(index, failure);
                    onEnd.run();
                }));

        for (int i = 0; i < elapsed.length; i++) {
            assertThat(failures.get(i)).as("command %d", i).isInstanceOf(RedisCommandTimeoutException.class);
            assertThat(elapsed[i]).as("command %d failed after (ns)", i)
                    .isGreaterThanOrEqualTo(COMMAND_TIMEOUT.toNanos());
        }
        assertThat(TimerRuns.awaitAtLeast(() -> timer.metrics().ran() - ranBefore, elapsed.length))
                .as("timeouts that ran").isEqualTo(elapsed.length);
        // The server's thread may read the last commands a little after they timed out. Lettuce
        // writes no command that has already ended, and on a loaded host its event loop can come
        // to a command after the timeout has ended it (99 of 100 read, once, under 3 busy threads
        // on 2 cores): so at most one read per command, all of them at rest.
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        while (server.stalled() < elapsed.length && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(MILLISECONDS.toNanos(1L));
        }
        assertThat(server.stalled()).as("commands the server read and left unanswered")
                .isPositive().isLessThanOrEqualTo(elapsed.length);
    }

    /** Lettuce stops the timer it made, not one it was given: that one is the caller's to stop. */
    @Test
    void shuttingTheClientDown_leavesAGivenTimerRunning() throws Exception {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        resources.shutdown(0, 5, SECONDS).get(10, SECONDS);

        Timeout after = timer.newTimeout(timeout -> { }, 1, SECONDS);
        assertThat(after.cancel()).isTrue();
    }

    private void awaitPendingZero() {
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        while (timer.pendingTimeouts() != 0) {
            assertThat(System.nanoTime() - deadline).as("no timeout pending within 10 s").isNegative();
            LockSupport.parkNanos(MILLISECONDS.toNanos(1L));
        }
    }

    /** Lets time pass in which a timeout cancelled only in name would have run. */
    private static void observeFor(long millis) {
        long end = System.nanoTime() + MILLISECONDS.toNanos(millis);
        for (long left; (left = end - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }

    /**
     * The Redis protocol's requests (arrays of bulk strings) on a loopback socket, a thread per
     * connection: GET of "stall" is never answered, any other GET is answered with a null, PING
     * with PONG, and anything else (the client's handshake) with OK.
     */
    static final class TinyRedisServer extends LoopbackServer {
        private volatile int stalled;

        TinyRedisServer() throws IOException {
            super("tiny-redis");
            start();
        }

        /** GETs of "stall" read so far. */
        int stalled() {
            return stalled;
        }

        @Override
        void serve(Socket connection) {
            try (connection) {
                InputStream in = new BufferedInputStream(connection.getInputStream());
                OutputStream out = connection.getOutputStream();
                for (List<String> request; (request = readRequest(in)) != null; ) {
                    String command = request.get(0).toUpperCase();
                    if (command.equals("GET") && request.get(1).equals("stall")) {
                        stalled++; // only this connection's thread writes it
                        continue;
                    }
                    String reply = switch (command) {
                        case "GET" -> "$-1\r\n";
                        case "PING" -> "+PONG\r\n";
                        default -> "+OK\r\n";
                    };
                    out.write(reply.getBytes(StandardCharsets.US_ASCII));
                    if (in.available() == 0) {
                        out.flush(); // the client's pipeline is read: reply to it as one write
                    }
                }
            } catch (IOException closed) {
                // the client closed the connection
            }
        }

        /** One request: "*n" and n bulk strings "$len" + bytes; null at the end of the stream. */
        private static List<String> readRequest(InputStream in) throws IOException {
            String header = readLine(in);
            if (header == null) {
                return null;
            }
            int count = Integer.parseInt(header.substring(1));
            List<String> parts = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int length = Integer.parseInt(readLine(in).substring(1));
                parts.add(new String(in.readNBytes(length), StandardCharsets.UTF_8));
                readLine(in); // the CRLF after the bytes
            }
            return parts;
        }

        private static String readLine(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int b; (b = in.read()) != -1; ) {
                if (b == '\n') {
                    return line.substring(0, line.length() - 1); // without the CR
                }
                line.append((char) b);
            }
            return null;
        }

    }
}
