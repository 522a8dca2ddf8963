package io.github.timingwheel.core;

import static io.github.timingwheel.core.WheelFixtures.delaysAtEveryLevel;
import static io.github.timingwheel.core.WheelInvariants.locate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.WheelFixtures.EveryOrigin;
import io.github.timingwheel.core.WheelFixtures.EveryShapeAndOrigin;
import io.github.timingwheel.core.WheelFixtures.Harness;
import io.github.timingwheel.core.WheelFixtures.TestNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Bad and extreme input to {@link TimingWheel}: nulls, negative and huge delays, misuse of nodes. */
@Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a looping wheel fails, not hangs
class TimingWheelInputTest {

    @Test
    void constructor_nullShape_throwsNpeNamingShape() {
        assertThatThrownBy(() -> new TimingWheel<TestNode>(null, 0L))
                .isInstanceOf(NullPointerException.class).hasMessage("shape");
    }

    @Test
    void nullArguments_throwNpeNamingTheArgument() {
        TimingWheel<TestNode> wheel = new TimingWheel<>(0L);
        assertThatThrownBy(() -> wheel.schedule(null, 1L)).isInstanceOf(NullPointerException.class).hasMessage("node");
        assertThatThrownBy(() -> wheel.cancel(null)).isInstanceOf(NullPointerException.class).hasMessage("node");
        assertThatThrownBy(() -> wheel.forEach(null)).isInstanceOf(NullPointerException.class).hasMessage("action");
        assertThatThrownBy(() -> wheel.drain(null)).isInstanceOf(NullPointerException.class).hasMessage("sink");
        TestNode[] into = new TestNode[4];
        assertThatThrownBy(() -> wheel.pollDue(0L, null, 0, 0)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> wheel.pollDueBefore(0L, null, into, 0, 0)).isInstanceOf(NullPointerException.class)
                .hasMessage("bound");
    }

