package io.github.timingwheel.stress;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs jcstress for {@code mvn verify} with its whole output in a file and a short account on
 * the console. jcstress prints every test that saw an "interesting" outcome with its table of
 * results, on a passing run too: these outcomes are allowed by design (each test's javadoc says
 * why), and a page of them reads like a failure to a newcomer. So the console gets one line, the
 * counts, and the file keeps everything; a run that failed prints its failed and erroneous tests
 * in full and exits non-zero, so that the build fails as loudly as before.
 *
 * <p>Arguments: the file for jcstress's output, then the command that runs jcstress ({@code java
 * ... -jar jcstress.jar ...}). The exit code is the command's, or 1 if the command exited 0 but
 * its results count a failed or erroneous test (a forbidden or unknown outcome, a crash).
 *
 * <pre>
 * java -cp stress-tests/target/classes io.github.timingwheel.stress.QuietRun \
 *     stress-tests/target/jcstress-output.txt java -jar stress-tests/target/jcstress.jar -m quick
 * </pre>
 */
public final class QuietRun {

    /** jcstress's progress line; its last one counts every result of the run. */
    private static final Pattern PROGRESS = Pattern.compile(
            "\\(Results: (\\d+) planned; (\\d+) passed, (\\d+) failed, (\\d+) soft errs, (\\d+) hard errs\\)");
    /** The head of jcstress's closing list of tests with interesting outcomes. */
    private static final Pattern INTERESTING = Pattern.compile("Interesting tests: (\\d+|No) match");

    private QuietRun() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length < 2) {
            System.err.println("usage: QuietRun <output file> <command...>");
            System.exit(2);
        }
        Path output = Path.of(args[0]);
        List<String> command = Arrays.asList(args).subList(1, args.length);
        Files.createDirectories(output.toAbsolutePath().getParent());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                .start();
        int exit = process.waitFor();
        String text = Files.readString(output, StandardCharsets.UTF_8);
        MatchResult progress = last(PROGRESS, text);
        boolean counted = progress != null;
        long failed = counted ? Long.parseLong(progress.group(3)) : 0;
        long errors = counted ? Long.parseLong(progress.group(4)) + Long.parseLong(progress.group(5)) : 0;
        boolean ok = exit == 0 && counted && failed == 0 && errors == 0;
        System.out.println(summary(text, progress, output));
        if (!ok) {
            System.out.println(failures(text));
            System.out.println("jcstress FAILED (exit code " + exit + "); its whole output is in " + output);
            System.exit(exit != 0 ? exit : 1);
        }
    }

    /** One line: the counts of the run, and where its output and report are. */
    static String summary(String text, MatchResult progress, Path output) {
        if (progress == null) {
            return "jcstress: no results counted; its output is in " + output;
        }
        Matcher interesting = INTERESTING.matcher(text);
        String withInteresting = interesting.find()
                ? "; tests with interesting outcomes (allowed by design, listed in the file): "
                        + (interesting.group(1).equals("No") ? "0" : interesting.group(1))
                : "";
        return String.format("jcstress: %s of %s results passed, %s failed, %s soft and %s hard errors%s;"
                + " output in %s, report in %s", progress.group(2), progress.group(1), progress.group(3),
                progress.group(4), progress.group(5), withInteresting, output,
                output.toAbsolutePath().getParent().resolve("results").resolve("index.html"));
    }

    /**
     * What a failed run must show on the console: jcstress's lists of failed and erroneous
     * tests, each with its table, or the end of the output if the run did not get as far.
     */
    static String failures(String text) {
        int from = text.indexOf("Failed tests:");
        int to = text.indexOf("All remaining tests:", Math.max(from, 0));
        if (from >= 0) {
            return text.substring(from, to > from ? to : text.length()).strip();
        }
        List<String> lines = text.lines().toList();
        return String.join(System.lineSeparator(), lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }

    private static MatchResult last(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        MatchResult found = null;
        while (matcher.find()) {
            found = matcher.toMatchResult();
        }
        return found;
    }
}
