package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * A fixed set of totals that any number of threads add to (and of maxima they raise), each
 * platform thread in a cell of its own: an add is a thread-local look-up, a plain read and a
 * release store to memory no other thread writes, with no atomic read-modify-write and no cache
 * line shared with another writer. A reader sums the cells (and takes the largest of a maximum).
 *
 * <p>Caveats:
 * <ul>
 *   <li>A sum read while others add is not a snapshot of one instant; each total is exact once
 *       the adding stops.
 *   <li>Virtual threads (JDK 21 and later), which may number in the millions and each live for
 *       one task, do not get a cell: they add to one shared {@link LongAdder} per total.
 *   <li>A cell outlives its thread until the next registration that finds the cells doubled
 *       since the last clean-up; then the totals of cells whose threads died are folded into
 *       one array and the cells dropped. So cells stay under twice the live threads that count.
 * </ul>
 */
final class CounterCells {

    /*
     * Implementation notes
     *
     * [1] One writer per cell: only the owning thread writes its array, so an add needs no
     *     atomicity; it reads its own last value plainly and publishes the new one with a
     *     release store. A reader's acquire load then sees a value at least as new as anything
     *     that happened-before what it read earlier with acquire (TaskCounters [2] relies on it).
     * [2] 'registry' is replaced, never changed, under the monitor of this object, and read
     *     without it: a reader sums over one Registry, in which every add is in exactly one
     *     place: a live cell, or the folded totals of dead ones.
     * [3] Folding a dead thread's cell: Thread.isAlive() returning false happens-after the
     *     thread's last action (JLS 17.4.4), so the cell's values are final when folded.
     * [4] Padding. The cells are reachable from one array, so a garbage collector that copies
     *     them copies them one after another: two threads' totals would then share a cache
     *     line, and every add of one would pull it from the other's core (two producers paid
     *     up to twice the CPU per schedule+cancel pair in rounds after such a copy). Each cell
     *     keeps its totals PAD longs (a cache line) away from both of its ends.
     * [5] Maxima. After the totals a cell may keep maxima (how late a run started, at the
     *     latest): its thread raises its own with a plain read and, only when the value is
     *     larger, a release store; a reader takes the largest over the cells, and a dead
     *     thread's maximum is folded by max, not by sum. A LongAccumulator of Math::max costs a
     *     CAS whenever the maximum rises, which in a burst is every run, since each starts later
     *     than the one before.
     * [6] A thread's first add makes its cell inside ThreadLocal.get (withInitial), not on a
     *     branch of add: a test for a missing cell, false on every add a busy worker had made
     *     while the JIT compiled it, became an uncommon trap that a new executor's workers
     *     each hit on their first run, and each hit threw away the compiled run path that had
     *     inlined it (in a burst, while the first timers came due). ThreadLocal.get's own
     *     branch for a first look-up is profiled over every thread-local of the JVM; a compile
     *     log of the burst showed no trap of it on the run path.
     *     A virtual thread is told apart before the look-up, and adds to the shared adders
     *     without one: it typically lives for one request (in a server that runs each request
     *     on its own), so a thread-local entry made for it would be made and dropped per
     *     request. That test is not the trap
     *     above: once any virtual thread counts, every later one takes the same branch, so a
     *     compiled add that never saw one is thrown away at most once.
     */

    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(long[].class);
    /** Longs on each side of a cell's totals: a cache line of 64 bytes ([4]). */
    private static final int PAD = 8;
    /** Cells kept before the first clean-up of dead threads' cells. */
    private static final int MIN_CLEAN_UP_AT = 64;
    /** A virtual thread's stand-in for a cell: it adds to the shared adders ([6]). */
    private static final long[] SHARED = new long[0];

    /** Totals, then maxima ([5]): indices from 'sums' on are maxima. */
    private final int totals;
    private final int sums;
    /** A platform thread's cell, made by its first get ([6]); virtual threads do not look it up. */
    private final ThreadLocal<long[]> mine = ThreadLocal.withInitial(this::register);
    /** Where virtual threads add. */
    private final LongAdder[] shared;
    /** Where virtual threads raise the maxima ([5]). */
    private final LongAccumulator[] sharedMaxima;
    /** See [2]. */
    private volatile Registry registry;
    /** The cell count at which the next registration cleans up; guarded by this. */
    private int cleanUpAt = MIN_CLEAN_UP_AT;

    /** The live cells, and the folded totals of dead threads' cells ([2]). */
    private record Registry(Thread[] owners, long[][] cells, long[] folded) {
    }

