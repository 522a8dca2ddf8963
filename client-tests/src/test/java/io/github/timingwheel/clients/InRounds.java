package io.github.timingwheel.clients;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;

/**
 * Starts calls that end only by their timeout, a few at a time: a round's calls start together
 * and the next round starts when all of them have ended. A timeout that fires a millisecond early
 * then shows in the first firings of a round; had every call started at once, each firing (a
 * client building its exception) would queue behind hundreds of others and end a millisecond or
 * more late anyway, hiding it.
 */
final class InRounds {

    /** Starts call {@code index}, which runs {@code onEnd} once when it ends, on any thread. */
    interface Call {
        void start(int index, Runnable onEnd) throws Exception;
    }

    private InRounds() {
    }

    /**
     * Runs {@code rounds} rounds of {@code perRound} calls.
     *
     * @return each call's time from just before its start to its end, in nanoseconds
     */
    static long[] elapsedNanos(int rounds, int perRound, Call call) throws Exception {
        long[] startedAt = new long[rounds * perRound];
        long[] endedAt = new long[rounds * perRound];
        for (int round = 0; round < rounds; round++) {
            CountDownLatch ended = new CountDownLatch(perRound);
            for (int i = round * perRound; i < (round + 1) * perRound; i++) {
                int index = i;
                startedAt[index] = System.nanoTime();
                call.start(index, () -> {
                    endedAt[index] = System.nanoTime();
                    ended.countDown(); // after the write: the await below sees it
                });
            }
            assertThat(ended.await(30, SECONDS)).as("every call of round %d ended", round).isTrue();
        }
        long[] elapsed = new long[startedAt.length];
        for (int i = 0; i < elapsed.length; i++) {
            elapsed[i] = endedAt[i] - startedAt[i];
        }
        return elapsed;
    }
}
