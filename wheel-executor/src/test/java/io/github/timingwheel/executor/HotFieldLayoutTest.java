package io.github.timingwheel.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.FieldLayout;

/**
 * The fields that one producer writes on every schedule and cancel keep a cache line of padding
 * on each side, as this JVM lays the classes out (read with JOL). A JVM of JDK 15 or later puts
 * a subclass's int field into the 4 bytes after a compressed header, in front of padding
 * inherited from a superclass: the shard's lock word sat there, in the line of whatever object
 * lay before the shard, and two producers on two shards ran at half speed or less whenever
 * that object was one the other wrote (the mutant: WheelShardPadBefore without its 'p00').
 */
class HotFieldLayoutTest {

    private static final int CACHE_LINE = 64;

    @Test
    void shard_lockAndBounds_haveACacheLineOfPaddingOnEachSide() {
        assertPadded(WheelShard.class, List.of("lockState", "wheelEvent", "inboxEvent"));
    }

    @Test
    void producer_probeAndStamp_haveACacheLineOfPaddingOnEachSide() throws ClassNotFoundException {
        assertPadded(Class.forName(WheelShards.class.getName() + "$PaddedProducer"), List.of("probe", "lastNanos"));
    }

    /**
     * A virtual thread's producer state is not padded: it is made per thread, and a virtual
     * thread typically schedules for one request and ends (WheelShards, Producer). Mutant: a
     * virtual thread's class padded as a platform thread's (160 bytes).
     */
    @Test
    void virtualThreadProducer_isNotPadded() throws ClassNotFoundException {
        ClassLayout layout = ClassLayout.parseClass(Class.forName(WheelShards.class.getName() + "$VirtualProducer"));
        assertThat(layout.instanceSize()).as(layout.toPrintable()).isLessThanOrEqualTo(32L);
    }

    private static void assertPadded(Class<?> type, List<String> names) {
        ClassLayout layout = ClassLayout.parseClass(type);
        for (String name : names) {
            FieldLayout field = layout.fields().stream().filter(f -> f.name().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError("no field " + name + " in " + layout.toPrintable()));
            assertThat(field.offset()).as("bytes before %s.%s", type.getSimpleName(), name)
                    .isGreaterThanOrEqualTo(CACHE_LINE);
            assertThat(layout.instanceSize() - field.offset() - field.size())
                    .as("bytes after %s.%s", type.getSimpleName(), name).isGreaterThanOrEqualTo(CACHE_LINE);
        }
    }
}
