package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.timingwheel.executor.RearmableFuture;
import io.github.timingwheel.executor.SchedulerMetrics;
import io.github.timingwheel.executor.TaskGroup;
import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.github.timingwheel.micrometer.WheelSchedulerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The README's Java snippets, each as the README shows it, compiled and run; and a check that
 * every {@code ```java} block of the README appears in this file, line for line (indented as a
 * whole as the surrounding code needs), so that the README and this file cannot drift apart.
 * After each snippet, every thread it started must end: a snippet pasted into a {@code main}
 * lets the JVM exit.
 *
 * <p>The names the snippets take from their surroundings ({@code request}, {@code channel},
 * {@code registry}, the connection's handlers) are this class's fields and methods; a snippet
 * that uses {@code timers} outside its own block is given the executor the README built.
 */
class ReadmeTest {

    private static final Path README = Paths.get("../README.md");
    private static final Path THIS_FILE =
            Paths.get("src/test/java/io/github/timingwheel/examples/ReadmeTest.java");

    /** What the executor snippet's timeout would fail. */
    private final Request request = new Request();
    private final Channel channel = new EmbeddedChannel();
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private Set<Thread> threadsBefore;

    @BeforeEach
    void noteThreads() {
        threadsBefore = Thread.getAllStackTraces().keySet();
    }

    @AfterEach
    void everyThreadASnippetStartedEnds() throws InterruptedException {
        Set<Thread> started = new HashSet<>(Thread.getAllStackTraces().keySet());
        started.removeAll(threadsBefore);
        List<String> alive = new ArrayList<>();
        for (Thread thread : started) {
            thread.join(TimeUnit.SECONDS.toMillis(30)); // ends at once if the snippet shut down
            if (thread.isAlive()) {
                alive.add(thread.getName());
            }
        }
        assertThat(alive).as("threads still running after the snippet").isEmpty();
        channel.close();
        registry.close();
    }

    @Test
    void executor() {
        try (WheelScheduledExecutor timers = WheelScheduledExecutor.builder()
                .name("timeouts")
                .workers(2)
                .maxPendingTasks(1_000_000)              // beyond it: RejectedExecutionException
                .build()) {
            ScheduledFuture<?> timeout = timers.schedule(() -> request.fail("timed out"), 30, TimeUnit.SECONDS);
            // ... the answer came in time:
            timeout.cancel(false);                       // released at once (within a small batch)
        }                                                // close(): shutdown(), then wait for the workers
        assertThat(request.failure).isNull();
    }

    @Test
    void nettyTimer() {
        Timer timer = new WheelTimer();                  // was new HashedWheelTimer(...): one worker, 2 ms tolerance
        timer.newTimeout(t -> channel.close(), 30, TimeUnit.SECONDS);
        // ...
        Set<Timeout> neverRan = timer.stop();            // each of them already cancelled
        assertThat(neverRan).hasSize(1).allMatch(Timeout::isCancelled);
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void groupAndIdleTimeoutThenMetricsAndMicrometer() {
        try (WheelScheduledExecutor timers = WheelScheduledExecutor.builder().workers(2).build()) {
            RearmableFuture<Void> idle = connection(timers);
            assertThat(idle.isCancelled()).isTrue();
            assertThat(idle.touch()).isFalse();
            metricsAndMicrometer(timers);
            assertThat(registry.get("timingwheel.cancelled").tag("service", "orders")
                    .functionCounter().count()).isEqualTo(2.0);
        }
        assertThat(request.failure).isNull();
    }

    private RearmableFuture<Void> connection(WheelScheduledExecutor timers) {
        TaskGroup connection = timers.newGroup();        // or newSerialGroup(); WheelTimer has both too
        connection.schedule(this::readTimedOut, 30, TimeUnit.SECONDS);
        RearmableFuture<Void> idle = connection.scheduleRearmable(this::closeIdle, 30, TimeUnit.SECONDS);
        idle.touch();                                    // on every read: one compare-and-set, no allocation
        connection.cancelAll();                          // cancels what is left of this connection's timers
        return idle;
    }

    private void metricsAndMicrometer(WheelScheduledExecutor timers) {
        SchedulerMetrics m = timers.metrics();           // also WheelTimer.metrics()
        long pending = m.pending();                      // also scheduled(), ran(), failed(), cancelled(), ...
        long p99Nanos = m.lateness().percentileNanos(99.0);
        WheelSchedulerMetrics.monitor(registry, timers, Tags.of("service", "orders")); // or a WheelTimer
        assertThat(pending).isZero();
        assertThat(p99Nanos).isZero();
        assertThat(m.toString()).startsWith("timingwheel-");
    }

    private void readTimedOut() {
        request.fail("read timed out");
    }

    private void closeIdle() {
        request.fail("idle");
    }

    /** Stands for a request in flight; the snippets' tasks never run, so nothing is failed. */
    private static final class Request {
        private volatile String failure;

        void fail(String why) {
            failure = why;
        }
    }

    // The check.

    @Test
    void everyJavaBlockOfTheReadmeIsInThisFile() throws IOException {
        List<String> source = Files.readAllLines(THIS_FILE, StandardCharsets.UTF_8);
        List<List<String>> blocks = fencedBlocks(Files.readString(README, StandardCharsets.UTF_8), "java");
        assertThat(blocks).as("java blocks in the README").hasSizeGreaterThanOrEqualTo(4);
        for (List<String> block : blocks) {
            assertThat(containsIndented(source, block))
                    .as("this file holds, line for line, the README block:%n%s", String.join("\n", block))
                    .isTrue();
        }
    }

    @Test
    void theReadmeDependencyBlockNamesWhatTheSnippetsUse() throws IOException {
        List<List<String>> blocks = fencedBlocks(Files.readString(README, StandardCharsets.UTF_8), "xml");
        assertThat(blocks).hasSize(1);
        assertThat(String.join("\n", blocks.get(0)))
                .contains("<artifactId>wheel-executor</artifactId>")
                .contains("<artifactId>netty-common</artifactId>")
                .contains("<artifactId>wheel-micrometer</artifactId>");
    }

    /** The lines of each block fenced with ```{language}. */
    static List<List<String>> fencedBlocks(String markdown, String language) {
        Matcher fence = Pattern.compile("(?ms)^```" + language + "\\n(.*?)^```$").matcher(markdown);
        List<List<String>> blocks = new ArrayList<>();
        while (fence.find()) {
            blocks.add(fence.group(1).lines().toList());
        }
        return blocks;
    }

    /**
     * Whether {@code source} has {@code block}'s lines one after another, each with the same
     * indentation added (blank lines stay blank).
     */
    static boolean containsIndented(List<String> source, List<String> block) {
        String first = block.get(0);
        for (int start = 0; start + block.size() <= source.size(); start++) {
            String line = source.get(start);
            int indent = line.length() - first.length();
            if (indent < 0 || !line.endsWith(first) || !line.substring(0, indent).isBlank()) {
                continue;
            }
            String prefix = line.substring(0, indent);
            boolean all = true;
            for (int i = 1; i < block.size() && all; i++) {
                String expected = block.get(i).isEmpty() ? "" : prefix + block.get(i);
                all = source.get(start + i).equals(expected);
            }
            if (all) {
                return true;
            }
        }
        return false;
    }
}
