package io.github.timingwheel.examples;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The examples' command lines, parsed by hand: {@code --name value} or {@code --name=value},
 * and {@code --help}. Every error names its option.
 */
final class CommandLine {

    /** Exit code of a bad command line. */
    static final int USAGE_ERROR = 2;

    private CommandLine() {
    }

    /** Takes one option; throws {@link UsageException} if the name or the value is bad. */
    @FunctionalInterface
    interface Setter {
        void set(String name, String value) throws UsageException;
    }

    /** A bad command line; the message names the option. */
    static class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** An option given last, without its value; it may also be an option that does not exist. */
    static final class MissingValueException extends UsageException {
        private static final long serialVersionUID = 1L;

        final String name;

        MissingValueException(String name) {
            super(name + ": missing value");
            this.name = name;
        }
    }

    /**
     * Hands each option to {@code setter}.
     *
     * @return false if {@code --help} (or {@code -h}) was asked for
     */
    static boolean parse(String[] args, Setter setter) throws UsageException {
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                return false;
            }
            if (!arg.startsWith("--")) {
                throw new UsageException("unexpected argument '" + arg + "'");
            }
            int equals = arg.indexOf('=');
            String name = equals < 0 ? arg : arg.substring(0, equals);
            String value;
            if (equals >= 0) {
                value = arg.substring(equals + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new MissingValueException(name);
            }
            setter.set(name, value);
        }
        return true;
    }

    /** The body of an example, run once its options are parsed. */
    interface Play {
        void play(PrintStream out) throws InterruptedException;
    }

    /**
     * Parses the options into {@code setter}, then plays the example; the exit code is 0 after
     * {@code --help} or a completed run, {@link #USAGE_ERROR} after a bad option, 1 if
     * interrupted.
     */
    static int runExample(String[] args, PrintStream out, String usage, Setter setter, Play play) {
        int exit = parseOrExit(args, setter, usage, out, out);
        if (exit >= 0) {
            return exit;
        }
        try {
            play.play(out);
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /**
     * Parses {@code args} and prints the usage or the error, the way each example's
     * {@code run} starts.
     *
     * @return -1 to go on, or the exit code to return: 0 after {@code --help}, 2 after an error
     */
    static int parseOrExit(String[] args, Setter setter, String usage, PrintStream out, PrintStream err) {
        try {
            if (parse(args, setter)) {
                return -1;
            }
            out.println(usage);
            return 0;
        } catch (UsageException e) {
            // "--bogus" alone has no value to hand to the setter, which would call it unknown.
            String message = e instanceof MissingValueException missing && !documents(usage, missing.name)
                    ? unknown(missing.name).getMessage()
                    : e.getMessage();
            err.println("error: " + message);
            err.println("Run with --help for the options.");
            return USAGE_ERROR;
        }
    }

    /** Whether the usage text lists {@code option}, as the first word of one of its lines. */
    static boolean documents(String usage, String option) {
        return usage.lines().map(String::trim).anyMatch(line -> line.equals(option) || line.startsWith(option + " "));
    }

    static UsageException unknown(String name) {
        return new UsageException("unknown option " + name);
    }

    static long integer(String name, String value) throws UsageException {
        try {
            return Long.parseLong(value.replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            throw new UsageException(name + ": expected an integer, got '" + value + "'");
        }
    }

    static boolean bool(String name, String value) throws UsageException {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new UsageException(name + ": expected true or false, got '" + value + "'");
        };
    }

    static int positiveInt(String name, String value) throws UsageException {
        long parsed = integer(name, value);
        if (parsed < 1 || parsed > Integer.MAX_VALUE) {
            throw new UsageException(name + ": expected a positive integer, got '" + value + "'");
        }
        return (int) parsed;
    }

    static long nonNegative(String name, String value) throws UsageException {
        long parsed = integer(name, value);
        if (parsed < 0) {
            throw new UsageException(name + ": expected 0 or more, got '" + value + "'");
        }
        return parsed;
    }

    static int percent(String name, String value) throws UsageException {
        long parsed = integer(name, value);
        if (parsed < 0 || parsed > 100) {
            throw new UsageException(name + ": expected a percentage from 0 to 100, got '" + value + "'");
        }
        return (int) parsed;
    }

    /** A duration with a unit (ns, us, ms, s), in nanoseconds; {@code defaultUnit} may be null. */
    static long duration(String name, String value, String defaultUnit) throws UsageException {
        String text = value.trim().toLowerCase(Locale.ROOT);
        String unit = unitOf(text);
        String digits = text.substring(0, text.length() - unit.length());
        if (unit.isEmpty() && defaultUnit != null) {
            unit = defaultUnit;
        }
        long multiplier = switch (unit) {
            case "ns" -> 1L;
            case "us" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            default -> throw new UsageException(
                    name + ": expected a duration with a unit (ns, us, ms, s), got '" + value + "'");
        };
        if (digits.isEmpty() || digits.length() > 12) {
            throw new UsageException(name + ": expected a duration such as 50ms, got '" + value + "'");
        }
        return Long.parseLong(digits) * multiplier;
    }

    /** A positive duration, as {@link #duration}. */
    static long positiveDuration(String name, String value) throws UsageException {
        long nanos = duration(name, value, null);
        if (nanos <= 0) {
            throw new UsageException(name + ": expected a positive duration, got '" + value + "'");
        }
        return nanos;
    }

    /** A duration of at least one millisecond, as {@link #duration}, in whole milliseconds. */
    static long positiveMillis(String name, String value) throws UsageException {
        long millis = TimeUnit.NANOSECONDS.toMillis(positiveDuration(name, value));
        if (millis < 1) {
            throw new UsageException(name + ": expected at least 1ms, got '" + value + "'");
        }
        return millis;
    }

    /** The unit suffix of a duration: what follows its digits. */
    static String unitOf(String duration) {
        int i = 0;
        while (i < duration.length() && Character.isDigit(duration.charAt(i))) {
            i++;
        }
        return duration.substring(i);
    }
}
