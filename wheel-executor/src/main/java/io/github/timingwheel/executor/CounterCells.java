package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
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
 *   <li>Cells are made for every {@link ThreadSlots slot} of the JVM, whether or not its thread
 *       ever adds here: as many as the platform threads that count at once, plus a few.
 * </ul>
 */
final class CounterCells {

    /*
     * Implementation notes
     *
     * [1] One writer per cell: only the thread that holds a slot writes its cell, so an add
     *     needs no atomicity; it reads its own last value plainly and publishes the new one with
     *     a release store. A reader's acquire load then sees a value at least as new as anything
     *     that happened-before what it read earlier with acquire (TaskCounters [2] relies on it).
     * [2] 'cells' is indexed by ThreadSlots' slot. It is replaced, never changed, under the
     *     monitor of this object, and read without it: a reader sums over one array, in which
     *     every add is in exactly one cell. A slot given again to a new thread keeps its cell:
     *     the new thread goes on from the dead thread's values (ThreadSlots [3]), so no add is
     *     lost and none is folded anywhere.
     * [3] Cells are made when the CounterCells is, for every slot given so far and SPARE_CELLS
     *     more (the executor's own workers, started after it, usually claim those), and later
     *     only for a thread whose slot is past them all. So the look-up on an add is an index
     *     into an array that already holds the cell: the branch to make one is not taken by a
     *     thread that counted anywhere before this CounterCells was made ([6]).
     * [4] Padding. The cells are reachable from one array, so a garbage collector that copies
     *     them copies them one after another: two threads' totals would then share a cache
     *     line, and every add of one would pull it from the other's core (two producers paid
     *     up to twice the CPU per schedule+cancel pair in rounds after such a copy). Each cell
     *     keeps its totals PAD longs (a cache line) away from both of its ends.
     * [5] Maxima. After the totals a cell may keep maxima (how late a run started, at the
     *     latest): its thread raises its own with a plain read and, only when the value is
     *     larger, a release store; a reader takes the largest over the cells. A
     *     LongAccumulator of Math::max costs a CAS whenever the maximum rises, which in a burst
     *     is every run, since each starts later than the one before.
     * [6] No look-up on an add takes a branch the JIT has not seen taken, once a thread has
     *     counted anywhere: its slot is one thread-local of the JVM (ThreadSlots [1]), and its
     *     cell is already here ([3]). A thread-local per CounterCells, or a cell made on a
     *     thread's first add, is such a branch on every new executor: an uncommon trap that
     *     threw away the compiled schedule path (and an arming loop that had inlined it,
     *     which then ran interpreted into its own timers' window), or the compiled run path
     *     of a new executor's workers as the first timers came due.
     *     A virtual thread is told apart before the look-up, and adds to the shared adders
     *     without one: it typically lives for one request (in a server that runs each request
     *     on its own), so a slot made for it would be made and dropped per request. That test
     *     is not such a branch: once any virtual thread counts, every later one takes it, so
     *     a compiled add that never saw one is thrown away at most once.
     * [7] A thread that adds several times in a row (a run: started, ended, completed) looks
     *     its cell up once ({@link #mine}) and passes it to each add: a look-up (the
     *     thread-local, the array) cost about as much as the adds themselves. The cell stays
     *     the thread's while it lives, so holding it across the body of a run is safe.
     */

    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(long[].class);
    /** Longs on each side of a cell's totals: a cache line of 64 bytes ([4]). */
    private static final int PAD = 8;
    /** Cells made past the slots given so far, for the threads that start next ([3]). */
    static final int SPARE_CELLS = 8;
    /** A virtual thread's stand-in for a cell: it adds to the shared adders ([6]). */
    private static final long[] SHARED = new long[0];

    /** Totals, then maxima ([5]): indices from 'sums' on are maxima. */
    private final int totals;
    private final int sums;
    /** Each slot's cell ([2], [3]). */
    private volatile long[][] cells;
    /** Where virtual threads add. */
    private final LongAdder[] shared;
    /** Where virtual threads raise the maxima ([5]). */
    private final LongAccumulator[] sharedMaxima;

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
        this.cells = withCellsUpTo(new long[0][], ThreadSlots.count() + SPARE_CELLS);
    }

    /** Adds {@code delta} to total {@code index}, in the calling thread's cell. */
    void add(int index, long delta) {
        add(mine(), index, delta);
    }

    /** Adds {@code delta} to total {@code index} in {@code cell}, the calling thread's ([7]). */
    void add(long[] cell, int index, long delta) {
        if (cell == SHARED) {
            shared[index].add(delta);
            return;
        }
        VALUES.setRelease(cell, PAD + index, cell[PAD + index] + delta); // [1]
    }

    /**
     * Adds 1 to totals {@code first} and {@code second} and raises maximum {@code maximum} to
     * {@code value} if that is larger, in {@code cell}, the calling thread's ([5], [7]).
     */
    void countAndRaise(long[] cell, int first, int second, int maximum, long value) {
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
        long sum = shared[index].sum();
        for (long[] cell : cells) {
            sum += (long) VALUES.getAcquire(cell, PAD + index);
        }
        return sum;
    }

    /** The largest value maximum {@code index} was raised to in any cell, 0 if none ([5]). */
    long max(int index) {
        long max = sharedMaxima[index - sums].get();
        for (long[] cell : cells) {
            max = Math.max(max, (long) VALUES.getAcquire(cell, PAD + index));
        }
        return max;
    }

    /** The number of cells made so far; for tests. */
    int cells() {
        return cells.length;
    }

    /**
     * The calling thread's cell, or SHARED for a virtual thread ([3], [6]); to be passed only
     * to this CounterCells' adds, on the same thread, for adds in a row ([7]).
     */
    long[] mine() {
        if (VirtualThreads.current()) {
            return SHARED;
        }
        int slot = ThreadSlots.mine();
        long[][] all = cells;
        return slot < all.length ? all[slot] : cellPast(slot);
    }

    /** The cell of a slot given after this CounterCells was made, past its spare cells ([3]). */
    private synchronized long[] cellPast(int slot) {
        long[][] all = cells;
        if (slot >= all.length) {
            all = withCellsUpTo(all, Math.max(slot + 1, ThreadSlots.count()) + SPARE_CELLS);
            cells = all;
        }
        return all[slot];
    }

    /** {@code all} and new cells after it, {@code length} in all. */
    private long[][] withCellsUpTo(long[][] all, int length) {
        long[][] grown = Arrays.copyOf(all, length);
        for (int i = all.length; i < length; i++) {
            grown[i] = new long[PAD + totals + PAD]; // [4]
        }
        return grown;
    }
}
