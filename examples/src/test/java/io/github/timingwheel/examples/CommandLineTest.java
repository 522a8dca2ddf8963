package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.timingwheel.examples.CommandLine.UsageException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandLineTest {

    @Test
    void parse_takesBothForms_andStopsAtHelp() throws UsageException {
        List<String> seen = new ArrayList<>();

        boolean goOn = CommandLine.parse(new String[] {"--a", "1", "--b=2"}, (name, value) -> seen.add(name + value));
        boolean help = CommandLine.parse(new String[] {"--a", "1", "--help"}, (name, value) -> { });

        assertThat(goOn).isTrue();
        assertThat(seen).containsExactly("--a1", "--b2");
        assertThat(help).isFalse();
    }

    @Test
    void duration_needsAUnit() throws UsageException {
        assertThat(CommandLine.duration("--d", "50ms", null)).isEqualTo(50_000_000L);
        assertThat(CommandLine.duration("--d", "2s", null)).isEqualTo(2_000_000_000L);
        assertThat(CommandLine.duration("--d", "7", "us")).isEqualTo(7_000L);
        assertThatThrownBy(() -> CommandLine.duration("--d", "7", null)).hasMessageContaining("--d");
        assertThatThrownBy(() -> CommandLine.duration("--d", "ms", null)).hasMessageContaining("--d");
    }

    @Test
    void delayRanges_takeTheMaximumsUnit() throws UsageException {
        DemoOptions options = new DemoOptions();

        options.set("--short-delay", "1-50ms");
        options.set("--long-delay", "500ms-2s");

        assertThat(options.shortDelay).isEqualTo(new DemoOptions.DelayRange(1_000_000L, 50_000_000L));
        assertThat(options.longDelay).isEqualTo(new DemoOptions.DelayRange(500_000_000L, 2_000_000_000L));
        assertThatThrownBy(() -> options.set("--long-delay", "2s")).hasMessageContaining("--long-delay");
    }
}
