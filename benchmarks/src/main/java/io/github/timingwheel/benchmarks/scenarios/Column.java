package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.Summary;

/**
 * One measured quantity of a scenario: its heading and how a value prints.
 *
 * @param heading the table heading, with its unit
 * @param decimals digits after the point ({@link Summary} prints the cells)
 * @param higherIsBetter whether a larger value is the better one (for the reader's hint only)
 */
record Column(String heading, int decimals, boolean higherIsBetter) {

    static Column higher(String heading, int decimals) {
        return new Column(heading, decimals, true);
    }

    static Column lower(String heading, int decimals) {
        return new Column(heading, decimals, false);
    }

    /** The format of one value: thousands separated, {@link #decimals} after the point. */
    String pattern() {
        return "%,." + decimals + "f";
    }
}
