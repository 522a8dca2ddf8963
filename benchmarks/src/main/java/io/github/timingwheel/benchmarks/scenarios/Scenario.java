package io.github.timingwheel.benchmarks.scenarios;

import java.util.List;

/**
 * A workload that the runner applies to every subject in turn, round after round, in one JVM.
 * A round creates its subject, measures, and closes it, so that no subject inherits another's
 * threads; the runner starts each turn with a young collection, so that none inherits another's
 * garbage either ({@link FreshEden}).
 */
interface Scenario {

    /** The name on the command line. */
    String name();

    /** One line: what the workload is, with its sizes. */
    String description();

    /** The measured quantities, in table order. */
    List<Column> columns();

    /**
     * Runs one round against {@code subject} and records every column into {@code results}.
     *
     * @param warmUp true for the unrecorded round that precedes the measured ones: a scenario
     *     may shorten it, and must not record anything
     */
    void run(String subject, boolean warmUp, Results results) throws Exception;

    /**
     * Whether the runner repeats the warm-up round until the JIT has settled
     * ({@link ScenarioRunner}): for a scenario whose measured rounds a compile still under way
     * would spoil (a burst armed from one thread into its own window). False by default.
     */
    default boolean warmsUpUntilTheJitSettles() {
        return false;
    }
}
