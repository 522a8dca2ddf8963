package io.github.timingwheel.benchmarks.executor;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The summary line the plain-main benchmarks here print for a figure over their rounds. */
final class Medians {

    private Medians() {
    }

    /** "median (lowest..highest)" of column {@code column} of each round's figures, rounded. */
    static String withRange(List<double[]> rounds, int column) {
        List<Double> values = new ArrayList<>();
        for (double[] round : rounds) {
            values.add(round[column]);
        }
        Collections.sort(values);
        return String.format("%,.0f (%,.0f..%,.0f)", values.get(values.size() / 2), values.get(0),
                values.get(values.size() - 1));
    }
}
