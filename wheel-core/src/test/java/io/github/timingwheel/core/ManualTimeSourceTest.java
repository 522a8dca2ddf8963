package io.github.timingwheel.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.WheelFixtures.EveryOrigin;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link ManualTimeSource} and {@link TimeSource#system()}. */
class ManualTimeSourceTest {

    @Test
    void defaultStart_isZero() {
        assertThat(new ManualTimeSource().nanoTime()).isZero();
    }

    @EveryOrigin
    void advance_movesByTheConvertedAmountAndReturnsTheNewTime(long origin) {
        ManualTimeSource clock = new ManualTimeSource(origin);
        assertThat(clock.nanoTime()).isEqualTo(origin);
        assertThat(clock.advance(3, TimeUnit.MILLISECONDS)).isEqualTo(origin + 3_000_000L);
        assertThat(clock.advanceNanos(0)).isEqualTo(origin + 3_000_000L);
        assertThat(clock.advanceNanos(7)).isEqualTo(origin + 3_000_007L);
        assertThat(clock.nanoTime() - origin).isEqualTo(3_000_007L);
    }

    @Test
    void advance_wrapsLikeNanoTime() {
        ManualTimeSource clock = new ManualTimeSource(Long.MAX_VALUE - 1);
        long before = clock.nanoTime();
        assertThat(clock.advanceNanos(3)).isEqualTo(Long.MIN_VALUE + 1);
        assertThat(clock.nanoTime() - before).as("differences survive the wrap").isEqualTo(3);
        assertThat(clock.advance(1, TimeUnit.DAYS) - before).isEqualTo(3 + TimeUnit.DAYS.toNanos(1));
    }

    @Test
    void advance_negative_throwsIaeAndDoesNotMove() {
        ManualTimeSource clock = new ManualTimeSource(42);
        assertThatThrownBy(() -> clock.advanceNanos(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("amount");
        assertThatThrownBy(() -> clock.advance(Long.MIN_VALUE, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(clock.nanoTime()).isEqualTo(42);
    }

    @Test
    void advance_nullUnit_throwsNpeNamingIt() {
        assertThatThrownBy(() -> new ManualTimeSource().advance(1, null))
                .isInstanceOf(NullPointerException.class).hasMessage("unit");
    }

    @Test
    void system_neverGoesBackwards() {
        TimeSource system = TimeSource.system();
        long previous = system.nanoTime();
        for (int i = 0; i < 10_000; i++) {
            long now = system.nanoTime();
            assertThat(now - previous).isNotNegative();
            previous = now;
        }
        assertThat(TimeSource.system()).isSameAs(system);
    }
}
