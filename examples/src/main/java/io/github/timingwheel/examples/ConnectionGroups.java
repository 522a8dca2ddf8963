package io.github.timingwheel.examples;

import io.github.timingwheel.examples.CommandLine.UsageException;
import io.github.timingwheel.executor.RearmableFuture;
import io.github.timingwheel.executor.SchedulerMetrics;
import io.github.timingwheel.executor.TaskGroup;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.micrometer.WheelSchedulerMetrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connection's timers as one group ({@link TaskGroup}): each simulated connection arms a
 * request timeout, an idle timeout that every read pushes back ({@code touch}) and a keep-alive,
 * all in a group of its own, and closing the connection calls the group's {@code cancelAll()},
 * which cancels whatever of the three is left, in one call and at O(1) per timer, without
 * waiting (the group's {@code close()} would wait for them, as {@code ExecutorService.close()}
 * does). Most connections answer in time and
 * are closed by the client; a few stall, and their request timeout fires and closes the
 * connection from inside the timer, as a handler would. The executor is bound to a Micrometer
 * registry, whose meters show the same counts as {@code metrics()}.
 *
 * <p>Run: {@code java -cp examples/target/examples.jar io.github.timingwheel.examples.ConnectionGroups}
 */
public final class ConnectionGroups {

    static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -cp examples/target/examples.jar io.github.timingwheel.examples.ConnectionGroups [options]",
            "",
            "Options (defaults in brackets):",
            "  --connections N          connections opened and closed [100000]",
            "  --stalled N              of them, connections whose peer never answers [20]",
            "  --request-timeout DURATION  how long a stalled connection waits [100ms]",
            "  --help                   print this and exit");

    /** Reads per connection before it closes: each pushes the idle timeout back. */
    private static final int READS = 3;

    private int connections = 100_000;
    private long stalled = 20;
    private long requestTimeoutMillis = 100;

    private ConnectionGroups() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the example; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        ConnectionGroups example = new ConnectionGroups();
        return CommandLine.runExample(args, out, USAGE, example::set, example::play);
    }

    private void set(String name, String value) throws UsageException {
        switch (name) {
            case "--connections" -> connections = CommandLine.positiveInt(name, value);
            case "--stalled" -> stalled = CommandLine.nonNegative(name, value);
            case "--request-timeout" -> requestTimeoutMillis = CommandLine.positiveMillis(name, value);
            default -> throw CommandLine.unknown(name);
        }
    }

    /** A connection's timers, and what became of it. */
    private static final class Connection {
        final TaskGroup timers;
        final RearmableFuture<Void> idle;
        final AtomicInteger closes = new AtomicInteger();

        Connection(WheelScheduledExecutor executor, long requestTimeoutMillis, Runnable onTimeout) {
            this.timers = executor.newGroup();
            this.idle = timers.scheduleRearmable(this::close, 60, TimeUnit.SECONDS);
            timers.scheduleWithFixedDelay(() -> { }, 15, 15, TimeUnit.SECONDS); // a keep-alive ping
            // Armed last: a short request timeout may fire, and close the group, before this
            // constructor returns; a group refuses new timers once closed.
            timers.schedule(() -> {
                close(); // from inside the timer: cancels the idle timeout and the keep-alive
                onTimeout.run();
            }, requestTimeoutMillis, TimeUnit.MILLISECONDS);
        }

        void read() {
            idle.touch();
        }

        void close() {
            if (closes.incrementAndGet() == 1) {
                timers.cancelAll();
            }
        }
    }

    private void play(PrintStream out) throws InterruptedException {
        int stalledConnections = (int) Math.min(stalled, connections);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().name("connections").workers(1)
                .daemon(true).build();
        try (executor) {
            WheelSchedulerMetrics.monitor(registry, executor, Tags.of("example", "connection-groups"));
            CountDownLatch timedOut = new CountDownLatch(stalledConnections);
            List<Connection> stalledOnes = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < connections; i++) {
                boolean stalls = i < stalledConnections;
                long timeout = stalls ? requestTimeoutMillis : TimeUnit.SECONDS.toMillis(30);
                Connection connection = new Connection(executor, timeout, timedOut::countDown);
                if (stalls) {
                    stalledOnes.add(connection);
                    continue;
                }
                for (int read = 0; read < READS; read++) {
                    connection.read();
                }
                connection.close(); // the response came: the client closes, the group cancels all three
            }
            long elapsed = System.nanoTime() - start;
            int answered = connections - stalledConnections;
            out.printf("opened and closed %,d connections, 3 timers each, %d reads each: %.0f ns per connection%n",
                    answered, READS, elapsed / (double) Math.max(1, answered));
            boolean allFired = timedOut.await(requestTimeoutMillis + 10_000, TimeUnit.MILLISECONDS);
            int closedOnce = 0;
            for (Connection connection : stalledOnes) {
                closedOnce += connection.closes.get() == 1 && connection.timers.pendingTasks() == 0 ? 1 : 0;
            }
            out.printf("stalled connections: %d, request timeouts fired: %d, closed by their timeout with no"
                    + " timer left: %d%n", stalledConnections, stalledConnections - timedOut.getCount(), closedOnce);
            if (!allFired) {
                out.println("(some request timeouts had not fired within 10 s)");
            }
        } // close(): nothing is left to wait for, and every run has been counted
        SchedulerMetrics metrics = executor.metrics();
        out.printf("the executor: pending %d, scheduled %,d, cancelled %,d, ran %d%n",
                metrics.pending(), metrics.scheduled(), metrics.cancelled(), metrics.ran());
        out.printf("Micrometer: timingwheel.pending %.0f, timingwheel.cancelled %.0f%n",
                registry.get("timingwheel.pending").gauge().value(),
                registry.get("timingwheel.cancelled").functionCounter().count());
    }
}
