package io.github.timingwheel.benchmarks.scenarios;

import java.util.ArrayList;
import java.util.List;

/**
 * Lateness on a busy CPU: the {@link Lateness} workload while {@code spinners} threads spin
 * flat out, one per core of the machine it was planned for, so that the scheduler's workers and
 * the producer compete with them for every time slice, as on a loaded server.
 */
final class Contention implements Scenario {

    private final Lateness lateness;
    private final int spinners;

    Contention(Lateness lateness, int spinners) {
        this.lateness = lateness;
        this.spinners = spinners;
    }

    @Override
    public String name() {
        return "contention";
    }

    @Override
    public String description() {
        return lateness.description() + "; meanwhile " + spinners + " threads spin flat out";
    }

    @Override
    public List<Column> columns() {
        return lateness.columns();
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        Spinners spinning = new Spinners(spinners);
        try {
            lateness.run(subject, warmUp, results);
        } finally {
            spinning.stop();
        }
    }

    /** Threads that count in a loop until stopped; the count keeps the loop from being removed. */
    static final class Spinners {
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean running = true;
        volatile long sink;

        Spinners(int count) {
            for (int i = 0; i < count; i++) {
                Thread thread = new Thread(this::spin, "spinner-" + i);
                thread.setDaemon(true);
                thread.start();
                threads.add(thread);
            }
        }

        private void spin() {
            long n = 0;
            while (running) {
                n++;
            }
            sink = n;
        }

        void stop() throws InterruptedException {
            running = false;
            for (Thread thread : threads) {
                thread.join();
            }
        }
    }
}
