package io.github.timingwheel.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Totals kept in a cell per thread ({@link CounterCells}): exact sums, and cells of dead threads folded. */
class CounterCellsTest {

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
                for (int i = 0; i < adds; i++) {
                    cells.add(0, 1);
                    cells.add(2, -2);
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
        assertThat(cells.cells()).as("one cell per thread that added").isEqualTo(threads);
    }

    @Test
    void cellsOfDeadThreads_areFolded_andTheirCountsKept() throws InterruptedException {
        CounterCells cells = new CounterCells(1);
        int threads = 1_000;
        for (int t = 0; t < threads; t++) {
            Thread adder = new Thread(() -> cells.add(0, 3));
            adder.start();
            adder.join(); // one at a time: each has died before the next registers
        }
        assertThat(cells.sum(0)).isEqualTo(3L * threads);
        assertThat(cells.cells()).as("cells kept for %d threads that died", threads).isLessThanOrEqualTo(64);
    }

    @Test
    void aThreadAddsToItsOwnCell_whileAnotherReads() throws InterruptedException {
        CounterCells cells = new CounterCells(1);
        cells.add(0, 5);
        Thread other = new Thread(() -> cells.add(0, 7));
        other.start();
        other.join();
        assertThat(cells.sum(0)).isEqualTo(12);
        assertThat(cells.cells()).isEqualTo(2);
    }
}
