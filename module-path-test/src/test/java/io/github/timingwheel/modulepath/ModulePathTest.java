package io.github.timingwheel.modulepath;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The library jars as a modular application meets them: each program under
 * {@code src/test/apps} is a module of its own, compiled here against the jars on the module
 * path only, then run in a new JVM with {@code java --module-path ... -m}, as a user would. A
 * module descriptor that misses a {@code requires} (JCTools, the flight recorder, Micrometer),
 * an {@code exports}, or that makes Netty mandatory fails one of these.
 *
 * <p>The jars: {@code target/modules} holds the libraries and what they require (JCTools,
 * Micrometer), {@code target/netty} holds netty-common, put on the path only where a program
 * uses {@code WheelTimer}.
 */
class ModulePathTest {

    private static final Path APPS = Paths.get(System.getProperty("modulepath.apps"));
    private static final Path MODULES = Paths.get(System.getProperty("modulepath.modules"));
    private static final Path NETTY = Paths.get(System.getProperty("modulepath.netty"));
    private static final Path WORK = Paths.get(System.getProperty("modulepath.work"));

    @Test
    void executor_withoutNetty_flightRecorderEventsOn() throws Exception {
        assertThat(compileAndRun("executor", MODULES))
                .isEqualTo("executor: ran, cancelled 1, late n=1");
    }

    @Test
    void nettyTimer_withNetty() throws Exception {
        assertThat(compileAndRun("timer", MODULES, NETTY))
                .isEqualTo("timer: fired, cancelled 1");
    }

    @Test
    void micrometerBinder_withoutNetty() throws Exception {
        assertThat(compileAndRun("micrometer", MODULES)).isEqualTo("micrometer: ran 1");
    }

    /** Compiles the program in apps/{name} and runs it; returns its output, trimmed. */
    private static String compileAndRun(String name, Path... modulePath)
            throws IOException, InterruptedException {
        assertThat(MODULES.resolve("wheel-executor-0.1.0-SNAPSHOT.jar")).exists();
        String path = Stream.of(modulePath).map(Path::toString)
                .collect(Collectors.joining(File.pathSeparator));
        Path classes = WORK.resolve(name);
        List<String> javac = new ArrayList<>(List.of(
                "--release", "17", "-Xlint:all,-path", "-Werror", // -path: the test JVM's own class path
                "--module-path", path, "-d", classes.toString()));
        try (Stream<Path> sources = Files.walk(APPS.resolve(name))) {
            sources.filter(p -> p.toString().endsWith(".java")).map(Path::toString).forEach(javac::add);
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = compiler.run(null, diagnostics, diagnostics, javac.toArray(String[]::new));
        assertThat(status).as("javac %s%n%s", javac, diagnostics.toString(StandardCharsets.UTF_8))
                .isZero();

        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        List<String> command = List.of(java.toString(),
                "--module-path", classes + File.pathSeparator + path,
                "-m", "app." + name + "/app." + name + ".Main");
        Path output = WORK.resolve(name + ".out");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        boolean ended = process.waitFor(2, TimeUnit.MINUTES);
        if (!ended) {
            process.destroyForcibly();
        }
        String printed = Files.readString(output, StandardCharsets.UTF_8).trim();
        assertThat(ended).as("%s ended; it printed:%n%s", command, printed).isTrue();
        assertThat(process.exitValue()).as("exit status of %s; it printed:%n%s", command, printed)
                .isZero();
        return printed;
    }
}
