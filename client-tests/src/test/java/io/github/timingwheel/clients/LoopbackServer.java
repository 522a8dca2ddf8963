package io.github.timingwheel.clients;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A server on a loopback socket for the client tests, a daemon thread per connection; a
 * subclass says what a connection is served. Its constructor calls {@link #start()} last, so
 * that the acceptor sees the subclass's fields set.
 */
abstract class LoopbackServer implements AutoCloseable {

    private final ServerSocket socket = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private final String name;

    /** @param name the start of its threads' names */
    LoopbackServer(String name) throws IOException {
        this.name = name;
    }

    /** Serves one connection until it ends, on that connection's own thread; closes it. */
    abstract void serve(Socket connection);

    /** Starts accepting; call once, at the end of the subclass's constructor. */
    final void start() {
        Thread acceptor = new Thread(this::accept, name + "-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    final int port() {
        return socket.getLocalPort();
    }

    /** Connections accepted so far. */
    final int connections() {
        return accepted.size();
    }

    private void accept() {
        try {
            for (;;) {
                Socket connection = socket.accept();
                accepted.add(connection);
                Thread serving = new Thread(() -> serve(connection), name + "-connection");
                serving.setDaemon(true);
                serving.start();
            }
        } catch (IOException closed) {
            // the server was closed
        }
    }

    @Override
    public final void close() throws IOException {
        socket.close();
        for (Socket connection : accepted) {
            connection.close();
        }
    }
}
