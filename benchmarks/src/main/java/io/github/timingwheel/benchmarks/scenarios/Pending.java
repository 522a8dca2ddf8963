package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.HeapMeter;
import io.github.timingwheel.benchmarks.subjects.TimerSubject;
import java.lang.ref.Reference;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Millions pending: one thread arms {@code count} timers with delays of 1 to 60 minutes (one
 * shared task object, so only the subject's own objects count), then cancels them all. Reports
 * the insert rate, the retained heap per pending timer (after full collections, minus the
 * baseline, over the count), the cancel rate, and what is still retained per timer after
 * cancelling them all.
 *
 * <p>Both rates are timed until the subject has absorbed the operations: a zero-delay marker
 * armed after the last one has fired ({@link Absorption}); {@code absorb ms} is the part of that
 * time after the loop ended, and {@code cancel backlog} the timers the subject still held
 * when the cancel loop ended ({@link TimerSubject#queued()}). The heap is read only once the
 * marker fired, so no subject is measured with work still queued.
 */
final class Pending implements Scenario {

    static final Column INSERTS = Column.higher("inserts/s", 0);
    static final Column INSERT_ABSORB = Column.lower("insert absorb ms", 1);
    static final Column BYTES = Column.lower("bytes/timer", 1);
    static final Column CANCELS = Column.higher("cancels/s", 0);
    static final Column CANCEL_ABSORB = Column.lower("cancel absorb ms", 1);
    static final Column CANCEL_BACKLOG = Column.lower("cancel backlog", 0);
    static final Column LEFT = Column.lower("bytes/timer after cancel", 2);

    private final int[] counts;

    Pending(int... counts) {
        this.counts = counts.clone();
    }

    @Override
    public String name() {
        return "pending";
    }

    @Override
    public String description() {
        return "timers 1-60 min out, armed then cancelled from one thread, at " + Sizes.list(counts) + " pending";
    }

    @Override
    public List<Column> columns() {
        return List.of(INSERTS, INSERT_ABSORB, BYTES, CANCELS, CANCEL_ABSORB, CANCEL_BACKLOG, LEFT);
    }

    @Override
    public void run(String subject, boolean warmUp, Results results) throws Exception {
        for (int count : warmUp ? new int[] {counts[0] / 10} : counts) {
            measure(subject, count, warmUp ? null : results);
        }
    }

    private static void measure(String subject, int count, Results results) throws Exception {
        long[] delays = delays(count);
        Object[] handles = new Object[count];
        try (TimerSubject timers = TimerSubject.create(subject)) {
            // Let the subject start its threads and settle before the baseline.
            timers.cancel(timers.arm(TimerSubject.NOOP, TimeUnit.HOURS.toNanos(1)));
            Thread.sleep(200);
            long baseline = HeapMeter.retainedBytes();

            Absorption inserted = new Absorption(1);
            long start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                handles[i] = timers.arm(TimerSubject.NOOP, delays[i]);
            }
            inserted.arm(timers);
            long loopEnd = System.nanoTime();
            long firedAt = inserted.awaitFired(300);
            double insertsPerSecond = count * 1e9 / (firedAt - start);
            double insertAbsorbMs = Math.max(0, firedAt - loopEnd) / 1e6;
            double bytesPerTimer = (double) (HeapMeter.retainedBytes() - baseline) / count;

            Absorption cancelled = new Absorption(1);
            start = System.nanoTime();
            for (int i = 0; i < count; i++) {
                timers.cancel(handles[i]);
            }
            loopEnd = System.nanoTime();
            long queued = timers.queued(); // before the marker, so that it does not count
            cancelled.arm(timers);
            firedAt = cancelled.awaitFired(300);
            double cancelsPerSecond = count * 1e9 / (firedAt - start);
            double cancelAbsorbMs = Math.max(0, firedAt - loopEnd) / 1e6;
            Arrays.fill(handles, null);
            double bytesLeft = (double) (HeapMeter.retainedBytes() - baseline) / count;
            Reference.reachabilityFence(handles); // both arrays are part of the baseline:
            Reference.reachabilityFence(delays);  // they must stay reachable until here
            if (results != null) {
                String row = subject + " @ " + Sizes.shortCount(count);
                results.record(row, INSERTS, insertsPerSecond);
                results.record(row, INSERT_ABSORB, insertAbsorbMs);
                results.record(row, BYTES, bytesPerTimer);
                results.record(row, CANCELS, cancelsPerSecond);
                results.record(row, CANCEL_ABSORB, cancelAbsorbMs);
                results.record(row, CANCEL_BACKLOG, queued < 0 ? Double.NaN : queued);
                results.record(row, LEFT, bytesLeft);
            }
        }
    }

    static long[] delays(int count) {
        SplittableRandom random = new SplittableRandom(42);
        long[] delays = new long[count];
        for (int i = 0; i < count; i++) {
            delays[i] = random.nextLong(TimeUnit.MINUTES.toNanos(1), TimeUnit.MINUTES.toNanos(60));
        }
        return delays;
    }
}
