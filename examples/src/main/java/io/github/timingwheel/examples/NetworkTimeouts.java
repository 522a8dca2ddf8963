package io.github.timingwheel.examples;

import io.github.timingwheel.examples.CommandLine.UsageException;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;
import io.netty.handler.codec.string.StringEncoder;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Network timeout handling with real sockets: a {@link SlowServer} on loopback that answers
 * some requests too slowly, and two clients that give every request a deadline.
 *
 * <ol>
 *   <li>Per-request deadlines through a Netty {@link Timer} (our {@link WheelTimer}): many
 *       requests share a few connections; a deadline that fires fails its request with a
 *       {@link TimeoutException}; a reply cancels its deadline.
 *   <li>Per-connection deadlines through a {@link ScheduledExecutorService} (our
 *       {@link WheelScheduledExecutor}): each request has a connection of its own, and a
 *       deadline that fires closes it.
 * </ol>
 *
 * <p>Run: {@code java -cp examples/target/examples.jar io.github.timingwheel.examples.NetworkTimeouts}
 */
public final class NetworkTimeouts {

    static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -cp examples/target/examples.jar io.github.timingwheel.examples.NetworkTimeouts [options]",
            "",
            "Options (defaults in brackets):",
            "  --requests N       requests with a deadline from the Timer client [1000]",
            "  --connections N    connections they share [4]",
            "  --slow-percent P   share of requests the server answers too late [20]",
            "  --timeout DURATION deadline of each request, e.g. 100ms [100ms]",
            "  --help             print this and exit");

    /** Deadline of the uncounted first request on each connection. */
    private static final long PING_TIMEOUT_MILLIS = 10_000;
    /** Requests a client keeps open on each shared connection. */
    private static final int IN_FLIGHT_PER_CONNECTION = 8;
    /** Connections the one-request-per-connection client keeps open. */
    private static final int OPEN_CONNECTIONS = 16;

    private int requests = 1000;
    private int connections = 4;
    private int slowPercent = 20;
    private long timeoutMillis = 100;

    private NetworkTimeouts() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the example; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        NetworkTimeouts example = new NetworkTimeouts();
        return CommandLine.runExample(args, out, USAGE, example::set, example::play);
    }

    private void set(String name, String value) throws UsageException {
        switch (name) {
            case "--requests" -> requests = CommandLine.positiveInt(name, value);
            case "--connections" -> connections = CommandLine.positiveInt(name, value);
            case "--slow-percent" -> slowPercent = CommandLine.percent(name, value);
            case "--timeout" -> timeoutMillis = Math.max(1,
                    TimeUnit.NANOSECONDS.toMillis(CommandLine.positiveDuration(name, value)));
            default -> throw CommandLine.unknown(name);
        }
    }

    private void play(PrintStream out) throws InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        WheelTimer timer = WheelTimer.builder().daemon(true).build();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        try {
            long slowMillis = 3 * timeoutMillis;
            Channel server = SlowServer.start(group, slowPercent, slowMillis);
            InetSocketAddress address = (InetSocketAddress) server.localAddress();
            out.printf("A server on %s:%d answers within %d ms, but %d%% of requests only after %d ms.%n%n",
                    address.getHostString(), address.getPort(), SlowServer.FAST_MAX_MILLIS, slowPercent, slowMillis);

            Tally shared = new RequestClient(group, address, timer, timeoutMillis).send(requests, connections);
            out.printf("Per-request deadlines of %d ms through WheelTimer (a Netty Timer):%n", timeoutMillis);
            out.printf("%,d requests on %d connections, at most %d open on each%n", requests, connections,
                    IN_FLIGHT_PER_CONNECTION);
            shared.print(out, "failed with a TimeoutException; the connection stays open", slowPercent, 0);

            int ownConnections = Math.max(1, requests / 10);
            Tally separate = new ConnectionClient(group, address, executor, timeoutMillis)
                    .send(ownConnections, requests);
            out.printf("%nPer-connection deadlines of %d ms through WheelScheduledExecutor"
                    + " (a ScheduledExecutorService):%n", timeoutMillis);
            out.printf("%,d requests, each on a connection of its own, at most %d open at once%n",
                    ownConnections, OPEN_CONNECTIONS);
            separate.print(out, "the deadline closed the connection", slowPercent, requests);
            server.close().sync();
        } finally {
            timer.stop();
            executor.shutdownNow();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** How the requests ended. */
    record Tally(int answered, int timedOut) {
        void print(PrintStream out, String timedOutMeans, int slowPercent, long firstId) {
            long slow = 0;
            for (long id = firstId; id < firstId + answered + timedOut; id++) {
                slow += SlowServer.isSlow(id, slowPercent) ? 1 : 0;
            }
            out.printf("  answered     %,6d%n", answered);
            out.printf("  timed out    %,6d  (%s)%n", timedOut, timedOutMeans);
            out.printf("  server slow  %,6d  (its reply came after the deadline, if at all)%n", slow);
        }

        static Tally of(List<CompletableFuture<?>> outcomes) {
            int answered = 0;
            int timedOut = 0;
            for (CompletableFuture<?> outcome : outcomes) {
                try {
                    outcome.join();
                    answered++;
                } catch (CompletionException e) {
                    if (!(e.getCause() instanceof TimeoutException)) {
                        throw e;
                    }
                    timedOut++;
                }
            }
            return new Tally(answered, timedOut);
        }
    }

    /**
     * Many requests on a few connections; each request has its own deadline on a Netty
     * {@link Timer}. Replies are matched to requests by their number.
     */
    private static final class RequestClient {
        private final EventLoopGroup group;
        private final InetSocketAddress address;
        private final Timer timer;
        private final long timeoutMillis;
        /** Requests sent and not yet answered or timed out, by number. */
        private final Map<Long, CompletableFuture<String>> inFlight = new ConcurrentHashMap<>();

        RequestClient(EventLoopGroup group, InetSocketAddress address, Timer timer, long timeoutMillis) {
            this.group = group;
            this.address = address;
            this.timer = timer;
            this.timeoutMillis = timeoutMillis;
        }

        Tally send(int requests, int connections) throws InterruptedException {
            List<Channel> channels = new ArrayList<>();
            Bootstrap bootstrap = clientBootstrap(group, new Replies());
            for (int i = 0; i < connections; i++) {
                channels.add(bootstrap.connect(address).sync().channel());
            }
            // The first requests in a fresh JVM wait for class loading and the JIT: one ping per
            // connection, with a generous deadline, and not counted.
            for (int i = 0; i < connections; i++) {
                request(channels.get(i), -1 - i, PING_TIMEOUT_MILLIS).join();
            }
            Semaphore window = new Semaphore(IN_FLIGHT_PER_CONNECTION * connections);
            List<CompletableFuture<?>> outcomes = new ArrayList<>();
            for (long id = 0; id < requests; id++) {
                window.acquire(); // a client keeps a bounded number of requests open
                CompletableFuture<String> reply = request(channels.get((int) (id % connections)), id, timeoutMillis);
                reply.whenComplete((answer, failure) -> window.release());
                outcomes.add(reply);
            }
            Tally tally = Tally.of(outcomes);
            for (Channel channel : channels) {
                channel.close().sync();
            }
            return tally;
        }

        /** Sends request {@code id} with a deadline. */
        private CompletableFuture<String> request(Channel channel, long id, long timeoutMillis) {
            CompletableFuture<String> reply = new CompletableFuture<>();
            inFlight.put(id, reply);
            Timeout deadline = timer.newTimeout(expired -> {
                if (inFlight.remove(id, reply)) {
                    reply.completeExceptionally(
                            new TimeoutException("request " + id + ": no reply in " + timeoutMillis + " ms"));
                }
            }, timeoutMillis, TimeUnit.MILLISECONDS);
            reply.whenComplete((answer, failure) -> deadline.cancel()); // a reply cancels its deadline
            channel.writeAndFlush(id + "\n");
            return reply;
        }

        /** Completes the request a reply answers; a reply after the deadline finds none. */
        @ChannelHandler.Sharable
        private final class Replies extends SimpleChannelInboundHandler<String> {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, String line) {
                CompletableFuture<String> reply = inFlight.remove(Long.parseLong(line.trim()));
                if (reply != null) {
                    reply.complete(line);
                }
            }
        }
    }

    /**
     * One request per connection; the connection's deadline is a task on a
     * {@link ScheduledExecutorService} that closes it.
     */
    private static final class ConnectionClient {
        private final EventLoopGroup group;
        private final InetSocketAddress address;
        private final ScheduledExecutorService executor;
        private final long timeoutMillis;

        ConnectionClient(EventLoopGroup group, InetSocketAddress address, ScheduledExecutorService executor,
                long timeoutMillis) {
            this.group = group;
            this.address = address;
            this.executor = executor;
            this.timeoutMillis = timeoutMillis;
        }

        Tally send(int requests, long firstId) throws InterruptedException {
            Semaphore window = new Semaphore(OPEN_CONNECTIONS);
            List<CompletableFuture<?>> outcomes = new ArrayList<>();
            for (long id = firstId; id < firstId + requests; id++) {
                window.acquire(); // a client keeps a bounded number of connections open
                CompletableFuture<String> reply = request(id);
                reply.whenComplete((answer, failure) -> window.release());
                outcomes.add(reply);
            }
            return Tally.of(outcomes);
        }

        private CompletableFuture<String> request(long id) {
            CompletableFuture<String> reply = new CompletableFuture<>();
            Bootstrap bootstrap = clientBootstrap(group, new SimpleChannelInboundHandler<String>() {
                @Override
                protected void channelRead0(ChannelHandlerContext ctx, String line) {
                    reply.complete(line);
                    ctx.close();
                }
            });
            bootstrap.connect(address).addListener((ChannelFutureListener) connected -> {
                if (!connected.isSuccess()) {
                    reply.completeExceptionally(connected.cause());
                    return;
                }
                Channel channel = connected.channel();
                ScheduledFuture<?> deadline = executor.schedule(() -> {
                    channel.close(); // the deadline closes the connection
                }, timeoutMillis, TimeUnit.MILLISECONDS);
                reply.whenComplete((answer, failure) -> deadline.cancel(false)); // a reply cancels it
                channel.closeFuture().addListener(closed -> reply.completeExceptionally(
                        new TimeoutException("request " + id + ": connection closed after " + timeoutMillis + " ms")));
                channel.writeAndFlush(id + "\n");
            });
            return reply;
        }
    }

    /** A client bootstrap whose pipeline frames lines and ends in {@code handler}. */
    private static Bootstrap clientBootstrap(EventLoopGroup group, ChannelHandler handler) {
        return new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channel.pipeline().addLast(
                                new LineBasedFrameDecoder(64),
                                new StringDecoder(StandardCharsets.US_ASCII),
                                new StringEncoder(StandardCharsets.US_ASCII),
                                handler);
                    }
                });
    }
}
