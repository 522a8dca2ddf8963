package io.github.timingwheel.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP server of {@link AsyncHttpClientTimeouts}: the JDK's own {@link HttpServer} on
 * 127.0.0.1 and a free port. {@code GET /N} answers {@code N} with status 200, within
 * {@link SlowServer#FAST_MAX_MILLIS} ms, or after {@code slowMillis} if request {@code N}
 * {@linkplain SlowServer#isSlow is slow} (the same requests as {@link SlowServer}'s). The
 * replies are delayed on a JDK {@link ScheduledThreadPoolExecutor} of the server's own, so that
 * the client's timer counts only the client's timeouts; a reply to a client that gave up finds
 * the connection closed and is dropped.
 */
final class SlowHttpServer implements AutoCloseable {

    private final HttpServer server;
    private final ScheduledExecutorService replies;

    private SlowHttpServer(HttpServer server, ScheduledExecutorService replies) {
        this.server = server;
        this.replies = replies;
    }

    /** Binds and starts the server. */
    static SlowHttpServer start(int slowPercent, long slowMillis) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        ScheduledThreadPoolExecutor replies = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "slow-http-server-replies");
            thread.setDaemon(true);
            return thread;
        });
        replies.setRemoveOnCancelPolicy(true);
        server.createContext("/", exchange -> {
            long id = Long.parseLong(exchange.getRequestURI().getPath().substring(1));
            long millis = SlowServer.isSlow(id, slowPercent)
                    ? slowMillis
                    : Math.floorMod(id, SlowServer.FAST_MAX_MILLIS + 1);
            replies.schedule(() -> reply(exchange, id), millis, TimeUnit.MILLISECONDS);
        });
        server.start();
        return new SlowHttpServer(server, replies);
    }

    /** Where requests go: {@code http://127.0.0.1:port}, without a trailing slash. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    InetSocketAddress address() {
        return server.getAddress();
    }

    private static void reply(HttpExchange exchange, long id) {
        byte[] body = Long.toString(id).getBytes(StandardCharsets.US_ASCII);
        try (exchange; OutputStream out = exchange.getResponseBody()) {
            exchange.sendResponseHeaders(200, body.length);
            out.write(body);
        } catch (IOException e) {
            // The client gave up and closed the connection: the reply is dropped.
        }
    }

    /** Stops the server at once; replies not yet sent are dropped. */
    @Override
    public void close() {
        replies.shutdownNow();
        server.stop(0);
    }
}
