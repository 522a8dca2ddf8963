package io.github.timingwheel.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link OccupancyBitmap#nextSetAfter} against a sorted set, across word boundaries. */
class OccupancyBitmapTest {

    @ParameterizedTest
    @ValueSource(ints = {2, 8, 64, 128, 1024, WheelShape.MAX_SLOTS_PER_LEVEL})
    void nextSetAfter_agreesWithASortedSet(int bits) {
        OccupancyBitmap bitmap = new OccupancyBitmap(bits);
        TreeSet<Integer> model = new TreeSet<>();
        SplittableRandom random = new SplittableRandom(bits);
        for (int round = 0; round < 2_000; round++) {
            int index = random.nextInt(4) == 0 ? bits - 1 - random.nextInt(Math.min(bits, 3)) : random.nextInt(bits);
            if (random.nextBoolean()) {
                bitmap.set(index);
                model.add(index);
            } else {
                bitmap.clear(index);
                model.remove(index);
            }
            int from = random.nextInt(-1, bits);
            Integer expected = model.higher(from);
            assertThat(bitmap.nextSetAfter(from)).as("after %d", from).isEqualTo(expected == null ? -1 : expected);
            assertThat(bitmap.get(index)).isEqualTo(model.contains(index));
        }
        assertThat(bitmap.nextSetAfter(bits - 1)).isEqualTo(-1);
        bitmap.clearAll();
        assertThat(bitmap.nextSetAfter(-1)).isEqualTo(-1);
    }
}
