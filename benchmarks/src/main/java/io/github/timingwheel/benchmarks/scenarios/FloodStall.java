package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A flood that never lets up: {@code producers} threads hand over zero-delay tasks
 * ({@code execute()} on an executor, a zero-delay {@code newTimeout} on a Netty {@code Timer})
 * as fast as they can, without ever pausing, and the tasks that run are counted in each of
 * {@code windows} windows of {@value #WINDOW_MS} ms. Reports the fewest runs in a window, how
 * many windows ran fewer than {@value #STALL_RUNS} tasks (stalled), runs per second (over the
 * windows) and acceptances per second (until the producers stopped), the backlog (accepted minus
 * run) when the producers stopped and the largest seen (read every {@value #SAMPLE_MS} ms), the
 * windows the round ran, and the time the JVM spent collecting in them ({@link GcTime}: a window
 * with few runs and a long collection is the collector's stall, not the subject's). Each measured
 * round also prints its runs and collection time window by window.
 *
 * <p>A window ends {@value #WINDOW_MS} ms after the previous one was read, not on a fixed
 * schedule: when the reading thread is held up (a collection pause stops it too), the window it
 * was in grows, rather than the next one shrinking to nothing and reading as a stall. The
 * per-window line gives the length of any window that grew by more than 10 ms, and runs per
 * second are over the windows' real length.
 *
 * <p>Hostile because nothing in it gives the firing side a chance: {@link Flood}'s producers
 * pause whenever the backlog passes a bound, and {@code FloodTest}'s every 64 submissions, so
 * the thread that hands out due tasks can win the locks it shares with the producers in those
 * gaps. Here the producers take them again right after each release, for the whole run; a
 * firing path that waits behind them runs a few hundred tasks a window while millions are
 * accepted.
 *
 * <p>With {@code spinners} above 0 it is {@code flood-busy}: as many threads spin flat out
 * beside the flood for the whole round (6 on the 2-core machine, as {@link Oversubscribed}), so
 * that the workers share the cores with eleven other runnable threads, the load of a busy server.
 * A firing path that needs more CPU per task handed out than the producers need per task
 * accepted falls behind there first.
 *
 * <p>The heap guard: the main thread reads the backlog every {@value #SAMPLE_MS} ms, and if it
 * passes {@code backlogCap} it ends the round there (the producers stop; nothing else ever
 * pauses them). Such a round prints a line saying so, and its {@code windows done} column says
 * how many windows it ran; its other columns count those windows only. What was accepted is then
 * left {@value #DRAIN_SECONDS} s to run before the subject is closed (a subject that has not
 * run it by then prints a line too).
 */
final class FloodStall implements Scenario {

    static final int WINDOW_MS = 500;
    static final int STALL_RUNS = 1_000;
    private static final int SAMPLE_MS = 10;
    private static final int DRAIN_SECONDS = 60;
    private static final int BATCH = 256;

    static final Column FEWEST = Column.higher("fewest runs in 500 ms", 0);
    static final Column STALLED = Column.lower("windows < 1,000 runs", 0);
    static final Column RAN_PER_S = Column.higher("runs/s", 0);
    static final Column ACCEPTED_PER_S = Column.higher("accepted/s", 0);
    static final Column BACKLOG_END = Column.lower("backlog at end", 0);
    static final Column BACKLOG_MAX = Column.lower("max backlog", 0);
    static final Column WINDOWS_DONE = Column.higher("windows done", 0);
    static final Column GC_MS = Column.lower("gc ms", 0);

    private final int producers;
    private final int windows;
    private final long backlogCap;
    private final int spinners;

    FloodStall(int producers, int windows, long backlogCap) {
        this(producers, windows, backlogCap, 0);
    }

    FloodStall(int producers, int windows, long backlogCap, int spinners) {
        this.producers = producers;
        this.windows = windows;
        this.backlogCap = backlogCap;
        this.spinners = spinners;
    }

    @Override
    public String name() {
        return spinners == 0 ? "flood-stall" : "flood-busy";
    }

    @Override
    public String description() {
        return String.format("%d producers hand over zero-delay tasks flat out, never pausing, for %d windows of %d ms"
                + " (a round ends early if the backlog passes %,d)%s; runs per window", producers, windows, WINDOW_MS,
                backlogCap, spinners == 0 ? "" : String.format(", %d threads spinning beside them", spinners));
    }

    @Override
    public List<Column> columns() {
        return List.of(FEWEST, STALLED, RAN_PER_S, ACCEPTED_PER_S, BACKLOG_END, BACKLOG_MAX, WINDOWS_DONE, GC_MS);
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        int planned = warmUp ? Math.min(2, windows) : windows;
        LongAdder ran = new LongAdder();
        LongAdder accepted = new LongAdder();
        TimerSubject.Task task = new TimerSubject.Task() {
            @Override
            public void run() {
                ran.increment();
            }
        };
        long[] ranAt = new long[planned + 1];
        long[] gcAt = new long[planned + 1];
        long[] readAt = new long[planned + 1];
        int done = 0;
        long maxBacklog = 0;
        long backlogAtEnd;
        long acceptedAtEnd;
        boolean capped = false;
        long floodNanos;
        Contention.Spinners spinning = new Contention.Spinners(spinners);
        try (TimerSubject timers = TimerSubject.create(subject)) {
            CountDownLatch go = new CountDownLatch(1);
            StopFlag stop = new StopFlag();
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                Thread producer = new Thread(() -> produce(timers, task, go, stop, accepted), "flood-stall-" + p);
                producer.setDaemon(true);
                producer.start();
                threads.add(producer);
            }
            gcAt[0] = GcTime.totalMillis();
            long start = System.nanoTime();
            readAt[0] = start;
            go.countDown();
            sampling:
            for (int w = 1; w <= planned; w++) {
                long windowEnd = readAt[w - 1] + TimeUnit.MILLISECONDS.toNanos(WINDOW_MS);
                while (true) {
                    long left = windowEnd - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    Thread.sleep(Math.max(1, Math.min(SAMPLE_MS, TimeUnit.NANOSECONDS.toMillis(left))));
                    long backlog = accepted.sum() - ran.sum();
                    maxBacklog = Math.max(maxBacklog, backlog);
                    if (backlog > backlogCap) {
                        capped = true;
                        break sampling;
                    }
                }
                ranAt[w] = ran.sum();
                readAt[w] = System.nanoTime();
                gcAt[w] = GcTime.totalMillis();
                done = w;
            }
            stop.stopped = true;
            for (Thread producer : threads) {
                producer.join();
            }
            floodNanos = System.nanoTime() - start;
            spinning.stop(); // what was accepted then runs on a machine as quiet as the others' drains
            acceptedAtEnd = accepted.sum();
            backlogAtEnd = acceptedAtEnd - ran.sum();
            maxBacklog = Math.max(maxBacklog, backlogAtEnd);
            Waiting.until(() -> ran.sum() >= acceptedAtEnd, TimeUnit.SECONDS.toMillis(DRAIN_SECONDS));
            if (ran.sum() < acceptedAtEnd) {
                System.out.printf("   %s: %,d accepted tasks had not run %d s after the flood; closed with them%n",
                        subject, acceptedAtEnd - ran.sum(), DRAIN_SECONDS);
            }
        } finally {
            spinning.stop();
        }
        if (warmUp) {
            return;
        }
        if (capped) {
            System.out.printf("   %s: round ended after %d of %d windows: the backlog passed %,d%n", subject, done,
                    planned, backlogCap);
        }
        long fewest = Long.MAX_VALUE;
        int stalled = 0;
        StringBuilder perWindow = new StringBuilder();
        StringBuilder gcPerWindow = new StringBuilder();
        for (int w = 1; w <= done; w++) {
            long runs = ranAt[w] - ranAt[w - 1];
            fewest = Math.min(fewest, runs);
            stalled += runs < STALL_RUNS ? 1 : 0;
            perWindow.append(' ').append(runs);
            long windowMillis = TimeUnit.NANOSECONDS.toMillis(readAt[w] - readAt[w - 1]);
            if (windowMillis > WINDOW_MS + 10) {
                perWindow.append(" (in ").append(windowMillis).append(" ms)");
            }
            gcPerWindow.append(' ').append(gcAt[w] - gcAt[w - 1]);
        }
        System.out.printf("   %s runs per window:%s; gc ms per window:%s%n", subject, perWindow, gcPerWindow);
        double seconds = (readAt[done] - readAt[0]) / 1e9;
        results.record(subject, FEWEST, done == 0 ? Double.NaN : fewest);
        results.record(subject, STALLED, stalled);
        results.record(subject, RAN_PER_S, done == 0 ? Double.NaN : ranAt[done] / seconds);
        results.record(subject, ACCEPTED_PER_S, acceptedAtEnd / (floodNanos / 1e9));
        results.record(subject, BACKLOG_END, backlogAtEnd);
        results.record(subject, BACKLOG_MAX, maxBacklog);
        results.record(subject, WINDOWS_DONE, done);
        results.record(subject, GC_MS, gcAt[done] - gcAt[0]);
    }

    /** Set once by the main thread; the producers read it once per batch. */
    private static final class StopFlag {
        volatile boolean stopped;
    }

    private static void produce(TimerSubject timers, TimerSubject.Task task, CountDownLatch go, StopFlag stop,
            LongAdder accepted) {
        try {
            go.await();
        } catch (InterruptedException e) {
            return;
        }
        while (!stop.stopped) {
            for (int i = 0; i < BATCH; i++) {
                try {
                    timers.runNow(task);
                } catch (RejectedExecutionException | IllegalStateException stopped) {
                    accepted.add(i);
                    return;
                }
            }
            accepted.add(BATCH);
        }
    }
}
