package io.github.timingwheel.examples;

import java.io.Console;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * A progress line. On a terminal it is a bar redrawn in place ({@code \r}) ten times a second;
 * otherwise (a pipe, a file, a CI log, a test) a plain line about once a second, so that a log
 * shows that something is going on without filling up. Main thread only.
 */
final class Progress {

    private static final int BAR_WIDTH = 24;

    private final PrintStream out;
    private final boolean terminal;
    private final long intervalNanos;
    private long lastPrintNanos;
    private int lastLength;

    private Progress(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
        this.intervalNanos = terminal ? TimeUnit.MILLISECONDS.toNanos(100) : TimeUnit.SECONDS.toNanos(1);
        this.lastPrintNanos = System.nanoTime() - (terminal ? intervalNanos : 0);
    }

    /** A bar redrawn in place: for an interactive terminal. */
    static Progress bar(PrintStream out) {
        return new Progress(out, true);
    }

    /** Plain lines about once a second: for output that is not a terminal. */
    static Progress lines(PrintStream out) {
        return new Progress(out, false);
    }

    /**
     * Whether standard output is an interactive terminal. {@code System.console()} is null
     * when it is not, up to Java 21; from Java 22 on it may be a console all the same, which
     * then answers {@code isTerminal()}.
     */
    static boolean stdoutIsTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException beforeJava22) {
            return true;
        }
    }

    /** Shows progress of a phase; {@code fraction} from 0 to 1, or NaN for none. */
    void update(String label, double fraction, String detail) {
        long now = System.nanoTime();
        if (now - lastPrintNanos < intervalNanos) {
            return;
        }
        lastPrintNanos = now;
        if (terminal) {
            redraw(String.format("%-11s %s %s", label, bar(fraction), detail));
        } else {
            String percent = Double.isNaN(fraction) ? "" : Math.round(fraction * 100) + "%, ";
            out.println("  " + label + ": " + percent + detail);
        }
    }

    /** Shows the start of a phase that has no fraction; on a terminal at once. */
    void status(String label, String detail) {
        if (terminal) {
            lastPrintNanos = System.nanoTime();
            redraw(String.format("%-11s %s", label, detail));
        } else {
            update(label, Double.NaN, detail);
        }
    }

    /** Ends a label's progress with a line that stays. */
    void done(String label, String summary) {
        String line = String.format("%-11s %s", label, summary);
        if (terminal) {
            redraw(line);
            out.println();
            lastLength = 0;
        } else {
            out.println("  " + line);
            lastPrintNanos = System.nanoTime();
        }
        out.flush();
    }

    private void redraw(String line) {
        StringBuilder text = new StringBuilder("\r").append(line);
        for (int i = line.length(); i < lastLength; i++) {
            text.append(' '); // wipe the tail of a longer previous line
        }
        lastLength = line.length();
        out.print(text);
        out.flush();
    }

    private static String bar(double fraction) {
        if (Double.isNaN(fraction)) {
            return "";
        }
        int filled = (int) Math.round(Math.min(1.0, Math.max(0.0, fraction)) * BAR_WIDTH);
        return "[" + "#".repeat(filled) + ".".repeat(BAR_WIDTH - filled) + "] "
                + String.format("%3d%%", Math.round(fraction * 100));
    }
}
