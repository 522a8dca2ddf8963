package io.github.timingwheel.examples;

import io.github.timingwheel.examples.CommandLine.UsageException;
import io.github.timingwheel.executor.WheelTimer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.asynchttpclient.AsyncHttpClient;
import org.asynchttpclient.AsyncHttpClientConfig;
import org.asynchttpclient.DefaultAsyncHttpClient;
import org.asynchttpclient.DefaultAsyncHttpClientConfig;

/**
 * AsyncHttpClient with our {@link WheelTimer} as its Netty timer: every request timeout, and the
 * client's connection pool cleaner, run on the wheel instead of the {@code HashedWheelTimer} the
 * client would otherwise start for itself.
 *
 * <pre>{@code
 * WheelTimer timer = WheelTimer.builder().name("http-timeouts").build();
 * AsyncHttpClient client = new DefaultAsyncHttpClient(new DefaultAsyncHttpClientConfig.Builder()
 *         .setNettyTimer(timer)                          // the client does not stop it on close()
 *         .setRequestTimeout(Duration.ofMillis(200))
 *         .build());
 * }</pre>
 *
 * <p>A {@link SlowHttpServer} on 127.0.0.1 answers some requests too late. The program sends
 * requests with a bounded number in flight and prints how they ended: answered, or failed with
 * the client's {@link TimeoutException} ("Request timeout to ... after N ms"), and how long after
 * it was sent each timed-out request failed (never sooner than the timeout). Then it closes the
 * client and shows what the client's documentation says: {@code close()} stops only a timer the
 * client created, so ours still runs, and once the pool cleaner has seen the client closed,
 * nothing of the client's is left pending on it.
 *
 * <p>Two settings keep a shared timer clean, and the program uses both: an
 * {@link EventLoopGroup} is given too (a {@link NioEventLoopGroup}: the client refuses Netty
 * 4.2's {@code MultiThreadIoEventLoopGroup}), so that {@code close()} destroys the connection pool at
 * once (with its own group the client does that only after the group's graceful shutdown, two
 * seconds by default); and no cookie store, because with one (the default) the client schedules
 * a cookie eviction on the timer every 30 s that schedules itself again forever, even after
 * {@code close()}.
 *
 * <p>With {@code --read-timeout}, the client's read timeout does the work instead, and the
 * program counts the requests that failed a whole read timeout late: the client, when its read
 * timeout fires with a millisecond left on its own millisecond clock, arms a new one for the
 * whole period. {@code --tolerance 0ms} runs an exact timer, which lands in that window often;
 * the timer's default tolerance exists so that it does not (see {@code WheelTimer.Builder}).
 * {@code --against-netty true} then sends the same requests (the same ones are slow) four more
 * times, through clients whose timers are Netty's {@code HashedWheelTimer} with a 1 ms tick and
 * ours in turn (Netty's, ours, ours, Netty's: the first pass warms the JVM, whose first client
 * re-arms more on either timer), and prints both timers' counts side by side.
 *
 * <p>Run: {@code java -cp examples/target/examples.jar io.github.timingwheel.examples.AsyncHttpClientTimeouts}
 */
public final class AsyncHttpClientTimeouts {

