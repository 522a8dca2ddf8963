package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.HeapMeter;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import io.github.timingwheel.executor.TaskGroup;
import io.github.timingwheel.executor.TimeoutGroup;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jol.info.ClassLayout;

/**
 * Connections that each arm four timers and cancel them all when they close: task groups
 * against the hand-rolled "set of futures per connection" over {@link ScheduledThreadPoolExecutor}.
 *
 * <p>One thread (an I/O thread) opens {@code count} connections; each arms a read timeout
 * (30 s), a write timeout (60 s), an idle timeout (5 min) and a keep-alive (45 s), so none
 * fires during the run. Then it closes them all, and drops them. Printed per subject: opens and
 * closes per second (four schedules, or four cancels, each), the heap per open connection (after
 * full collections, minus the baseline), and the heap still retained per connection once all are
 * closed and dropped. A silent first round of {@code min(count, 100,000)} connections warms the
 * code up. Also prints the JOL instance sizes of the task objects.
 *
 * <p>Both loops are timed until the scheduler has absorbed them: after the last open (and the
 * last close) the thread arms a zero-delay marker on the same scheduler and the clock stops
 * when it has run, so that work a scheduler queued for later is counted.
 *
 * <p>Like with like: most of the hand-rolled baseline's footprint is its concurrent set per
 * connection, not the JDK's executor, so the table is followed by two comparisons that each
 * change one thing: the same set of futures over the JDK's executor and over ours
 * ({@code jdk-stpe-futures} against {@code wheel-futures}: the executors), and our executor
 * with the set against with a task group ({@code wheel-futures} against {@code wheel-group}:
 * the tracking).
 *
 * <p>Subjects:
 * <ul>
 *   <li>{@code wheel-group}: {@link WheelScheduledExecutor#newGroup()} per connection,
 *       {@link TaskGroup#cancelAll()} to close it (cancel what it holds);
 *   <li>{@code wheel-serial-group}: the same with {@link WheelScheduledExecutor#newSerialGroup()};
 *   <li>{@code wheel-timeout-group}: {@link WheelTimer#newGroup()}, a Netty {@code Timer} per
 *       connection, {@link TimeoutGroup#stop()} to close it;
 *   <li>{@code jdk-stpe-futures}: {@code ScheduledThreadPoolExecutor(2)} with remove-on-cancel and
 *       a {@code ConcurrentHashMap.newKeySet()} of futures per connection: each task removes
 *       its own future when it runs, close cancels every future in the set;
 *   <li>{@code wheel-futures}: the same hand-rolled set over {@code WheelScheduledExecutor}, to
 *       tell the group's part from the executor's.
 * </ul>
 *
 * <p>Run: {@code java -Xms4g -Xmx4g -XX:+UseParallelGC -cp benchmarks/target/benchmarks.jar
 * io.github.timingwheel.benchmarks.scenarios.GroupChurn [count] [subject...]} (default 1000000
 * and every subject).
 */
public final class GroupChurn {

    /** Every subject, in the order the table shows them. */
    static final List<String> SUBJECTS = List.of(
            "wheel-group", "wheel-serial-group", "wheel-timeout-group", "jdk-stpe-futures", "wheel-futures");

    private static final long[] DELAYS_NANOS = {
        TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(60),
        TimeUnit.MINUTES.toNanos(5), TimeUnit.SECONDS.toNanos(45),
    };
    private static final Runnable NOOP = () -> { };
    private static final int WARM_UP = 100_000;

    private GroupChurn() {
    }

    public static void main(String[] args) throws Exception {
        int count = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 1_000_000;
        List<String> names = args.length > 1 ? List.of(args).subList(1, args.length) : SUBJECTS;
        System.out.printf("JVM: %s %s, max heap %,d MB, %s%n%n", System.getProperty("java.vm.name"),
                System.getProperty("java.vm.version"), Runtime.getRuntime().maxMemory() >> 20,
                ManagementFactory.getRuntimeMXBean().getInputArguments());
        printSizes();
        System.out.printf("%-20s %12s %14s %14s %16s %14s %18s%n", "subject", "connections",
                "opens/s", "closes/s", "open+close/s", "bytes/open", "bytes/conn left");
        Map<String, Row> rows = new LinkedHashMap<>();
        for (String name : names) {
            try (Subject subject = Subject.create(name)) {
                run(subject, Math.min(count, WARM_UP)); // silent warm-up round
                Row row = run(subject, count);
                rows.put(name, row);
                System.out.printf("%-20s %,12d %,14.0f %,14.0f %,16.0f %14.1f %18.2f%n", name, count,
                        row.opensPerSecond, row.closesPerSecond, row.bothPerSecond, row.bytesPerOpen,
                        row.bytesLeftPerConnection);
            }
        }
        System.out.println("jdk-stpe-futures: ScheduledThreadPoolExecutor(2) with setRemoveOnCancelPolicy(true);"
                + " opens and closes timed until a zero-delay marker fired");
        compare(rows, "jdk-stpe-futures", "wheel-futures", "the same set of futures per connection, JDK's executor"
                + " against ours");
        compare(rows, "wheel-futures", "wheel-group", "our executor, a set of futures against a task group");
    }

