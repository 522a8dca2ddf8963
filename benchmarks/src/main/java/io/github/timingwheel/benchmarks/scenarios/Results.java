package io.github.timingwheel.benchmarks.scenarios;

import io.github.timingwheel.benchmarks.subjects.Summary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The values of every round of one scenario, by row (a subject, or a subject at one size) and
 * column, and the table that summarises them: the median of the rounds and their spread
 * ({@link Summary}).
 */
final class Results {

    private final List<Column> columns;
    private final Map<String, Map<Column, List<Double>>> rows = new LinkedHashMap<>();

    Results(List<Column> columns) {
        this.columns = List.copyOf(columns);
    }

    /** Records one round's value; rows print in the order they were first recorded. */
    void record(String row, Column column, double value) {
        if (!columns.contains(column)) {
            throw new IllegalArgumentException("not a column of this scenario: " + column.heading());
        }
        rows.computeIfAbsent(row, r -> new LinkedHashMap<>())
                .computeIfAbsent(column, c -> new ArrayList<>())
                .add(value);
    }

    /** One value per row, cells as "median (min..max)", or just the value after one round. */
    String table() {
        List<String> headings = new ArrayList<>();
        headings.add("subject");
        columns.forEach(c -> headings.add(c.heading()));
        List<List<String>> cells = new ArrayList<>();
        for (Map.Entry<String, Map<Column, List<Double>>> row : rows.entrySet()) {
            List<String> line = new ArrayList<>();
            line.add(row.getKey());
            for (Column column : columns) {
                line.add(cell(column, row.getValue().getOrDefault(column, List.of())));
            }
            cells.add(line);
        }
        int[] widths = new int[headings.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headings.get(i).length();
            for (List<String> line : cells) {
                widths[i] = Math.max(widths[i], line.get(i).length());
            }
        }
        StringBuilder out = new StringBuilder();
        appendLine(out, headings, widths);
        cells.forEach(line -> appendLine(out, line, widths));
        return out.toString();
    }

    private static void appendLine(StringBuilder out, List<String> line, int[] widths) {
        for (int i = 0; i < line.size(); i++) {
            String cell = line.get(i);
            if (i == 0) {
                out.append(cell).append(" ".repeat(widths[i] - cell.length()));
            } else {
                out.append("  ").append(" ".repeat(widths[i] - cell.length())).append(cell);
            }
        }
        out.append(System.lineSeparator());
    }

    private static String cell(Column column, List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return Summary.withRange(sorted, column.pattern());
    }
}
