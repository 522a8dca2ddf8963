package io.github.timingwheel.examples;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;

/**
 * Makes daemon threads named {@code prefix-N} and remembers them, so that the demo can read
 * the CPU time of exactly the scheduler's threads. Every scheduler in the demo takes one: the
 * JDK's and ours through their constructors or builder, Netty's through its constructor.
 */
final class RecordingThreadFactory implements ThreadFactory {

    private final String prefix;
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    RecordingThreadFactory(String prefix) {
        this.prefix = prefix;
    }

    @Override
    public Thread newThread(Runnable runnable) {
        Thread thread = new Thread(runnable, prefix + "-" + (threads.size() + 1));
        thread.setDaemon(true);
        threads.add(thread);
        return thread;
    }

    List<Thread> threads() {
        return List.copyOf(threads);
    }
}
