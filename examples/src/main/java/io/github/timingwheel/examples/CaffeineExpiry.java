package io.github.timingwheel.examples;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.RemovalListener;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.github.timingwheel.examples.CommandLine.UsageException;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A Caffeine cache whose expired entries are removed on time by our executor, with no cache
 * activity to trigger it.
 *
 * <p>Caffeine removes expired entries during its maintenance, which runs after reads and
 * writes: in a cache nobody touches, expired entries (and whatever their removal listener
 * should release) stay. Given a {@link Scheduler}, the cache schedules its next maintenance for
 * the time the next entry expires. Here that scheduler is
 * {@code Scheduler.forScheduledExecutorService} over a {@link WheelScheduledExecutor}:
 *
 * <pre>{@code
 * Cache<Integer, String> cache = Caffeine.newBuilder()
 *         .expireAfterWrite(Duration.ofMillis(1500))
 *         .scheduler(Scheduler.forScheduledExecutorService(executor))
 *         .removalListener((key, value, cause) -> release(value))
 *         .build();
 * }</pre>
 *
 * <p>The program writes a few entries some time apart into that cache and into one without a
 * scheduler, makes no other cache call, and prints when each entry was removed. Caffeine paces
 * its scheduled maintenance ({@code Pacer}): it schedules nothing less than about 1.07 s
 * (2^30 ns) ahead, so an entry that expires soon after another's removal waits for the next
 * maintenance, up to that long; an entry whose expiry is further ahead is removed within
 * milliseconds of it. Maintenance and the removal listener run on the cache's executor
 * (the common pool, as by default); the wheel only says when.
 *
 * <p>Run: {@code java -cp examples/target/examples.jar io.github.timingwheel.examples.CaffeineExpiry}
 */
public final class CaffeineExpiry {

