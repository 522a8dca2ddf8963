package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.startVirtual;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/** Totals kept in a cell per thread ({@link CounterCells}): exact sums, and the slots of dead threads given again. */
class CounterCellsTest {

    /**
     * Adds from four threads, each through its looked-up cell and through the cell it holds
     * (CounterCells [7]), are all in the sums. Mutants: mine() a fresh array (total 2 is 0);
     * mine() the first cell for every thread (adds lost to the other threads' stores).
     */
    @Test
    void sums_areExact_onceTheAddingStops() throws InterruptedException {
        CounterCells cells = new CounterCells(3);
        int threads = 4;
        int adds = 100_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> adders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread adder = new Thread(() -> {
                ExecutorTesting.awaitInTask(go);
                long[] mine = cells.mine(); // held across adds, as a run holds it ([7])
                for (int i = 0; i < adds; i++) {
                    cells.add(0, 1);
                    cells.add(mine, 2, -2);
                }
            });
            adder.start();
            adders.add(adder);
        }
        go.countDown();
        for (Thread adder : adders) {
            adder.join();
        }
        assertThat(cells.sum(0)).isEqualTo((long) threads * adds);
        assertThat(cells.sum(1)).isZero();
        assertThat(cells.sum(2)).isEqualTo(-2L * threads * adds);
        assertThat(cells.cells()).as("cells, the adders' among them").isLessThanOrEqualTo(ThreadSlots.count() + CounterCells.SPARE_CELLS);
    }

    /**
     * A thread that counted before a CounterCells was made finds its cell there: its adds make
     * none (CounterCells [3], [6]). Mutant: cells made on a thread's first add (none at first;
     * the add makes one).
     */
    @Test
    void aThreadThatCountedBefore_findsItsCellMade() {
        int mine = ThreadSlots.mine();
        CounterCells cells = new CounterCells(1);
        int made = cells.cells();
        assertThat(made).as("cells made with it").isGreaterThan(mine);
        cells.add(0, 4);
        assertThat(cells.cells()).as("cells after this thread's add").isEqualTo(made);
        assertThat(cells.sum(0)).isEqualTo(4L);
    }

    /**
     * A thread that dies leaves its slot, and its cells, to the next thread that counts
     * (ThreadSlots [3], CounterCells [2]): a thousand threads one after another keep the cells
     * as they were, and every add counts. Mutants: a slot never given again (the cells grow
     * past the spare ones); cells made on a thread's first add (likewise).
     */
    @Test
    void slotsOfDeadThreads_areGivenAgain_andTheirCountsKept() throws InterruptedException {
        CounterCells cells = new CounterCells(1);
        int made = cells.cells();
        int threads = 1_000;
        int[] slots = new int[threads];
        for (int t = 0; t < threads; t++) {
            int index = t;
            Thread adder = new Thread(() -> {
                slots[index] = ThreadSlots.mine();
                cells.add(0, 3);
            });
            adder.start();
            adder.join(); // one at a time: each has died before the next claims a slot
        }
        assertThat(cells.sum(0)).isEqualTo(3L * threads);
        assertThat(cells.cells()).as("cells after %d threads that died", threads).isEqualTo(made);
        assertThat(slots[threads - 1]).as("the last thread's slot").isNotEqualTo(ThreadSlots.mine());
    }

    @Test
    void maxima_areTheLargestRaised_inLiveAndDeadThreadsCells() throws InterruptedException {
        CounterCells cells = new CounterCells(2, 1);
        int threads = 1_000; // one after another: each slot goes to thread after thread
        for (int t = 0; t < threads; t++) {
            long value = t == 500 ? 1_000_000L : t; // the largest comes from a thread that died since
            Thread raiser = new Thread(() -> cells.countAndRaise(cells.mine(), 0, 1, 2, value));
            raiser.start();
            raiser.join();
        }
        cells.countAndRaise(cells.mine(), 0, 1, 2, 7L); // a live cell below the maximum changes nothing
        assertThat(cells.max(2)).isEqualTo(1_000_000L);
        assertThat(cells.sum(0)).isEqualTo(threads + 1L);
        assertThat(cells.sum(1)).isEqualTo(threads + 1L);
        cells.countAndRaise(cells.mine(), 0, 1, 2, 2_000_000L);
        assertThat(cells.max(2)).isEqualTo(2_000_000L);
    }

    @Test
    void aThreadAddsToItsOwnCell_whileAnotherReads() throws InterruptedException {
        CounterCells cells = new CounterCells(1);
        cells.add(0, 5);
        Thread other = new Thread(() -> cells.add(0, 7));
        other.start();
        other.join();
        assertThat(cells.sum(0)).isEqualTo(12);
    }

    /**
     * sum() read while others add, and while the slots of threads that died are given to new
     * ones: each read is at least the adds that had completed before it (an add, then a
     * release-increment of the adder's own "done" count; the reader reads "done" and then sums),
     * at most the adds that had started by the time it returned, and never below the read
     * before it (every delta is positive). Short-lived adders, one after another, each take
     * the slot the one before left.
     *
     * <p>Mutant: a slot never given again (a cell made for each short-lived thread).
     */
    @Test
    void sum_whileOthersAdd_andDeadThreadsSlotsAreGivenAgain_isMonotonicAndBoundedByTheAdds()
            throws InterruptedException {
        CounterCells cells = new CounterCells(2);
        int longLived = 2;
        int shortLived = 400;
        int addsPerShortLived = 50;
        // Slot t: adder t's adds started and done. Long-lived adders are 0 and 1; the short-lived
        // ones share slot 2 (they run one at a time, so one counter each suffices).
        AtomicLongArray started = new AtomicLongArray(longLived + 1);
        AtomicLongArray done = new AtomicLongArray(longLived + 1);
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> adders = new ArrayList<>();
        for (int t = 0; t < longLived; t++) {
            int slot = t;
            Thread adder = new Thread(() -> {
                while (!stop.get()) {
                    started.incrementAndGet(slot);
                    cells.add(1, 1);
                    done.incrementAndGet(slot);
                }
            }, "long-lived-adder-" + t);
            adder.start();
            adders.add(adder);
        }
        Thread spawner = new Thread(() -> {
            for (int t = 0; t < shortLived; t++) {
                Thread adder = new Thread(() -> {
                    for (int i = 0; i < addsPerShortLived; i++) {
                        started.incrementAndGet(longLived);
                        cells.add(1, 1);
                        done.incrementAndGet(longLived);
                    }
                });
                adder.start();
                try {
                    adder.join(); // dead before the next claims a slot: its slot is free
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }, "short-lived-adders");
        spawner.start();

        List<String> wrong = new ArrayList<>();
        long previous = 0;
        long reads = 0;
        while (spawner.isAlive() || reads < 10_000) {
            long lower = total(done);
            long sum = cells.sum(1);
            long upper = total(started);
            reads++;
            if (sum < lower || sum > upper || sum < previous) {
                wrong.add("read " + reads + ": sum " + sum + ", previous " + previous + ", adds done before "
                        + lower + ", started after " + upper);
                if (wrong.size() >= 10) {
                    break;
                }
            }
            previous = sum;
        }
        stop.set(true);
        spawner.join();
        for (Thread adder : adders) {
            adder.join();
        }
        assertThat(wrong).as("after %d reads", reads).isEmpty();
        assertThat(cells.sum(1)).as("once the adding stopped").isEqualTo(total(done));
        assertThat(cells.sum(0)).isZero();
        assertThat(cells.cells()).as("cells made, %d short-lived threads having died", shortLived)
                .isLessThan(shortLived);
    }

    private static long total(AtomicLongArray counts) {
        long total = 0;
        for (int i = 0; i < counts.length(); i++) {
            total += counts.get(i);
        }
        return total;
    }

    /**
     * Virtual threads (JDK 21 and later; skipped before) add to the shared totals and get no
     * cell: the sums are exact and no cell is made for them. Mutants: a slot for every thread
     * (the cells grow to the virtual threads' number), and add without the test for a virtual
     * thread (an index out of the shared marker's bounds).
     */
    @Test
    void virtualThreads_addToSharedTotals_withoutCells() throws Exception {
        CounterCells cells = new CounterCells(2, 1);
        cells.add(0, 1); // this platform thread's cell
        int made = cells.cells();
        int threads = 1_000;
        List<Thread> adders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long value = t;
            adders.add(startVirtual(() -> {
                cells.add(cells.mine(), 0, 1);
                cells.countAndRaise(cells.mine(), 0, 1, 2, value);
            }));
        }
        for (Thread adder : adders) {
            adder.join();
        }
        assertThat(cells.sum(0)).isEqualTo(1L + 2L * threads);
        assertThat(cells.sum(1)).isEqualTo(threads);
        assertThat(cells.max(2)).isEqualTo(threads - 1L);
        assertThat(cells.cells()).as("cells after the virtual threads' adds").isEqualTo(made);
    }
}
