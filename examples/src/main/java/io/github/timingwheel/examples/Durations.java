package io.github.timingwheel.examples;

/** Formats nanoseconds for people, in the default locale: "850 ns", "42.5 us", "3.14 ms", "1.5 s". */
final class Durations {

    private Durations() {
    }

    static String format(long nanos) {
        long abs = Math.abs(nanos);
        if (abs < 1_000L) {
            return nanos + " ns";
        }
        if (abs < 1_000_000L) {
            return scaled(nanos, 1e3, "us");
        }
        if (abs < 1_000_000_000L) {
            return scaled(nanos, 1e6, "ms");
        }
        return scaled(nanos, 1e9, "s");
    }

    /** Three significant digits at most: "4.25 ms", "42.5 ms", "425 ms". */
    private static String scaled(long nanos, double unit, String name) {
        double value = nanos / unit;
        double abs = Math.abs(value);
        String pattern = abs < 10 ? "%.2f %s" : abs < 100 ? "%.1f %s" : "%.0f %s";
        if (abs >= 100 || value == Math.rint(value)) {
            return String.format("%.0f %s", value, name); // "1 s" rather than "1.00 s"
        }
        return String.format(pattern, value, name);
    }
}
