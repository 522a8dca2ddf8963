package io.github.timingwheel.core;

/**
 * One bit per slot of a level: set exactly when the slot's bucket is not empty, so that the next
 * non-empty slot is found with a few word scans instead of a walk over empty slots.
 */
final class OccupancyBitmap {

    private final long[] words;

    OccupancyBitmap(int bits) {
        this.words = new long[(bits + Long.SIZE - 1) / Long.SIZE];
    }

    void set(int index) {
        words[index >>> 6] |= 1L << index;
    }

    void clear(int index) {
        words[index >>> 6] &= ~(1L << index);
    }

    boolean get(int index) {
        return (words[index >>> 6] & (1L << index)) != 0;
    }

    void clearAll() {
        java.util.Arrays.fill(words, 0L);
    }

    /** Returns the lowest set index strictly greater than {@code index}, or -1 if none. */
    int nextSetAfter(int index) {
        int from = index + 1;
        int wordIndex = from >>> 6;
        if (wordIndex >= words.length) {
            return -1;
        }
        // Shifts use the low six bits of 'from': this masks off the bits below it in its word.
        long word = words[wordIndex] & (-1L << from);
        while (true) {
            if (word != 0) {
                return (wordIndex << 6) + Long.numberOfTrailingZeros(word);
            }
            if (++wordIndex == words.length) {
                return -1;
            }
            word = words[wordIndex];
        }
    }
}