    @Test
    void pollDue_rangeOutsideTheArray_throwsIndexOutOfBoundsAndTakesNothing() {
        TimingWheel<TestNode> wheel = new TimingWheel<>(0L);
        TestNode due = new TestNode(1);
        wheel.schedule(due, 0L);
        TestNode[] into = new TestNode[4];
        assertThatThrownBy(() -> wheel.pollDue(0L, into, -1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> wheel.pollDue(0L, into, 3, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> wheel.pollDue(0L, into, 0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(wheel.size()).isEqualTo(1);
        assertThat(wheel.pollDue(0L, into, 3, 1)).isEqualTo(1);
        assertThat(into[3]).isSameAs(due);
        assertThat(wheel.isEmpty()).isTrue();
    }

    @EveryOrigin
    void deadlineAfter_negativeDelay_meansNow(long origin) {
        Harness h = new Harness(WheelFixtures.NARROW, origin);
        h.advanceTo(12_345_678L);
        for (long delay : new long[] {-1L, -1_000_000_000L, Long.MIN_VALUE}) {
            assertThat(h.wheel.deadlineAfter(h.clock.nanoTime(), delay)).isEqualTo(h.now());
        }
        TestNode node = h.schedule(Long.MIN_VALUE);
        assertThat(h.pollAll()).as("due at once").containsExactly(node);
    }

    @EveryOrigin
    void schedule_negativeDeadline_meansZero(long origin) {
        Harness h = new Harness(WheelFixtures.NARROW, origin);
        TestNode node = h.scheduleAt(-5L);
        assertThat(node.deadline()).isZero();
        assertThat(h.pollAll()).containsExactly(node);
    }

    @EveryOrigin
    void wheelTime_isNanosSinceOriginAndNeverNegative(long origin) {
        TimingWheel<TestNode> wheel = new TimingWheel<>(origin);
        assertThat(wheel.wheelTime(origin)).isZero();
        assertThat(wheel.wheelTime(origin + 5_000_000_000L)).isEqualTo(5_000_000_000L); // may wrap
        assertThat(wheel.wheelTime(origin - 1)).as("before the origin").isZero();
        assertThat(wheel.wheelTime(origin + Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void addSaturated_capsAtMaxValue() {
        assertThat(TimingWheel.addSaturated(3L, 4L)).isEqualTo(7L);
        assertThat(TimingWheel.addSaturated(Long.MAX_VALUE - 1, 1L)).isEqualTo(Long.MAX_VALUE);
        assertThat(TimingWheel.addSaturated(Long.MAX_VALUE / 2 + 1, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }

    @EveryShapeAndOrigin
    void schedule_maxValueDelay_neverFiresAndNothingOverflows(Harness h) {
        TestNode atStart = h.schedule(Long.MAX_VALUE);
        assertThat(atStart.deadline()).isEqualTo(Long.MAX_VALUE);
        assertThat(h.wheel.peekEarliest()).isSameAs(atStart);
        assertThat(h.wheel.nanosUntilNextEvent(h.clock.nanoTime())).isPositive();

        assertThat(h.advanceAndPoll(Long.MAX_VALUE / 4)).isEmpty();
        TestNode later = h.schedule(Long.MAX_VALUE);
        assertThat(later.deadline()).as("saturated").isEqualTo(Long.MAX_VALUE);
        assertThat(h.advanceAndPoll(Long.MAX_VALUE / 4)).isEmpty();
        for (long step = 1; step < Long.MAX_VALUE / 16; step *= 3) {
            assertThat(h.advanceAndPoll(step)).isEmpty();
        }
        assertThat(h.wheel.nextEventTime()).isBetween(h.now() + 1, Long.MAX_VALUE);
        assertThat(h.wheel.nanosUntilNextEvent(h.clock.nanoTime())).isPositive();
        assertThat(h.wheel.peekEarliest()).isSameAs(atStart);
        assertThat(h.pending()).containsExactlyInAnyOrder(atStart, later);
        assertThat(h.cancel(later)).isTrue();
        assertThat(h.cancel(atStart)).isTrue();
        assertThat(h.wheel.nextEventTime()).isEqualTo(Long.MAX_VALUE);
    }

    @EveryShapeAndOrigin
    void schedule_maxValueDeadline_firesOnlyAtMaxWheelTime(Harness h) {
        TestNode node = h.scheduleAt(Long.MAX_VALUE);
        h.advanceTo(Long.MAX_VALUE - 1);
        assertThat(h.pollAll()).isEmpty();
        assertThat(h.wheel.peekEarliest()).isSameAs(node);
        assertThat(h.wheel.nanosUntilNextEvent(h.clock.nanoTime())).isEqualTo(1);
        h.advanceTo(Long.MAX_VALUE);
        assertThat(h.pollAll()).containsExactly(node);
    }

    @EveryShapeAndOrigin
    void poll_atMaxWheelTime_withNothingInTheWheelLevels_returnsDueNodesOnly(Harness h) {
        TestNode due = h.schedule(0);
        h.advanceTo(Long.MAX_VALUE);
        assertThat(h.pollAll()).containsExactly(due);
        TestNode atMax = h.schedule(Long.MAX_VALUE);
        assertThat(h.pollAll()).containsExactly(atMax);
        assertThat(h.wheel.nextEventTime()).isEqualTo(Long.MAX_VALUE);
    }

    @EveryShapeAndOrigin
    void schedule_twice_throwsIllegalStateAndChangesNothing(Harness h) {
        List<TestNode> nodes = new ArrayList<>();
        for (long delay : delaysAtEveryLevel(h.shape, h.random())) {
            nodes.add(h.schedule(delay));
        }
        for (TestNode node : nodes) {
            long deadline = node.deadline();
            int place = locate(h.wheel, node);
            assertThatThrownBy(() -> h.wheel.schedule(node, deadline + 12_345))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("already scheduled");
            assertThat(node.deadline()).isEqualTo(deadline);
            assertThat(locate(h.wheel, node)).isEqualTo(place);
            WheelInvariants.check(h.wheel);
        }
        assertThat(h.wheel.size()).isEqualTo(nodes.size());
    }

    @EveryShapeAndOrigin
    void cancel_neverScheduledPolledOrCancelled_returnsFalseAndChangesNothing(Harness h) {
        List<TestNode> pending = new ArrayList<>();
        for (long delay : delaysAtEveryLevel(h.shape, h.random())) {
            pending.add(h.schedule(delay + h.tickNanos()));
        }
        TestNode polled = h.schedule(0);
        assertThat(h.pollAll()).containsExactly(polled);
        TestNode cancelled = h.schedule(h.tickNanos() * 3);
        assertThat(h.cancel(cancelled)).isTrue();

        for (TestNode stranger : List.of(h.newNode(), polled, cancelled)) {
            long size = h.wheel.size();
            long next = h.wheel.nextEventTime();
            TestNode earliest = h.wheel.peekEarliest();
            assertThat(h.cancel(stranger)).as("cancel of %s", stranger).isFalse();
            assertThat(h.wheel.size()).isEqualTo(size);
            assertThat(h.wheel.nextEventTime()).isEqualTo(next);
            assertThat(h.wheel.peekEarliest()).isSameAs(earliest);
            assertThat(h.pending()).containsExactlyInAnyOrderElementsOf(pending);
        }
    }

    @EveryShapeAndOrigin
    void polledAndCancelledNodes_canBeScheduledAgain(Harness h) {
        TestNode node = h.schedule(h.tickNanos() * 100);
        assertThat(h.cancel(node)).isTrue();
        h.wheel.schedule(node, h.wheel.deadlineAfter(h.clock.nanoTime(), h.tickNanos() * 2));
        WheelInvariants.check(h.wheel);
        assertThat(h.advanceAndPoll(h.tickNanos() * 2)).containsExactly(node);
        h.wheel.schedule(node, h.wheel.deadlineAfter(h.clock.nanoTime(), h.tickNanos() * 7));
        assertThat(h.advanceAndPoll(h.tickNanos() * 7)).containsExactly(node);
        assertThat(h.advanceAndPoll(h.tickNanos() * 700)).isEmpty();
    }

    @Test
    void forEach_andDrain_onEmptyWheel_seeNothing() {
        TimingWheel<TestNode> wheel = new TimingWheel<>(0L);
        List<TestNode> seen = new ArrayList<>();
        Consumer<TestNode> sink = seen::add;
        wheel.forEach(sink);
        assertThat(wheel.drain(sink)).isZero();
        assertThat(seen).isEmpty();
        assertThat(wheel.poll(Long.MAX_VALUE)).isNull();
        assertThat(wheel.peekEarliest()).isNull();
    }
}