    static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -cp examples/target/examples.jar io.github.timingwheel.examples.CaffeineExpiry [options]",
            "",
            "Options (defaults in brackets):",
            "  --entries N         entries written [5]",
            "  --ttl DURATION      expireAfterWrite of each entry [1500ms]",
            "  --spacing DURATION  time between two writes, 0ms or more [250ms]",
            "  --help              print this and exit");

    /** Caffeine's {@code Pacer.TOLERANCE}: the shortest delay it schedules maintenance with. */
    static final long PACER_TOLERANCE_NANOS = 1L << 30;
    /** How long past the last expiry and the pacer's tolerance to wait before giving up. */
    private static final long GIVE_UP_AFTER_MILLIS = 30_000;

    private int entries = 5;
    private long ttlMillis = 1500;
    private long spacingMillis = 250;

    private CaffeineExpiry() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the example; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        CaffeineExpiry example = new CaffeineExpiry();
        return CommandLine.runExample(args, out, USAGE, example::set, example::play);
    }

    private void set(String name, String value) throws UsageException {
        switch (name) {
            case "--entries" -> entries = CommandLine.positiveInt(name, value);
            case "--ttl" -> ttlMillis = CommandLine.positiveMillis(name, value);
            case "--spacing" -> spacingMillis = TimeUnit.NANOSECONDS.toMillis(CommandLine.duration(name, value, null));
            default -> throw CommandLine.unknown(name);
        }
    }

    private void play(PrintStream out) throws InterruptedException {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                .name("cache-expiry").workers(1).daemon(true).build();
        try {
            Removals scheduledRemovals = new Removals(entries);
            Cache<Integer, String> scheduled = Caffeine.newBuilder()
                    .expireAfterWrite(Duration.ofMillis(ttlMillis))
                    .scheduler(Scheduler.forScheduledExecutorService(executor))
                    .removalListener(scheduledRemovals)
                    .build();
            // The control: no scheduler. Its listener runs on the calling thread, so that the
            // removals of its cleanUp() below are all seen when cleanUp() returns.
            Removals unscheduledRemovals = new Removals(entries);
            Cache<Integer, String> unscheduled = Caffeine.newBuilder()
                    .expireAfterWrite(Duration.ofMillis(ttlMillis))
                    .executor(Runnable::run)
                    .removalListener(unscheduledRemovals)
                    .build();

            long start = System.nanoTime();
            long[] written = new long[entries];
            for (int key = 0; key < entries; key++) {
                long wait = start + TimeUnit.MILLISECONDS.toNanos(key * spacingMillis) - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait); // paces the writes; nothing waits for the cache
                }
                written[key] = System.nanoTime();
                scheduled.put(key, "value-" + key);
                unscheduled.put(key, "value-" + key);
            }
            // From here on, no cache call until every entry of the scheduled cache is removed.
            long lastExpiry = TimeUnit.NANOSECONDS.toMillis(written[entries - 1] - start) + ttlMillis;
            boolean allRemoved = scheduledRemovals.await(
                    lastExpiry + TimeUnit.NANOSECONDS.toMillis(PACER_TOLERANCE_NANOS) + GIVE_UP_AFTER_MILLIS);
            int unscheduledBeforeCleanUp = unscheduledRemovals.count();
            unscheduled.cleanUp();

            out.printf("Caffeine expireAfterWrite %d ms, %d entries written %d ms apart, then no cache call.%n%n",
                    ttlMillis, entries, spacingMillis);
            out.println("With Scheduler.forScheduledExecutorService(WheelScheduledExecutor):");
            out.println("  key  written  expired  removed  after expiry  cause");
            long latestNanos = Long.MIN_VALUE;
            for (int key = 0; key < entries; key++) {
                long expired = written[key] + TimeUnit.MILLISECONDS.toNanos(ttlMillis);
                Removal removal = scheduledRemovals.of(key);
                if (removal == null) {
                    out.printf("%5d %8d %8d        -             -  (not removed)%n", key, millis(written[key] - start),
                            millis(expired - start));
                    continue;
                }
                latestNanos = Math.max(latestNanos, removal.atNanos() - expired);
                out.printf("%5d %8d %8d %8d %10.1f ms  %s%n", key, millis(written[key] - start),
                        millis(expired - start), millis(removal.atNanos() - start),
                        (removal.atNanos() - expired) / 1e6, removal.cause());
            }
            out.printf("  removed %d of %d, %s%n", scheduledRemovals.count(), entries, allRemoved
                    ? String.format("at most %.1f ms after expiry", latestNanos / 1e6)
                    : "gave up waiting for the rest");
            out.printf("  the executor's metrics: %s%n", executor.metrics());
            out.println();
            out.println("Without a scheduler:");
            out.printf("  removed %d of %d by then; cleanUp() then removed %d%n", unscheduledBeforeCleanUp, entries,
                    unscheduledRemovals.count() - unscheduledBeforeCleanUp);
            out.println();
            out.println("Times in ms since the first write. Caffeine schedules its maintenance at least");
            out.printf("%.2f s ahead (its Pacer), so an entry that expires soon after another's removal waits%n",
                    PACER_TOLERANCE_NANOS / 1e9);
            out.println("up to that long for the next one; the wheel runs each maintenance at its deadline.");
        } finally {
            executor.shutdownNow();
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /** When and why an entry was removed. */
    record Removal(long atNanos, RemovalCause cause) {
    }

    /** A removal listener that records each removal, first one per key. */
    private static final class Removals implements RemovalListener<Integer, String> {
        private final Map<Integer, Removal> byKey = new ConcurrentHashMap<>();
        private final CountDownLatch all;

        Removals(int entries) {
            this.all = new CountDownLatch(entries);
        }

        @Override
        public void onRemoval(Integer key, String value, RemovalCause cause) {
            long now = System.nanoTime();
            if (key != null && byKey.putIfAbsent(key, new Removal(now, cause)) == null) {
                all.countDown();
            }
        }

        boolean await(long millis) throws InterruptedException {
            return all.await(millis, TimeUnit.MILLISECONDS);
        }

        int count() {
            return byKey.size();
        }

        Removal of(int key) {
            return byKey.get(key);
        }
    }
}
