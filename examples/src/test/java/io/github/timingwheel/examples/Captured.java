package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/** What an example printed, and its exit code. */
record Captured(int exitCode, String text) {

    @FunctionalInterface
    interface Example {
        int run(String[] args, PrintStream out);
    }

    /**
     * Runs {@code example} in this JVM. The examples print numbers in the default locale; for
     * the run it is {@link Locale#ROOT}, so that the tests can read "1,234" and "5.6 ms".
     */
    static Captured run(Example example, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Locale locale = Locale.getDefault(Locale.Category.FORMAT);
        Locale.setDefault(Locale.Category.FORMAT, Locale.ROOT);
        try {
            int exitCode = example.run(args, out);
            out.flush();
            return new Captured(exitCode, bytes.toString(StandardCharsets.UTF_8));
        } finally {
            Locale.setDefault(Locale.Category.FORMAT, locale);
        }
    }

    List<String> lines() {
        return text.lines().toList();
    }

    /**
     * Checks an example's command line as every example's test does: {@code --help} exits 0 and
     * its usage names each of {@code options}; {@code badOption badValue} exits 2 with a message
     * that names {@code badOption}.
     */
    static void assertHelpAndABadOption(Example example, List<String> options, String badOption, String badValue) {
        Captured help = run(example, "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.text()).contains(options);

        Captured bad = run(example, badOption, badValue);
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.text()).contains(badOption);
    }

    /** The first line that starts with {@code prefix} once leading blanks are trimmed. */
    String line(String prefix) {
        return lines().stream()
                .filter(line -> line.trim().startsWith(prefix))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no line starting with '" + prefix + "' in:\n" + text));
    }
}
