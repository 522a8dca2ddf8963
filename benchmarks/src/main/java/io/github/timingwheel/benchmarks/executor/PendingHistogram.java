package io.github.timingwheel.benchmarks.executor;

import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;

/**
 * What a pending timer costs, counted object by object: {@code timers} timers armed 1 to 60 min
 * out on one scheduler ({@code wheel-executor} or {@code wheel-timer}, as {@link TimerSubject}
 * makes them), then the JVM's class histogram of live objects (the
 * {@code GC.class_histogram} diagnostic command, run in-process after a full collection), of
 * which the program prints the lines of 1 MB or more, and the bytes of all the library's classes
 * together (the wheels, shards, executor and tasks; this program's own lambdas left out) per
 * pending timer. The pending scenario's heap meter reads the heap's use
 * after a collection, which also moves with the collector's own bookkeeping; this counts only
 * objects. The handles the program keeps (an array of futures, to cancel them at the end) show
 * in the histogram as one large {@code Object[]}, apart from the library's lines.
 *
 * <pre>
 * java -Xmx8g -cp benchmarks/target/benchmarks.jar \
 *     io.github.timingwheel.benchmarks.executor.PendingHistogram wheel-executor 10000000
 * </pre>
 */
public final class PendingHistogram {

    private static final long MIN_DELAY_MILLIS = TimeUnit.MINUTES.toMillis(1);
    private static final long MAX_DELAY_MILLIS = TimeUnit.MINUTES.toMillis(60);
    private static final long BIG_LINE_BYTES = 1L << 20;
    private static final String LIBRARY = "io.github.timingwheel.";
    private static final String THIS_PROGRAM = "io.github.timingwheel.benchmarks.";

    private PendingHistogram() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !List.of("wheel-executor", "wheel-timer").contains(args[0])) {
            System.err.println("usage: PendingHistogram wheel-executor|wheel-timer <timers>");
            System.exit(2);
        }
        int timers = Integer.parseInt(args[1]);
        SplittableRandom random = new SplittableRandom(1);
        List<Object> handles = new ArrayList<>(timers);
        TimerSubject scheduler = TimerSubject.create(args[0]);
        for (int i = 0; i < timers; i++) {
            handles.add(scheduler.arm(TimerSubject.NOOP, TimeUnit.MILLISECONDS.toNanos(delayMillis(random))));
        }
        String histogram = classHistogram();
        long libraryBytes = 0;
        System.out.printf("%s, %,d timers pending; live objects (bytes, instances, class):%n", args[0], timers);
        for (String line : histogram.split("\n")) {
            String[] cells = line.trim().split("\\s+");
            if (cells.length < 4 || !cells[0].endsWith(":")) {
                continue;
            }
            long instances = Long.parseLong(cells[1]);
            long bytes = Long.parseLong(cells[2]);
            String type = cells[3];
            if (type.contains(LIBRARY) && !type.contains(THIS_PROGRAM)) {
                libraryBytes += bytes;
            }
            if (bytes >= BIG_LINE_BYTES) {
                System.out.printf("  %,15d %,12d  %s%n", bytes, instances, type);
            }
        }
        System.out.printf("all the library's classes: %,d bytes, %.2f bytes per pending timer%n", libraryBytes,
                (double) libraryBytes / timers);
        handles.forEach(scheduler::cancel);
        scheduler.close();
    }

    private static long delayMillis(SplittableRandom random) {
        return MIN_DELAY_MILLIS + random.nextLong(MAX_DELAY_MILLIS - MIN_DELAY_MILLIS);
    }

    /** The GC.class_histogram diagnostic command's output; it runs a full collection first. */
    private static String classHistogram() throws Exception {
        return (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {null}, new String[] {String[].class.getName()});
    }
}
