package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static io.github.timingwheel.executor.MissedRunPolicy.CATCH_UP;
import static io.github.timingwheel.executor.MissedRunPolicy.RESTART;
import static io.github.timingwheel.executor.MissedRunPolicy.SKIP;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.core.ManualTimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each {@link MissedRunPolicy} on a manual clock: a fixed-rate task with a 10 ms period across a
 * pause of several periods (the timeline of the policy's javadoc), and across a run that takes
 * longer than the period; the exact list of (run, time it started, next deadline). Since the
 * list holds each run's next deadline and the clock stops at each step until the expected runs
 * have returned, an extra run would show up in it.
 */
class MissedRunPolicyTest {

    private static final long MS = MILLISECONDS.toNanos(1L);
    private static final long PERIOD_MS = 10L;

    private final ManualTimeSource clock = new ManualTimeSource();
    private RunObservingExecutor executor;

    /** One run: its index, when it started and the deadline it left for the next, in ms of the manual clock. */
    private record Run(int index, long startedMs, long nextDeadlineMs) {
    }

    /** Move the clock to {@code atMs}, then wait for {@code runs} runs to return. */
    private record Step(long atMs, int runs) {
    }

    /** Where the policy comes from: the task's own argument, or the builder's default for the executor or a group. */
    private enum Via { TASK, BUILDER, GROUP }

    @AfterEach
    void stop() throws InterruptedException {
        if (executor != null) {
            executor.shutdownNow();
            awaitTermination(executor);
        }
    }

    // ---------------------------------------------------------------------------------------
    // The rule alone.

    @Test
    void theJavadocTimeline_oneRuleAtATime() {
        // The run due at 30 ran at 58 (the end of the pause) and took no time.
        assertThat(CATCH_UP.nextDeadline(30, 10, 58)).isEqualTo(40);
        assertThat(SKIP.nextDeadline(30, 10, 58)).isEqualTo(60);
        assertThat(RESTART.nextDeadline(30, 10, 58)).isEqualTo(68);
    }

    @ParameterizedTest
    @EnumSource(MissedRunPolicy.class)
    void nothingMissed_everyPolicyKeepsTheSchedule(MissedRunPolicy policy) {
        assertThat(policy.nextDeadline(30, 10, 30)).isEqualTo(40);
        assertThat(policy.nextDeadline(30, 10, 39)).isEqualTo(40);
        assertThat(policy.nextDeadline(30, 10, 40)).as("due exactly at the end: not missed").isEqualTo(40);
    }

    @Test
    void skip_endingExactlyOnTheSchedule_runsThen() {
        assertThat(SKIP.nextDeadline(30, 10, 60)).isEqualTo(60);
        assertThat(SKIP.nextDeadline(30, 10, 61)).isEqualTo(70);
    }

    @ParameterizedTest
    @EnumSource(MissedRunPolicy.class)
    void hugeTimes_saturateInsteadOfOverflowing(MissedRunPolicy policy) {
        long max = Long.MAX_VALUE;
        assertThat(policy.nextDeadline(max - 5, 10, max - 5)).isEqualTo(max);
        assertThat(policy.nextDeadline(0, max, 1)).isEqualTo(max);
        long late = policy.nextDeadline(0, 3, max - 1);
        assertThat(late).isGreaterThanOrEqualTo(policy == CATCH_UP ? 3 : max - 1);
    }

    // ---------------------------------------------------------------------------------------
    // On an executor.

    static Stream<Arguments> pauses() {
        List<Step> steps = List.of(new Step(10, 1), new Step(20, 1), new Step(25, 0));
        return Stream.of(
                Arguments.of(CATCH_UP, steps(steps, new Step(58, 3), new Step(60, 1), new Step(70, 1), new Step(80, 1)),
                        List.of(new Run(0, 0, 10), new Run(1, 10, 20), new Run(2, 20, 30),
                                new Run(3, 58, 40), new Run(4, 58, 50), new Run(5, 58, 60),
                                new Run(6, 60, 70), new Run(7, 70, 80), new Run(8, 80, 90))),
                Arguments.of(SKIP, steps(steps, new Step(58, 1), new Step(60, 1), new Step(70, 1), new Step(80, 1)),
                        List.of(new Run(0, 0, 10), new Run(1, 10, 20), new Run(2, 20, 30),
                                new Run(3, 58, 60), new Run(4, 60, 70), new Run(5, 70, 80), new Run(6, 80, 90))),
                Arguments.of(RESTART, steps(steps, new Step(58, 1), new Step(60, 0), new Step(68, 1), new Step(78, 1)),
                        List.of(new Run(0, 0, 10), new Run(1, 10, 20), new Run(2, 20, 30),
                                new Run(3, 58, 68), new Run(4, 68, 78), new Run(5, 78, 88))));
    }

    /** The javadoc's timeline: nothing runs from 25 ms to 58 ms, so the runs due at 30, 40 and 50 are missed. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("pauses")
    void aPauseOfSeveralPeriods(MissedRunPolicy policy, List<Step> steps, List<Run> expected) throws Exception {
        List<Run> runs = play(policy, Via.TASK, steps, -1, 0);
        assertThat(runs).containsExactlyElementsOf(expected);
    }

    /** The same with the policy as the executor's default, through the ScheduledExecutorService method. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("pauses")
    void aPauseOfSeveralPeriods_policyFromTheBuilder(MissedRunPolicy policy, List<Step> steps, List<Run> expected)
            throws Exception {
        List<Run> runs = play(policy, Via.BUILDER, steps, -1, 0);
        assertThat(runs).containsExactlyElementsOf(expected);
        assertThat(executor.getMissedRunPolicy()).isEqualTo(policy);
    }

    /** The same through a task group, whose fixed-rate tasks follow the executor's policy. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("pauses")
    void aPauseOfSeveralPeriods_inATaskGroup(MissedRunPolicy policy, List<Step> steps, List<Run> expected)
            throws Exception {
        List<Run> runs = play(policy, Via.GROUP, steps, -1, 0);
        assertThat(runs).containsExactlyElementsOf(expected);
    }

    static Stream<Arguments> overruns() {
        return Stream.of(
                Arguments.of(CATCH_UP, List.of(new Step(10, 3), new Step(40, 1)),
                        List.of(new Run(0, 0, 10), new Run(1, 10, 20), new Run(2, 35, 30), new Run(3, 35, 40),
                                new Run(4, 40, 50))),
                Arguments.of(SKIP, List.of(new Step(10, 1), new Step(40, 1)),
                        List.of(new Run(0, 0, 10), new Run(1, 10, 40), new Run(2, 40, 50))),
                Arguments.of(RESTART, List.of(new Step(10, 1), new Step(40, 0), new Step(45, 1)),
                        List.of(new Run(0, 0, 10), new Run(1, 10, 45), new Run(2, 45, 55))));
    }

    /** Run 1 starts at 10 and takes 25 ms: the runs due at 20 and 30 are missed while it runs; the rule applies at its end, 35. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("overruns")
    void aRunLongerThanThePeriod(MissedRunPolicy policy, List<Step> steps, List<Run> expected) throws Exception {
        List<Run> runs = play(policy, Via.TASK, steps, 1, 25);
        assertThat(runs).containsExactlyElementsOf(expected);
    }

    @Test
    void theDefault_isCatchUp() {
        executor = new RunObservingExecutor(WheelScheduledExecutor.builder().workers(1).daemon(true));
        assertThat(executor.getMissedRunPolicy()).isEqualTo(CATCH_UP);
    }

    @Test
    void badArguments_areRejectedByName() {
        executor = new RunObservingExecutor(WheelScheduledExecutor.builder().workers(1).daemon(true));
        assertThatThrownBy(() -> executor.scheduleAtFixedRate(() -> { }, 0, 1, MILLISECONDS, null))
                .isInstanceOf(NullPointerException.class).hasMessage("policy");
        assertThatThrownBy(() -> executor.scheduleAtFixedRate(() -> { }, 0, 0, MILLISECONDS, SKIP))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("period");
        assertThatThrownBy(() -> WheelScheduledExecutor.builder().missedRunPolicy(null))
                .isInstanceOf(NullPointerException.class).hasMessage("missedRunPolicy");
    }

    /**
     * Schedules a fixed-rate task at 0 with a 10 ms period, plays the steps, then returns its runs.
     * Run {@code slowRun} (or none, -1) moves the clock on by {@code slowRunMs} while it runs.
     */
    private List<Run> play(MissedRunPolicy policy, Via via, List<Step> steps, int slowRun, long slowRunMs)
            throws Exception {
        WheelScheduledExecutor.Builder builder = WheelScheduledExecutor.builder().workers(1).daemon(true)
                .timeSource(clock);
        if (via != Via.TASK) {
            builder.missedRunPolicy(policy);
        }
        executor = new RunObservingExecutor(builder);
        List<Long> started = new CopyOnWriteArrayList<>();
        Runnable body = () -> {
            started.add(clock.nanoTime());
            if (started.size() - 1 == slowRun) {
                clock.advance(slowRunMs, MILLISECONDS);
            }
        };
        ScheduledFuture<?> task = switch (via) {
            case TASK -> executor.scheduleAtFixedRate(body, 0, PERIOD_MS, MILLISECONDS, policy);
            case BUILDER -> executor.scheduleAtFixedRate(body, 0, PERIOD_MS, MILLISECONDS);
            case GROUP -> executor.newGroup().scheduleAtFixedRate(body, 0, PERIOD_MS, MILLISECONDS);
        };
        executor.awaitRuns(1);
        for (Step step : steps) {
            clock.advanceNanos(step.atMs() * MS - clock.nanoTime());
            executor.awaitRuns(step.runs());
        }
        assertThat(executor.runsNotAwaited()).as("runs beyond those expected").isZero();
        task.cancel(false);
        List<Run> runs = new ArrayList<>();
        for (int i = 0; i < started.size(); i++) {
            runs.add(new Run(i, started.get(i) / MS, executor.nextDeadlines.get(i) / MS));
        }
        return runs;
    }

    private static List<Step> steps(List<Step> first, Step... then) {
        List<Step> all = new ArrayList<>(first);
        all.addAll(List.of(then));
        return all;
    }
}