    /** A set of {@code totals} totals, numbered from 0, each starting at 0. */
    CounterCells(int totals) {
        this(totals, 0);
    }

    /**
     * A set of {@code sums} totals, numbered from 0, and then {@code maxima} maxima, numbered
     * from {@code sums} ([5]); each starts at 0.
     */
    CounterCells(int sums, int maxima) {
        this.sums = sums;
        this.totals = sums + maxima;
        this.shared = new LongAdder[sums];
        for (int i = 0; i < sums; i++) {
            shared[i] = new LongAdder();
        }
        this.sharedMaxima = new LongAccumulator[maxima];
        for (int i = 0; i < maxima; i++) {
            sharedMaxima[i] = new LongAccumulator(Math::max, 0L);
        }
        this.registry = new Registry(new Thread[0], new long[0][], new long[totals]);
    }

    /** Adds {@code delta} to total {@code index}, in the calling thread's cell. */
    void add(int index, long delta) {
        long[] cell = cell();
        if (cell == SHARED) {
            shared[index].add(delta);
            return;
        }
        VALUES.setRelease(cell, PAD + index, cell[PAD + index] + delta); // [1]
    }

    /**
     * Adds 1 to totals {@code first} and {@code second} and raises maximum {@code maximum} to
     * {@code value} if that is larger, with one look-up of the cell ([5]).
     */
    void countAndRaise(int first, int second, int maximum, long value) {
        long[] cell = cell();
        if (cell == SHARED) {
            shared[first].increment();
            shared[second].increment();
            sharedMaxima[maximum - sums].accumulate(value);
            return;
        }
        VALUES.setRelease(cell, PAD + first, cell[PAD + first] + 1); // [1]
        VALUES.setRelease(cell, PAD + second, cell[PAD + second] + 1);
        if (value > cell[PAD + maximum]) {
            VALUES.setRelease(cell, PAD + maximum, value);
        }
    }

    /** The sum of total {@code index} over every cell. */
    long sum(int index) {
        Registry current = registry;
        long sum = current.folded()[index] + shared[index].sum();
        for (long[] cell : current.cells()) {
            sum += (long) VALUES.getAcquire(cell, PAD + index);
        }
        return sum;
    }

    /** The largest value maximum {@code index} was raised to in any cell, 0 if none ([5]). */
    long max(int index) {
        Registry current = registry;
        long max = Math.max(current.folded()[index], sharedMaxima[index - sums].get());
        for (long[] cell : current.cells()) {
            max = Math.max(max, (long) VALUES.getAcquire(cell, PAD + index));
        }
        return max;
    }

    /** The number of cells kept now; for tests of the clean-up. */
    int cells() {
        return registry.cells().length;
    }

    /** The calling thread's cell, or SHARED for a virtual thread ([6]). */
    private long[] cell() {
        return VirtualThreads.current() ? SHARED : mine.get();
    }

    /** Makes the calling platform thread's cell ([6]). */
    private long[] register() {
        Thread me = Thread.currentThread();
        long[] cell = new long[PAD + totals + PAD]; // [4]
        synchronized (this) {
            Registry current = registry;
            if (current.cells().length >= cleanUpAt) {
                current = withoutDeadThreads(current);
                cleanUpAt = Math.max(MIN_CLEAN_UP_AT, 2 * (current.cells().length + 1));
            }
            int n = current.cells().length;
            Thread[] owners = Arrays.copyOf(current.owners(), n + 1);
            long[][] cells = Arrays.copyOf(current.cells(), n + 1);
            owners[n] = me;
            cells[n] = cell;
            registry = new Registry(owners, cells, current.folded());
        }
        return cell;
    }

    /** Folds the cells of threads that have died into the folded totals ([3]). */
    private Registry withoutDeadThreads(Registry current) {
        long[] folded = current.folded().clone();
        List<Thread> owners = new ArrayList<>();
        List<long[]> cells = new ArrayList<>();
        for (int i = 0; i < current.cells().length; i++) {
            Thread owner = current.owners()[i];
            long[] cell = current.cells()[i];
            if (owner.isAlive()) {
                owners.add(owner);
                cells.add(cell);
            } else {
                for (int t = 0; t < totals; t++) {
                    long value = (long) VALUES.getAcquire(cell, PAD + t);
                    folded[t] = t < sums ? folded[t] + value : Math.max(folded[t], value); // [5]
                }
            }
        }
        return new Registry(owners.toArray(new Thread[0]), cells.toArray(new long[0][]), folded);
    }
}