    static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -cp examples/target/examples.jar io.github.timingwheel.examples.AsyncHttpClientTimeouts"
                    + " [options]",
            "",
            "Options (defaults in brackets):",
            "  --requests N       requests sent [200]",
            "  --in-flight N      requests open at once [16]",
            "  --slow-percent P   share of requests the server answers too late [20]",
            "  --timeout DURATION request timeout, e.g. 200ms [200ms]",
            "  --read-timeout DURATION  a read timeout instead of the request timeout [off]",
            "  --tolerance DURATION     the WheelTimer's tolerance, e.g. 0ms for an exact timer [its default, 2ms]",
            "  --against-netty true|false  compare with Netty's HashedWheelTimer (1 ms tick): 4 more passes [false]",
            "  --help             print this and exit");

    /**
     * How long after the pool cleaner's last possible run the program looks at the timer: ample
     * for a cleaner run that began just before {@code close()} to end on a loaded machine.
     */
    private static final long AFTER_LAST_CLEANER_MILLIS = 400;
    /** Deadline of the uncounted first request, which waits for class loading and the JIT. */
    private static final long WARM_UP_TIMEOUT_MILLIS = 10_000;

    private int requests = 200;
    private int inFlight = 16;
    private int slowPercent = 20;
    private long timeoutMillis = 200;
    /** A read timeout in place of the request timeout; 0 for none. */
    private long readTimeoutMillis;
    /** The timer's tolerance; negative for its default. */
    private long toleranceNanos = -1L;
    /** Whether to send the requests again with Netty's HashedWheelTimer as the client's timer. */
    private boolean againstNetty;

    private AsyncHttpClientTimeouts() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the example; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        AsyncHttpClientTimeouts example = new AsyncHttpClientTimeouts();
        return CommandLine.runExample(args, out, USAGE, example::set, example::play);
    }

    private void set(String name, String value) throws UsageException {
        switch (name) {
            case "--requests" -> requests = CommandLine.positiveInt(name, value);
            case "--in-flight" -> inFlight = CommandLine.positiveInt(name, value);
            case "--slow-percent" -> slowPercent = CommandLine.percent(name, value);
            case "--timeout" -> timeoutMillis = CommandLine.positiveMillis(name, value);
            case "--read-timeout" -> readTimeoutMillis = CommandLine.positiveMillis(name, value);
            case "--tolerance" -> toleranceNanos = CommandLine.duration(name, value, null);
            case "--against-netty" -> againstNetty = CommandLine.bool(name, value);
            default -> throw CommandLine.unknown(name);
        }
    }

    private void play(PrintStream out) throws InterruptedException {
        long slowMillis = 3 * effectiveTimeoutMillis();
        WheelTimer.Builder timerSettings = WheelTimer.builder().name("http-timeouts").daemon(true);
        if (toleranceNanos >= 0) {
            timerSettings.tolerance(toleranceNanos, TimeUnit.NANOSECONDS);
        }
        WheelTimer timer = timerSettings.build();
        EventLoopGroup group = nioEventLoopGroup();
        try (SlowHttpServer server = SlowHttpServer.start(slowPercent, slowMillis)) {
            out.printf("A JDK HttpServer on %s:%d answers within %d ms, but %d%% of requests only after %d ms.%n%n",
                    server.address().getHostString(), server.address().getPort(), SlowServer.FAST_MAX_MILLIS,
                    slowPercent, slowMillis);
            AsyncHttpClientConfig config = clientConfig(timer, group, slowMillis);
            String ours = "setNettyTimer(WheelTimer), timer tolerance "
                    + (toleranceNanos >= 0 ? toleranceNanos / 1_000 + " us" : "default");
            Outcomes outcomes = sendThrough(config, server.baseUrl());
            printOutcomes(out, ours, outcomes);
            if (againstNetty) {
                compareWithNetty(out, config, group, slowMillis, server.baseUrl());
            }
            printAfterClose(out, timer, config.getConnectionPoolCleanerPeriod());
        } catch (IOException e) {
            out.println("could not start the server: " + e);
        } finally {
            timer.stop();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * Sends the same requests four more times, through Netty's timer, ours, ours and Netty's
     * (the first pass above warmed the JVM: a client's first requests in a JVM re-arm more, on
     * either timer), and prints each timer's two passes side by side. Each Netty pass has a
     * timer of its own, stopped before the next pass, so that its ticking thread competes with
     * no pass of ours.
     */
    private void compareWithNetty(PrintStream out, AsyncHttpClientConfig oursConfig, EventLoopGroup group,
            long slowMillis, String baseUrl) throws InterruptedException {
        Outcomes nettyFirst = sendThroughNetty(group, slowMillis, baseUrl);
        Outcomes oursFirst = sendThrough(oursConfig, baseUrl);
        Outcomes oursSecond = sendThrough(oursConfig, baseUrl);
        Outcomes nettySecond = sendThroughNetty(group, slowMillis, baseUrl);
        long periodNanos = TimeUnit.MILLISECONDS.toNanos(effectiveTimeoutMillis());
        out.println();
        out.println("The same requests again, timers in turn (Netty's, ours, ours, Netty's), after the first pass:");
        out.printf("  %-36s %9s %15s %15s %15s%n", "timer", "passes", "timed out", "timed out early",
                "a period late");
        printPasses(out, "WheelTimer (as above)", periodNanos, oursFirst, oursSecond);
        printPasses(out, "HashedWheelTimer, 1 ms tick", periodNanos, nettyFirst, nettySecond);
    }

    /** A pass through a client on a new HashedWheelTimer with a 1 ms tick, stopped afterwards. */
    private Outcomes sendThroughNetty(EventLoopGroup group, long slowMillis, String baseUrl)
            throws InterruptedException {
        HashedWheelTimer netty = new HashedWheelTimer(new DefaultThreadFactory("hwt-1ms", true), 1,
                TimeUnit.MILLISECONDS);
        try {
            return sendThrough(clientConfig(netty, group, slowMillis), baseUrl);
        } finally {
            netty.stop();
        }
    }

    private static void printPasses(PrintStream out, String timer, long periodNanos, Outcomes first, Outcomes second) {
        out.printf("  %-36s %9s %,7d + %,5d %,7d + %,5d %,7d + %,5d%n", timer, "1 + 2",
                first.timedOut(), second.timedOut(),
                first.timedOutSoonerThan(periodNanos), second.timedOutSoonerThan(periodNanos),
                first.timedOutAtLeast(periodNanos * 3 / 2), second.timedOutAtLeast(periodNanos * 3 / 2));
    }

    private AsyncHttpClientConfig clientConfig(Timer timer, EventLoopGroup group, long slowMillis) {
        DefaultAsyncHttpClientConfig.Builder settings = new DefaultAsyncHttpClientConfig.Builder()
                .setNettyTimer(timer)
                .setEventLoopGroup(group)
                .setCookieStore(null);
        if (readTimeoutMillis > 0) {
            // The read timeout fires first; the request timeout only backs it up.
            settings.setReadTimeout(Duration.ofMillis(readTimeoutMillis))
                    .setRequestTimeout(Duration.ofMillis(2 * slowMillis));
        } else {
            settings.setRequestTimeout(Duration.ofMillis(timeoutMillis));
        }
        return settings.build();
    }

    /** Sends a warm-up request and then every counted one through a new client, and closes it. */
    private Outcomes sendThrough(AsyncHttpClientConfig config, String baseUrl) throws InterruptedException {
        AsyncHttpClient client = new DefaultAsyncHttpClient(config);
        try {
            client.prepareGet(baseUrl + "/-1")
                    .setRequestTimeout(Duration.ofMillis(WARM_UP_TIMEOUT_MILLIS))
                    .setReadTimeout(Duration.ofMillis(WARM_UP_TIMEOUT_MILLIS))
                    .execute().toCompletableFuture().join();
            return send(client, baseUrl);
        } finally {
            try {
                client.close(); // stops only a timer the client created itself
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The timeout the slow replies are measured against: the read timeout if one is set. */
    private long effectiveTimeoutMillis() {
        return readTimeoutMillis > 0 ? readTimeoutMillis : timeoutMillis;
    }

    /**
     * The client takes a group it knows the transport of, and for NIO it knows Netty 4.1's
     * {@link NioEventLoopGroup} (deprecated in 4.2 for {@code MultiThreadIoEventLoopGroup}, which
     * it refuses).
     */
    @SuppressWarnings("deprecation")
    private static EventLoopGroup nioEventLoopGroup() {
        return new NioEventLoopGroup(2);
    }

    /** Sends every request, at most {@code inFlight} at once, and waits until each has ended. */
    private Outcomes send(AsyncHttpClient client, String baseUrl) throws InterruptedException {
        Semaphore window = new Semaphore(inFlight);
        List<CompletableFuture<Outcome>> all = new ArrayList<>();
        for (long id = 0; id < requests; id++) {
            window.acquire(); // a client keeps a bounded number of requests open
            long sentAt = System.nanoTime();
            CompletableFuture<Outcome> outcome = client.prepareGet(baseUrl + "/" + id)
                    .execute()
                    .toCompletableFuture()
                    .handle((response, failure) -> Outcome.of(response == null ? -1 : response.getStatusCode(),
                            failure, System.nanoTime() - sentAt));
            outcome.whenComplete((ended, failure) -> window.release());
            all.add(outcome);
        }
        return Outcomes.of(all.stream().map(CompletableFuture::join).toList());
    }

    private void printOutcomes(PrintStream out, String timerSetting, Outcomes outcomes) {
        long slow = 0;
        for (long id = 0; id < requests; id++) {
            slow += SlowServer.isSlow(id, slowPercent) ? 1 : 0;
        }
        long timeout = effectiveTimeoutMillis();
        String kind = readTimeoutMillis > 0 ? "read" : "request";
        out.printf("AsyncHttpClient with %s timeout %d ms, %s:%n", kind, timeout, timerSetting);
        out.printf("%,d requests, at most %d in flight%n", requests, inFlight);
        out.printf("  answered        %,6d  (status 200)%n", outcomes.answered());
        out.printf("  timed out       %,6d  (TimeoutException from the client's %s timeout)%n",
                outcomes.timedOut(), kind);
        out.printf("  server slow     %,6d  (its reply came after the timeout)%n", slow);
        out.printf("  timed out early %,6d  (failed sooner than %d ms after it was sent)%n",
                outcomes.timedOutSoonerThan(TimeUnit.MILLISECONDS.toNanos(timeout)), timeout);
        if (readTimeoutMillis > 0) {
            // The client re-arms its read timeout for a whole period when it fires with a
            // millisecond left on its own clock; such a request fails about twice as late.
            out.printf("  a period late   %,6d  (failed 1.5 read timeouts or more after it was sent: the"
                    + " client re-armed for a whole period)%n",
                    outcomes.timedOutAtLeast(TimeUnit.MILLISECONDS.toNanos(timeout) * 3 / 2));
        }
        if (outcomes.timedOut() > 0) {
            out.printf("  timed out after %.1f to %.1f ms%n", outcomes.minTimedOutNanos() / 1e6,
                    outcomes.maxTimedOutNanos() / 1e6);
        }
        out.printf("  other failures  %,6d%s%n", outcomes.otherFailures(), outcomes.firstOtherFailure());
    }

    /**
     * After {@code close()}: the timer still runs, and once the pool cleaner's last run has
     * passed, nothing is pending. A timeout due well after that last run proves both: the timer
     * fires it, and with one worker and deadline order, the cleaner's last run has ended by then.
     * Then the program stops the timer, which waits for its worker, so that every count is in.
     */
    private static void printAfterClose(PrintStream out, WheelTimer timer, Duration cleanerPeriod)
            throws InterruptedException {
        CountDownLatch fired = new CountDownLatch(1);
        long delayMillis = cleanerPeriod.toMillis() + AFTER_LAST_CLEANER_MILLIS;
        timer.newTimeout(timeout -> fired.countDown(), delayMillis, TimeUnit.MILLISECONDS);
        boolean stillRuns = fired.await(WARM_UP_TIMEOUT_MILLIS + delayMillis, TimeUnit.MILLISECONDS);
        out.println();
        out.println("After client.close():");
        out.printf("  our timer still runs: a timeout scheduled after close() %s%n",
                stillRuns ? "fired" : "did NOT fire");
        out.printf("  pending timeouts: %d (every request timeout fired or was cancelled; the pool cleaner"
                + " stopped)%n", timer.pendingTimeouts());
        int unprocessed = timer.stop().size();
        out.printf("  timer.stop() returned %d unprocessed timeouts; the timer's metrics:%n", unprocessed);
        out.printf("  %s%n", timer.metrics());
    }

    /** How one request ended; {@code nanos} from sending it until then. */
    record Outcome(int status, Throwable failure, long nanos) {
        static Outcome of(int status, Throwable failure, long nanos) {
            Throwable cause = failure;
            while (cause != null && cause.getCause() != null && !(cause instanceof TimeoutException)) {
                cause = cause.getCause();
            }
            return new Outcome(status, cause, nanos);
        }

        boolean timedOut() {
            return failure instanceof TimeoutException;
        }
    }

    /** What all requests did. */
    record Outcomes(List<Outcome> all) {
        static Outcomes of(List<Outcome> all) {
            return new Outcomes(all);
        }

        long answered() {
            return all.stream().filter(o -> o.failure() == null && o.status() == 200).count();
        }

        long timedOut() {
            return all.stream().filter(Outcome::timedOut).count();
        }

        long timedOutAtLeast(long nanos) {
            return all.stream().filter(Outcome::timedOut).filter(o -> o.nanos() >= nanos).count();
        }

        long timedOutSoonerThan(long nanos) {
            return all.stream().filter(Outcome::timedOut).filter(o -> o.nanos() < nanos).count();
        }

        long minTimedOutNanos() {
            return all.stream().filter(Outcome::timedOut).mapToLong(Outcome::nanos).min().orElse(0);
        }

        long maxTimedOutNanos() {
            return all.stream().filter(Outcome::timedOut).mapToLong(Outcome::nanos).max().orElse(0);
        }

        long otherFailures() {
            return all.size() - answered() - timedOut();
        }

        /** The first failure that is not a timeout, for the report, or nothing. */
        String firstOtherFailure() {
            return all.stream()
                    .filter(o -> !o.timedOut() && (o.failure() != null || o.status() != 200))
                    .findFirst()
                    .map(o -> "  (first: " + (o.failure() != null ? o.failure() : "status " + o.status()) + ")")
                    .orElse("");
        }
    }
}