    /** Prints one like-with-like line, if both subjects ran. */
    private static void compare(Map<String, Row> rows, String a, String b, String what) {
        Row first = rows.get(a);
        Row second = rows.get(b);
        if (first == null || second == null) {
            return;
        }
        System.out.printf("like with like, %s: open+close/s %,.0f vs %,.0f (%.2fx); bytes/open %.1f vs %.1f"
                + " (%.2fx)%n", what, first.bothPerSecond, second.bothPerSecond,
                second.bothPerSecond / first.bothPerSecond, first.bytesPerOpen, second.bytesPerOpen,
                second.bytesPerOpen / first.bytesPerOpen);
    }

    private record Row(double opensPerSecond, double closesPerSecond, double bothPerSecond,
            double bytesPerOpen, double bytesLeftPerConnection) {
    }

    private static Row run(Subject subject, int count) throws InterruptedException {
        Object[] connections = new Object[count];
        long baseline = HeapMeter.retainedBytes();

        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            connections[i] = subject.open();
        }
        long opened = subject.absorbed() - start;
        long open = HeapMeter.retainedBytes();

        start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            subject.close(connections[i]);
        }
        long closed = subject.absorbed() - start;
        Arrays.fill(connections, null);
        long left = HeapMeter.retainedBytes();
        Reference.reachabilityFence(connections); // part of the baseline: must stay until here
        return new Row(count * 1e9 / opened, count * 1e9 / closed, count * 1e9 / (opened + closed),
                (double) (open - baseline) / count, (double) (left - baseline) / count);
    }

    private static void printSizes() throws Exception {
        WheelScheduledExecutor executor = WheelScheduledExecutor.builder().workers(1).daemon(true).build();
        WheelTimer timer = WheelTimer.builder().daemon(true).build();
        ScheduledThreadPoolExecutor jdk = new ScheduledThreadPoolExecutor(1);
        try {
            TaskGroup group = executor.newGroup();
            TaskGroup serial = executor.newSerialGroup();
            TimeoutGroup timeouts = timer.newGroup();
            Object[][] samples = {
                {"ungrouped one-shot task", executor.schedule(NOOP, 1, TimeUnit.HOURS)},
                {"ungrouped periodic task", executor.scheduleAtFixedRate(NOOP, 1, 1, TimeUnit.HOURS)},
                {"grouped one-shot task", group.schedule(NOOP, 1, TimeUnit.HOURS)},
                {"grouped periodic task", group.scheduleAtFixedRate(NOOP, 1, 1, TimeUnit.HOURS)},
                {"ungrouped timeout", timer.newTimeout(t -> { }, 1, TimeUnit.HOURS)},
                {"grouped timeout", timeouts.newTimeout(t -> { }, 1, TimeUnit.HOURS)},
                {"TaskGroup", group},
                {"its MemberTracker", Class.forName("io.github.timingwheel.executor.MemberTracker")},
                {"a serial group's SerialRunQueue", Class.forName("io.github.timingwheel.executor.SerialRunQueue")},
                {"TimeoutGroup", timeouts},
                {"JDK STPE task", jdk.schedule(NOOP, 1, TimeUnit.HOURS)},
            };
            System.out.println("JOL instance sizes:");
            for (Object[] sample : samples) {
                Object object = sample[1];
                ClassLayout layout = object instanceof Class<?> type
                        ? ClassLayout.parseClass(type) : ClassLayout.parseInstance(object);
                System.out.printf("  %-32s %-70s %4d bytes%n", sample[0],
                        object instanceof Class<?> type ? type.getName() : object.getClass().getName(),
                        layout.instanceSize());
            }
            System.out.println();
            serial.cancelAll();
            group.cancelAll();
            timeouts.stop();
        } finally {
            executor.shutdownNow();
            timer.stop();
            jdk.shutdownNow();
        }
    }

    /** Runs a zero-delay marker on {@code executor} and returns when it ran. */
    private static long marker(ScheduledExecutorService executor) throws InterruptedException {
        try {
            return executor.schedule(System::nanoTime, 0, TimeUnit.NANOSECONDS).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** One way of arming a connection's four timers and cancelling them all. */
    private abstract static class Subject implements AutoCloseable {

        abstract Object open();

        abstract void close(Object connection);

        /** Arms a zero-delay marker on the scheduler and returns when it ran (System.nanoTime()). */
        abstract long absorbed() throws InterruptedException;

        static Subject create(String name) {
            return switch (name) {
                case "wheel-group" -> new GroupSubject(wheelExecutor(), false);
                case "wheel-serial-group" -> new GroupSubject(wheelExecutor(), true);
                case "wheel-timeout-group" -> new TimeoutGroupSubject(
                        WheelTimer.builder().workers(2).daemon(true).build());
                case "jdk-stpe-futures" -> new FutureSetSubject(TimerSubject.scheduledExecutor("jdk-stpe"));
                case "wheel-futures" -> new FutureSetSubject(wheelExecutor());
                default -> throw new IllegalArgumentException("unknown subject: " + name + "; one of " + SUBJECTS);
            };
        }

        /** Our executor as the scenarios' {@code wheel-executor} subject is made: two workers. */
        private static WheelScheduledExecutor wheelExecutor() {
            return (WheelScheduledExecutor) TimerSubject.scheduledExecutor("wheel-executor");
        }

        @Override
        public abstract void close();
    }

    private static final class GroupSubject extends Subject {
        private final WheelScheduledExecutor executor;
        private final boolean serial;

        GroupSubject(WheelScheduledExecutor executor, boolean serial) {
            this.executor = executor;
            this.serial = serial;
        }

        @Override
        Object open() {
            TaskGroup group = serial ? executor.newSerialGroup() : executor.newGroup();
            for (long delay : DELAYS_NANOS) {
                group.schedule(NOOP, delay, TimeUnit.NANOSECONDS);
            }
            return group;
        }

        @Override
        void close(Object connection) {
            ((TaskGroup) connection).cancelAll();
        }

        @Override
        long absorbed() throws InterruptedException {
            return marker(executor);
        }

        @Override
        public void close() {
            executor.shutdownNow();
        }
    }

    private static final class TimeoutGroupSubject extends Subject {
        private final WheelTimer timer;

        TimeoutGroupSubject(WheelTimer timer) {
            this.timer = timer;
        }

        @Override
        Object open() {
            TimeoutGroup group = timer.newGroup();
            for (long delay : DELAYS_NANOS) {
                group.newTimeout(timeout -> { }, delay, TimeUnit.NANOSECONDS);
            }
            return group;
        }

        @Override
        void close(Object connection) {
            ((TimeoutGroup) connection).stop();
        }

        @Override
        long absorbed() throws InterruptedException {
            CountDownLatch fired = new CountDownLatch(1);
            long[] at = new long[1];
            timer.newTimeout(timeout -> {
                at[0] = System.nanoTime();
                fired.countDown();
            }, 0, TimeUnit.NANOSECONDS);
            fired.await();
            return at[0];
        }

        @Override
        public void close() {
            timer.stop();
        }
    }

    /**
     * The hand-rolled way: a concurrent set of futures per connection. A task removes its own
     * future when it runs; a future added after the task already finished is removed at once
     * (else it would leak); close cancels what the set holds and refuses later timers.
     */
    private static final class FutureSetSubject extends Subject {
        private final ScheduledExecutorService executor;

        FutureSetSubject(ScheduledExecutorService executor) {
            this.executor = executor;
        }

        private static final class Connection {
            final Set<Future<?>> timers = ConcurrentHashMap.newKeySet();
            volatile boolean closed;
        }

        /** The task's body and the future it removes once it has run. */
        private static final class SelfRemoving implements Runnable {
            final Connection connection;
            final Runnable body;
            volatile Future<?> future;

            SelfRemoving(Connection connection, Runnable body) {
                this.connection = connection;
                this.body = body;
            }

            @Override
            public void run() {
                try {
                    body.run();
                } finally {
                    Future<?> f = future;
                    if (f != null) {
                        connection.timers.remove(f);
                    }
                }
            }
        }

        @Override
        Object open() {
            Connection connection = new Connection();
            for (long delay : DELAYS_NANOS) {
                SelfRemoving task = new SelfRemoving(connection, NOOP);
                ScheduledFuture<?> future = executor.schedule(task, delay, TimeUnit.NANOSECONDS);
                task.future = future;
                connection.timers.add(future);
                if (future.isDone() || connection.closed) { // ran before it was added, or raced close
                    future.cancel(false);
                    connection.timers.remove(future);
                }
            }
            return connection;
        }

        @Override
        void close(Object handle) {
            Connection connection = (Connection) handle;
            connection.closed = true;
            for (Future<?> future : connection.timers) {
                future.cancel(false);
            }
            connection.timers.clear();
        }

        @Override
        long absorbed() throws InterruptedException {
            return marker(executor);
        }

        @Override
        public void close() {
            executor.shutdownNow();
        }
    }
}
