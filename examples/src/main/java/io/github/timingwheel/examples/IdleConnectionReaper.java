package io.github.timingwheel.examples;

import io.github.timingwheel.executor.RearmableFuture;
import io.github.timingwheel.executor.SchedulerMetrics;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * An idle-connection reaper for a socket server: every connection has an idle timeout that
 * each read pushes back, and a connection that stays quiet for the whole timeout is closed.
 * Two ways to write it, side by side:
 * <ul>
 *   <li>{@link #touching}: one re-armable timeout per connection
 *       ({@link WheelScheduledExecutor#scheduleRearmable}), and a {@code touch()} per read: one
 *       CAS, no allocation, no queue or wheel work. The wheel keeps the timeout where it was and
 *       re-links it once when that old deadline comes, for what is left.
 *   <li>{@link #cancelAndSchedule}: what a {@code ScheduledExecutorService} user writes today,
 *       and what runs on any executor: on every read, cancel the pending timeout and schedule a
 *       new one (an allocation, and two trips through the scheduler's queue).
 * </ul>
 * The server is plain NIO: one selector thread accepts and reads; the timeouts close the
 * channel from the scheduler's thread ({@link SocketChannel#close()} is thread-safe and wakes
 * the selector).
 *
 * <p>Run: {@code java -cp examples/target/examples.jar io.github.timingwheel.examples.IdleConnectionReaper
 * [--connections N] [--idle DURATION] [--seconds N]}: half the connections write a byte every
 * 10 ms, the other half go quiet; both ways reap the quiet half, and the scheduler's metrics say
 * what each cost.
 */
public final class IdleConnectionReaper implements AutoCloseable {

    /** How a connection's idle timeout is armed and pushed back; the server calls it. */
    public interface IdleTimeouts {
        /** Arms the timeout of a new connection; returns its handle. */
        Object arm(Runnable onIdle);

        /** Pushes the timeout back: the connection was active. Called on the selector thread. */
        void activity(Object handle);

        /** Ends the timeout of a connection that closed first. */
        void disarm(Object handle);
    }

    /** One re-armable timeout per connection, touched on every read. */
    public static IdleTimeouts touching(WheelScheduledExecutor scheduler, long idle, TimeUnit unit) {
        return new IdleTimeouts() {
            @Override
            public Object arm(Runnable onIdle) {
                return scheduler.scheduleRearmable(onIdle, idle, unit);
            }

            @Override
            public void activity(Object handle) {
                ((RearmableFuture<?>) handle).touch();
            }

            @Override
            public void disarm(Object handle) {
                ((RearmableFuture<?>) handle).cancel(false);
            }
        };
    }

    /** A new timeout on every read, after cancelling the last: works on any executor. */
    public static IdleTimeouts cancelAndSchedule(ScheduledExecutorService scheduler, long idle, TimeUnit unit) {
        /** The pending timeout; written only by the selector thread, read by it. */
        final class Slot {
            ScheduledFuture<?> pending;
            Runnable onIdle;
        }
        return new IdleTimeouts() {
            @Override
            public Object arm(Runnable onIdle) {
                Slot slot = new Slot();
                slot.onIdle = onIdle;
                slot.pending = scheduler.schedule(onIdle, idle, unit);
                return slot;
            }

            @Override
            public void activity(Object handle) {
                Slot slot = (Slot) handle;
                slot.pending.cancel(false);
                slot.pending = scheduler.schedule(slot.onIdle, idle, unit);
            }

            @Override
            public void disarm(Object handle) {
                ((Slot) handle).pending.cancel(false);
            }
        };
    }

    private final IdleTimeouts timeouts;
    private final Selector selector;
    private final ServerSocketChannel server;
    private final Thread selectorThread;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
    private final AtomicInteger open = new AtomicInteger();
    private final LongAdder reads = new LongAdder();
    private final LongAdder reaped = new LongAdder();
    /** Released once per connection accepted, and once per read; for tests and the demo. */
    private final Semaphore accepted = new Semaphore(0);
    private final Semaphore readsSeen = new Semaphore(0);
    private volatile boolean closing;

    /** Starts a server on a free loopback port whose connections are reaped by {@code timeouts}. */
    public IdleConnectionReaper(IdleTimeouts timeouts) throws IOException {
        this.timeouts = timeouts;
        this.selector = Selector.open();
        this.server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        this.selectorThread = new Thread(this::selectLoop, "idle-reaper-selector");
        selectorThread.setDaemon(true);
        selectorThread.start();
    }

    public InetSocketAddress address() throws IOException {
        return (InetSocketAddress) server.getLocalAddress();
    }

    /** Connections open on the server side now. */
    public int open() {
        return open.get();
    }

    /** Connections closed because they were idle. */
    public long reaped() {
        return reaped.sum();
    }

    public long reads() {
        return reads.sum();
    }

    /** Waits until the server has accepted {@code count} more connections. */
    public void awaitAccepted(int count) throws InterruptedException {
        accepted.acquire(count);
    }

    /** Waits until the server has read (and touched for) {@code count} more times. */
    public void awaitReads(int count) throws InterruptedException {
        readsSeen.acquire(count);
    }

    /** A connection and its idle timeout. */
    private final class Connection {
        final SocketChannel channel;
        final Object idle;
        final AtomicBoolean closed = new AtomicBoolean();

        Connection(SocketChannel channel) {
            this.channel = channel;
            this.idle = timeouts.arm(this::reap);
        }

        /** On the scheduler's thread: the timeout passed without a read. */
        void reap() {
            reaped.increment();
            closeQuietly();
        }

        /** Closes once, whichever of the reaper and the selector (end of stream) comes first. */
        void closeQuietly() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            open.decrementAndGet();
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    private void selectLoop() {
        try {
            while (!closing) {
                selector.select();
                for (SelectionKey key : selector.selectedKeys()) {
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        accept();
                    } else if (key.isReadable()) {
                        read(key);
                    }
                }
                selector.selectedKeys().clear();
            }
        } catch (IOException e) {
            if (!closing) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private void accept() throws IOException {
        for (SocketChannel channel; (channel = server.accept()) != null; ) {
            channel.configureBlocking(false);
            open.incrementAndGet();
            Connection connection = new Connection(channel);
            channel.register(selector, SelectionKey.OP_READ, connection);
            accepted.release();
        }
    }

    private void read(SelectionKey key) {
        Connection connection = (Connection) key.attachment();
        int n;
        try {
            buffer.clear();
            n = connection.channel.read(buffer);
        } catch (IOException reset) {
            n = -1;
        }
        if (n < 0) {
            timeouts.disarm(connection.idle);
            connection.closeQuietly();
            return;
        }
        timeouts.activity(connection.idle); // the whole point: every read pushes the timeout back
        reads.increment();
        readsSeen.release();
    }

    @Override
    public void close() throws IOException {
        closing = true;
        selector.wakeup();
        try {
            selectorThread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SelectionKey key : selector.keys()) {
            if (key.attachment() instanceof Connection connection) {
                timeouts.disarm(connection.idle);
                connection.closeQuietly();
            }
        }
        server.close();
        selector.close();
    }

    static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -cp examples/target/examples.jar io.github.timingwheel.examples.IdleConnectionReaper"
                    + " [options]",
            "",
            "Options (defaults in brackets):",
            "  --connections N      client connections, half of them active [400]",
            "  --idle DURATION      idle timeout of each connection [500ms]",
            "  --seconds N          how long the active half writes, every 10 ms [2]",
            "  --help               print this and exit");

    /** The command line's settings, and the run they set up. */
    private static final class Run {
        int connections = 400;
        long idleMillis = 500L;
        long seconds = 2L;

        void set(String name, String value) throws CommandLine.UsageException {
            switch (name) {
                case "--connections" -> connections = CommandLine.positiveInt(name, value);
                case "--idle" -> idleMillis = CommandLine.positiveMillis(name, value);
                case "--seconds" -> seconds = CommandLine.positiveInt(name, value);
                default -> throw CommandLine.unknown(name);
            }
        }

        /** Runs both ways on the same load; prints what each reaped and what it cost the scheduler. */
        void play(PrintStream out) throws InterruptedException {
            for (String way : List.of("touch", "cancel+schedule")) {
                try {
                    playOneWay(way, out);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }

        private void playOneWay(String way, PrintStream out) throws IOException, InterruptedException {
            WheelScheduledExecutor scheduler = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
            IdleTimeouts timeouts = way.equals("touch")
                    ? touching(scheduler, idleMillis, TimeUnit.MILLISECONDS)
                    : cancelAndSchedule(scheduler, idleMillis, TimeUnit.MILLISECONDS);
            try (IdleConnectionReaper reaper = new IdleConnectionReaper(timeouts)) {
                List<SocketChannel> clients = new ArrayList<>();
                for (int i = 0; i < connections; i++) {
                    clients.add(SocketChannel.open(reaper.address()));
                }
                reaper.awaitAccepted(connections);
                ByteBuffer one = ByteBuffer.allocate(1);
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
                while (System.nanoTime() - end < 0) {
                    for (int i = 0; i < connections; i += 2) { // the even half stays active
                        one.clear();
                        clients.get(i).write(one);
                    }
                    Thread.sleep(10); // the clients' pace, not a wait for the server
                }
                SchedulerMetrics metrics = scheduler.metrics();
                out.printf("%-16s %d connections, idle %d ms, %d s: reads %d, reaped %d, open %d;"
                        + " scheduler: scheduled %d, cancelled %d, re-arms %d%n",
                        way, connections, idleMillis, seconds, reaper.reads(), reaper.reaped(), reaper.open(),
                        metrics.scheduled(), metrics.cancelled(), metrics.rearms());
                for (SocketChannel client : clients) {
                    client.close();
                }
            } finally {
                scheduler.shutdownNow();
            }
        }
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the example; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        Run run = new Run();
        return CommandLine.runExample(args, out, USAGE, run::set, run::play);
    }
}
