package io.github.timingwheel.benchmarks.scenarios;

/**
 * One measured quantity of a scenario: its heading and how a value prints.
 *
 * @param heading the table heading, with its unit
 * @param decimals digits after the point
 * @param higherIsBetter whether a larger value is the better one (for the reader's hint only)
 */
record Column(String heading, int decimals, boolean higherIsBetter) {

    static Column higher(String heading, int decimals) {
        return new Column(heading, decimals, true);
    }

    static Column lower(String heading, int decimals) {
        return new Column(heading, decimals, false);
    }

    String format(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        return String.format("%,." + decimals + "f", value);
    }
}
