package io.github.timingwheel.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.FieldLayout;

/**
 * The fields a wheel's holder writes on every link and unlink keep a cache line of padding on
 * each side, as this JVM lays the class out (read with JOL): another thread's wheel, or any
 * object a collector puts next to this one, then never shares their line.
 */
class TimingWheelLayoutTest {

    private static final int CACHE_LINE = 64;

    @Test
    void writtenFields_haveACacheLineOfPaddingOnEachSide() {
        ClassLayout layout = ClassLayout.parseClass(TimingWheel.class);
        for (String name : List.of("currentTick", "nextSequence", "size", "movedNodes", "overflowMinTick")) {
            FieldLayout field = field(layout, name);
            assertThat(field.offset()).as("bytes before %s", name).isGreaterThanOrEqualTo(CACHE_LINE);
            assertThat(layout.instanceSize() - field.offset() - field.size())
                    .as("bytes after %s", name).isGreaterThanOrEqualTo(CACHE_LINE);
        }
    }

    private static FieldLayout field(ClassLayout layout, String name) {
        return layout.fields().stream().filter(f -> f.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no field " + name + " in " + layout.toPrintable()));
    }
}
