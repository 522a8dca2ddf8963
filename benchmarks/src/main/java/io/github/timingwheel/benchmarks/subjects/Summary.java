package io.github.timingwheel.benchmarks.subjects;

import java.util.List;

/**
 * How every benchmark here sums up its rounds: the median, with the lowest and highest value
 * beside it. The scenario runner's tables and the plain programs' closing lines use it alike,
 * so that "median (lowest..highest)" means one thing wherever it is printed.
 */
public final class Summary {

    private Summary() {
    }

    /** The median of {@code sorted} (the mean of the middle two if even); NaN if empty. */
    public static double median(double[] sorted) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** The median of {@code values}, in any order. */
    public static double median(List<Double> values) {
        return median(values.stream().mapToDouble(Double::doubleValue).sorted().toArray());
    }

    /**
     * "median (lowest..highest)" of column {@code column} of each round's figures, rounded to
     * whole numbers with thousands separated; just the value after one round.
     */
    public static String withRange(List<double[]> rounds, int column) {
        double[] sorted = rounds.stream().mapToDouble(round -> round[column]).sorted().toArray();
        return withRange(sorted, "%,.0f");
    }

    /**
     * "median (lowest..highest)" of {@code sorted}, each printed with {@code format} (one
     * {@code double}, NaN as "-"); just the value after one round, "-" after none.
     */
    public static String withRange(double[] sorted, String format) {
        if (sorted.length == 0) {
            return "-";
        }
        String median = format(format, median(sorted));
        if (sorted.length == 1) {
            return median;
        }
        return median + " (" + format(format, sorted[0]) + ".." + format(format, sorted[sorted.length - 1]) + ")";
    }

    /** {@code value} printed with {@code format}; "-" for NaN, a value the subject could not give. */
    public static String format(String format, double value) {
        return Double.isNaN(value) ? "-" : String.format(format, value);
    }

    /** {@link #withRange(double[], String)} of values in any order. */
    public static String withRange(List<Double> values, String format) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return withRange(sorted, format);
    }
}
