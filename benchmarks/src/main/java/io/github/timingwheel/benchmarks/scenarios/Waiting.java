package io.github.timingwheel.benchmarks.scenarios;

import java.util.function.BooleanSupplier;

/** Polls a condition every few milliseconds, for scenarios that wait for timers to fire. */
final class Waiting {

    private Waiting() {
    }

    /** Returns when {@code done} holds, or after {@code timeoutMillis} (the scenario reports what fired). */
    static void until(BooleanSupplier done, long timeoutMillis) throws InterruptedException {
        long giveUpAt = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (!done.getAsBoolean() && System.nanoTime() - giveUpAt < 0) {
            Thread.sleep(5);
        }
    }
}
