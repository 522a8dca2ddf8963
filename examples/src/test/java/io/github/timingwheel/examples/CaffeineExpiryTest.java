package io.github.timingwheel.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs the Caffeine example with three entries and reads its table: every entry removed as
 * expired, none before its expiry, none later than Caffeine's pacing allows (with a generous
 * margin for a loaded machine), and nothing removed from the cache without a scheduler until
 * its {@code cleanUp()}. "Before its expiry" is judged from the two times the example measures,
 * the write and the removal listener's call, against the test's own TTL: the table's expiry
 * column is computed from the write and cannot disagree with it.
 *
 * <p>Shown to catch both caches given half the TTL ({@code expireAfterWrite(ttl / 2)}) while
 * the table prints the distance to expiry without its sign, which passed the former check of
 * {@code expired - written}.
 */
class CaffeineExpiryTest {

    private static final int ENTRIES = 3;
    private static final long TTL_MILLIS = 1200;
    /** Beyond Caffeine's pacing: a loaded machine's scheduling noise, far above what is expected. */
    private static final long MARGIN_MILLIS = 2_000;
    private static final Pattern ROW = Pattern.compile(
            "^\\s*(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(-?[\\d.]+) ms\\s+(\\w+)$");

    private record Row(int key, long written, long expired, long removed, double afterExpiryMillis, String cause) {
    }

    @Test
    void expiredEntries_areRemovedOnTime_withoutCacheActivity() {
        Captured run = Captured.run(CaffeineExpiry::run, "--entries", String.valueOf(ENTRIES),
                "--ttl", TTL_MILLIS + "ms", "--spacing", "100ms");

        assertThat(run.exitCode()).as(run.text()).isZero();
        List<Row> rows = rows(run);
        assertThat(rows).as(run.text()).hasSize(ENTRIES);
        long pacerMillis = TimeUnit.NANOSECONDS.toMillis(CaffeineExpiry.PACER_TOLERANCE_NANOS);
        for (Row row : rows) {
            assertThat(row.cause()).as(run.text()).isEqualTo("EXPIRED");
            // Against the removal listener's own clock reading and the write's, not the table's
            // expiry column (which the example computes as written + ttl). ms columns are
            // truncated, so a removal exactly at expiry may read 1 ms short.
            assertThat(row.removed() - row.written()).as("removed no sooner than the TTL after its write, key %d:%n%s",
                    row.key(), run.text()).isGreaterThanOrEqualTo(TTL_MILLIS - 1);
            assertThat(row.afterExpiryMillis()).as("never before expiry, key %d", row.key()).isNotNegative();
            assertThat(row.afterExpiryMillis()).as("after expiry agrees with removed - written - TTL, key %d", row.key())
                    .isBetween((double) (row.removed() - row.written() - TTL_MILLIS - 1),
                            (double) (row.removed() - row.written() - TTL_MILLIS + 1));
            assertThat(row.afterExpiryMillis()).as("within the pacing, key %d:%n%s", row.key(), run.text())
                    .isLessThan(pacerMillis + MARGIN_MILLIS);
        }
        assertThat(run.line("removed").trim()).as(run.text()).startsWith("removed " + ENTRIES + " of " + ENTRIES + ",");
        assertThat(run.text()).contains("removed 0 of " + ENTRIES + " by then; cleanUp() then removed " + ENTRIES);
        assertThat(run.line("the executor's metrics")).contains("cache-expiry:", "failed=0", "rejected=0");
    }

    @Test
    void help_printsUsage_andBadOptionsExitTwo() {
        Captured.assertHelpAndABadOption(CaffeineExpiry::run, List.of("--entries", "--ttl", "--spacing"),
                "--ttl", "0ms");
    }

    private static List<Row> rows(Captured run) {
        return run.lines().stream()
                .map(ROW::matcher)
                .filter(Matcher::find)
                .map(m -> new Row(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                        Long.parseLong(m.group(4)), Double.parseDouble(m.group(5)), m.group(6)))
                .toList();
    }
}
