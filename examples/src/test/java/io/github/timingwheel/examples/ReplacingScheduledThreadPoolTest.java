package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The same jobs print the same lines on the JDK's executor and on ours. */
class ReplacingScheduledThreadPoolTest {

    @Test
    void beforeAndAfter_printTheSameLines() {
        Captured run = Captured.run(ReplacingScheduledThreadPool::run);

        assertThat(run.exitCode()).as(run.text()).isZero();
        List<List<String>> sections = new ArrayList<>(sections(run).values());
        assertThat(sections).hasSize(4);
        assertThat(sections.get(1)).isEqualTo(sections.get(0));
        assertThat(sections.get(3)).isEqualTo(sections.get(2));
        assertThat(sections.get(0)).contains(
                "delayed callable returned 'hello', not before its 30 ms: true",
                "heartbeat ran 5 times at a fixed rate of 10 ms, then was cancelled: true",
                "cleanup ran 3 times with a fixed delay of 20 ms, then was cancelled: true",
                "request timeout cancelled: true, ran: false",
                "terminated after shutdown: true");
        assertThat(sections.get(2)).contains("getCompletedTaskCount() counts every run, at least 9: true");
    }

    /** Lines under each "Before:"/"After:" heading, trimmed, by heading. */
    private static Map<String, List<String>> sections(Captured run) {
        Map<String, List<String>> sections = new LinkedHashMap<>();
        List<String> current = null;
        for (String line : run.lines()) {
            if (line.startsWith("Before:") || line.startsWith("After:")) {
                current = new ArrayList<>();
                sections.put(line, current);
            } else if (current != null) {
                current.add(line.trim());
            }
        }
        return sections;
    }
}
