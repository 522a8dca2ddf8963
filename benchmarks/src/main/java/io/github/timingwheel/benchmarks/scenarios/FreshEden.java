package io.github.timingwheel.benchmarks.scenarios;

/**
 * Starts a turn with an empty young generation: allocates short-lived arrays until the
 * collectors report one more collection. Subjects take turns in one JVM, and without this the
 * subject whose turn comes when the young generation is nearly full pays for the garbage of the
 * ones before it: its own collection lands inside its measurement, and with a million timers
 * pending a young collection evacuates all of them (98 to 166 ms in the burst, whichever
 * subject went first in its turn). A full collection ({@code System.gc()}) instead of this one
 * would also empty it, but G1 sizes the young generation again after a full collection, so the
 * turns that follow run in a regime of their own (more collections, each with the turn's live
 * timers to move).
 *
 * <p>The arrays are small enough (32 KiB) never to be humongous in G1, and each is stored in a
 * field that the next one overwrites, so none outlives the next allocation.
 */
final class FreshEden {

    private static final int CHUNK_BYTES = 32 * 1024;
    /** A bound on the work, for a collector that never collects a young generation on its own. */
    private static final long MAX_NANOS = 10_000_000_000L;

    /** Written by every allocation, so that the allocations are not optimised away. */
    static volatile byte[] sink;

    private FreshEden() {
    }

    /**
     * Allocates until a collection happens, or for at most 10 s.
     *
     * @return whether a collection happened
     */
    static boolean collect() {
        long before = GcTime.collections();
        long giveUpAt = System.nanoTime() + MAX_NANOS;
        while (true) {
            for (int i = 0; i < 256; i++) { // 8 MiB between two looks at the counts
                sink = new byte[CHUNK_BYTES];
            }
            if (GcTime.collections() != before) {
                sink = null;
                return true;
            }
            if (System.nanoTime() - giveUpAt > 0) {
                sink = null;
                return false;
            }
        }
    }
}
