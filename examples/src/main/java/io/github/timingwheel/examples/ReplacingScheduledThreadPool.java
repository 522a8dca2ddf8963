package io.github.timingwheel.examples;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Replacing {@code Executors.newScheduledThreadPool} in existing code: the same periodic and
 * delayed jobs ({@link #existingCode}) run before and after, and print the same lines. The
 * change is one line:
 *
 * <pre>{@code
 * // before
 * ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
 * // after
 * ScheduledExecutorService scheduler = WheelScheduledExecutor.newScheduledThreadPool(2);
 *
 * // and for code that holds the class, the same constructor arguments
 * ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2, threadFactory, handler);
 * WheelScheduledExecutor scheduler = new WheelScheduledExecutor(2, threadFactory, handler);
 * }</pre>
 *
 * <p>Run: {@code java -cp examples/target/examples.jar io.github.timingwheel.examples.ReplacingScheduledThreadPool}
 */
public final class ReplacingScheduledThreadPool {

    private ReplacingScheduledThreadPool() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the example; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        int exit = CommandLine.parseOrExit(args, (name, value) -> {
            throw CommandLine.unknown(name);
        }, "Usage: java -cp examples/target/examples.jar " + ReplacingScheduledThreadPool.class.getName(), out, out);
        if (exit >= 0) {
            return exit;
        }
        try {
            out.println("Before: Executors.newScheduledThreadPool(2)");
            existingCode(Executors.newScheduledThreadPool(2), out);

            out.println("After: WheelScheduledExecutor.newScheduledThreadPool(2)");
            existingCode(WheelScheduledExecutor.newScheduledThreadPool(2), out);

            ThreadFactory threadFactory = Executors.defaultThreadFactory();
            RejectedExecutionHandler handler = new ThreadPoolExecutor.AbortPolicy();
            out.println("Before: new ScheduledThreadPoolExecutor(2, threadFactory, handler)");
            ScheduledThreadPoolExecutor jdk = new ScheduledThreadPoolExecutor(2, threadFactory, handler);
            existingCode(jdk, out);
            out.println("  getCompletedTaskCount() counts every run, at least 9: " + (jdk.getCompletedTaskCount() >= 9));

            out.println("After: new WheelScheduledExecutor(2, threadFactory, handler)");
            WheelScheduledExecutor ours = new WheelScheduledExecutor(2, threadFactory, handler);
            existingCode(ours, out);
            out.println("  getCompletedTaskCount() counts every run, at least 9: " + (ours.getCompletedTaskCount() >= 9));
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Code that already uses a {@link ScheduledExecutorService}; it does not change when the
     * executor does. It prints only what the contract guarantees, so its output is the same
     * on both.
     */
    static void existingCode(ScheduledExecutorService scheduler, PrintStream out)
            throws InterruptedException, ExecutionException {
        long start = System.nanoTime();

        // A heartbeat at a fixed rate, every 10 ms.
        CountDownLatch beats = new CountDownLatch(5);
        ScheduledFuture<?> heartbeat = scheduler.scheduleAtFixedRate(beats::countDown, 0, 10, TimeUnit.MILLISECONDS);
        // A cleanup with a fixed delay: 20 ms after the previous run ended.
        CountDownLatch cleanups = new CountDownLatch(3);
        ScheduledFuture<?> cleanup = scheduler.scheduleWithFixedDelay(cleanups::countDown, 5, 20, TimeUnit.MILLISECONDS);
        // A delayed computation.
        ScheduledFuture<String> greeting = scheduler.schedule(() -> "hello", 30, TimeUnit.MILLISECONDS);
        // A request timeout, cancelled because the reply came first.
        AtomicBoolean timedOut = new AtomicBoolean();
        ScheduledFuture<?> requestTimeout = scheduler.schedule(() -> timedOut.set(true), 1, TimeUnit.SECONDS);
        boolean cancelled = requestTimeout.cancel(false);

        String value = greeting.get();
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        out.println("  delayed callable returned '" + value + "', not before its 30 ms: " + (waitedMillis >= 30));
        beats.await();
        heartbeat.cancel(false);
        out.println("  heartbeat ran 5 times at a fixed rate of 10 ms, then was cancelled: " + heartbeat.isCancelled());
        cleanups.await();
        cleanup.cancel(false);
        out.println("  cleanup ran 3 times with a fixed delay of 20 ms, then was cancelled: " + cleanup.isCancelled());
        out.println("  request timeout cancelled: " + cancelled + ", ran: " + timedOut.get());
        scheduler.shutdown();
        out.println("  terminated after shutdown: " + scheduler.awaitTermination(10, TimeUnit.SECONDS));
    }
}
