package io.github.timingwheel.benchmarks.scenarios;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Counts as people read them, and the wait a subject needs before its heap is counted. */
final class Sizes {

    private Sizes() {
    }

    /** 1000 -> "1K", 10000000 -> "10M". */
    static String shortCount(int count) {
        if (count >= 1_000_000 && count % 1_000_000 == 0) {
            return count / 1_000_000 + "M";
        }
        if (count >= 1_000 && count % 1_000 == 0) {
            return count / 1_000 + "K";
        }
        return Integer.toString(count);
    }

    static String list(int[] counts) {
        return Arrays.stream(counts).mapToObj(Sizes::shortCount).collect(Collectors.joining(", "));
    }

    /**
     * Waits until {@code count} newly armed (or, for 0, just cancelled) timers have reached the
     * subject's structures: Netty's {@code HashedWheelTimer} moves at most 100,000 new timeouts,
     * and every cancelled one, into its wheel per tick; the others need a moment for their
     * workers to drain what producers handed over.
     */
    static void settle(String subject, int count) throws InterruptedException {
        long tickMillis = subject.equals("netty-hwt-100ms") ? 100 : subject.equals("netty-hwt-1ms") ? 1 : 0;
        long millis = tickMillis == 0 ? 200 : tickMillis * (count / 100_000 + 3);
        Thread.sleep(Math.max(200, millis));
    }
}
