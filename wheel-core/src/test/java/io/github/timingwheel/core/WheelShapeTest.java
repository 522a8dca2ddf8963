package io.github.timingwheel.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link WheelShape}: defaults, and every builder argument checked at once, naming itself. */
class WheelShapeTest {

    @Test
    void defaults_areOneMillisecondTick256SlotsFourLevels() {
        WheelShape shape = WheelShape.defaults();
        assertThat(shape.tickNanos()).isEqualTo(1_000_000L);
        assertThat(shape.slotsPerLevel()).isEqualTo(256);
        assertThat(shape.levels()).isEqualTo(4);
        assertThat(shape.slotBits()).isEqualTo(8);
        assertThat(WheelShape.builder().build()).isEqualTo(shape).hasSameHashCodeAs(shape);
    }

    @Test
    void builder_setsEveryValue() {
        WheelShape shape = WheelShape.builder().tick(7, TimeUnit.MICROSECONDS).slotsPerLevel(1024).levels(3).build();
        assertThat(shape.tickNanos()).isEqualTo(7_000L);
        assertThat(shape.slotsPerLevel()).isEqualTo(1024);
        assertThat(shape.slotBits()).isEqualTo(10);
        assertThat(shape.levels()).isEqualTo(3);
        assertThat(shape).isNotEqualTo(WheelShape.defaults());
        assertThat(shape.toString()).contains("7000", "1024", "3");
    }

    @ParameterizedTest
    @ValueSource(ints = {Integer.MIN_VALUE, -64, 0, 1, 3, 6, 100, 1023, WheelShape.MAX_SLOTS_PER_LEVEL * 2, Integer.MAX_VALUE})
    void slotsPerLevel_notAPowerOfTwoInRange_throwsIaeNamingIt(int slots) {
        assertThatThrownBy(() -> WheelShape.builder().slotsPerLevel(slots))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slotsPerLevel");
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 64, 1024, WheelShape.MAX_SLOTS_PER_LEVEL})
    void slotsPerLevel_powerOfTwoInRange_isAccepted(int slots) {
        assertThat(WheelShape.builder().slotsPerLevel(slots).levels(1).build().slotsPerLevel()).isEqualTo(slots);
    }

    @ParameterizedTest
    @ValueSource(longs = {0L, -1L, Long.MIN_VALUE})
    void tick_notPositive_throwsIaeNamingIt(long tick) {
        assertThatThrownBy(() -> WheelShape.builder().tick(tick, TimeUnit.MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tick");
    }

    @Test
    void tick_nullUnit_throwsNpeNamingIt() {
        assertThatThrownBy(() -> WheelShape.builder().tick(1, null))
                .isInstanceOf(NullPointerException.class).hasMessage("unit");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void levels_notPositive_throwsIaeNamingIt(int levels) {
        assertThatThrownBy(() -> WheelShape.builder().levels(levels))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("levels");
    }

    @Test
    void build_levelsTimesSlotBitsUpTo62_isAccepted() {
        assertThat(WheelShape.builder().slotsPerLevel(2).levels(62).build().levels()).isEqualTo(62);
        assertThat(WheelShape.builder().slotsPerLevel(64).levels(10).build().levels()).isEqualTo(10);
        WheelShape widest = WheelShape.builder().slotsPerLevel(1 << 16).levels(3).build();
        assertThat(new TimingWheel<TimerNode>(widest, 0L).levels()).isEqualTo(3);
    }

    @ParameterizedTest
    @ValueSource(strings = {"2x63", "64x11", "65536x4", "16x1073741824", "64x715827883", "2x2147483647"})
    void build_levelsTimesSlotBitsOver62_throwsIaeNamingBoth(String slotsByLevels) {
        String[] parts = slotsByLevels.split("x");
        WheelShape.Builder builder = WheelShape.builder()
                .slotsPerLevel(Integer.parseInt(parts[0])).levels(Integer.parseInt(parts[1]));
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("levels").hasMessageContaining("slotsPerLevel");
    }
}
