package io.github.timingwheel.examples;

import io.github.timingwheel.executor.WheelScheduledExecutor;
import io.github.timingwheel.executor.WheelTimer;
import io.netty.util.HashedWheelTimer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The schedulers the demo can run, each made as a user would make it, with every setting at
 * its default except the thread factory (so that the demo can find the threads) and the number
 * of workers.
 */
enum Contender {

    /** Ours: {@code WheelScheduledExecutor}, the default 1 ms tick. */
    WHEEL("wheel", "wheel", "wheel = WheelScheduledExecutor (this project)") {
        @Override
        Subject<?> start(int workers) {
            RecordingThreadFactory threads = new RecordingThreadFactory(key);
            WheelScheduledExecutor executor = WheelScheduledExecutor.builder()
                    .workers(workers)
                    .threadFactory(threads)
                    .build();
            return new ExecutorSubject(title, executor, threads);
        }
    },

    /** The JDK's, as {@code Executors.newScheduledThreadPool(workers)} makes it. */
    STPE("stpe", "STPE", "STPE = ScheduledThreadPoolExecutor (JDK)") {
        @Override
        Subject<?> start(int workers) {
            RecordingThreadFactory threads = new RecordingThreadFactory(key);
            return new ExecutorSubject(title, new ScheduledThreadPoolExecutor(workers, threads), threads);
        }
    },

    /** Netty's {@code HashedWheelTimer} with its default 100 ms tick (one thread). */
    HWT_100MS("hwt-100ms", "HWT 100ms", Contender.HWT_LEGEND) {
        @Override
        Subject<?> start(int workers) {
            return hashedWheelTimer(100);
        }
    },

    /** Netty's {@code HashedWheelTimer} with a 1 ms tick, as often configured for precision. */
    HWT_1MS("hwt-1ms", "HWT 1ms", Contender.HWT_LEGEND) {
        @Override
        Subject<?> start(int workers) {
            return hashedWheelTimer(1);
        }
    },

    /** Ours behind Netty's {@code Timer} interface: {@code WheelTimer}. Not run by default. */
    WHEEL_TIMER("wheel-timer", "WheelTimer", "WheelTimer = ours as a Netty Timer") {
        @Override
        Subject<?> start(int workers) {
            RecordingThreadFactory threads = new RecordingThreadFactory(key);
            WheelTimer timer = WheelTimer.builder().workers(workers).threadFactory(threads).build();
            return new NettyTimerSubject(title, timer, timer::pendingTimeouts, threads);
        }
    };

    /** The legend of both HashedWheelTimer columns. */
    static final String HWT_LEGEND = "HWT = Netty's HashedWheelTimer with the tick shown";

    /** The name in {@code --schedulers}. */
    final String key;
    /** The column title in the report. */
    final String title;
    /** What the title stands for, in the demo's intro; both HWT columns share one. */
    final String legend;

    Contender(String key, String title, String legend) {
        this.key = key;
        this.title = title;
        this.legend = legend;
    }

    /** Makes a new scheduler of this kind with {@code workers} threads (if it has a choice). */
    abstract Subject<?> start(int workers);

    Subject<?> hashedWheelTimer(long tickMillis) {
        RecordingThreadFactory threads = new RecordingThreadFactory(key);
        HashedWheelTimer timer = new HashedWheelTimer(threads, tickMillis, TimeUnit.MILLISECONDS);
        return new NettyTimerSubject(title, timer, timer::pendingTimeouts, threads);
    }

    static List<Contender> defaults() {
        return List.of(WHEEL, STPE, HWT_100MS, HWT_1MS);
    }

    static List<String> defaultKeys() {
        return defaults().stream().map(c -> c.key).collect(Collectors.toList());
    }

    static String keys() {
        return Arrays.stream(values()).map(c -> c.key).collect(Collectors.joining(", "));
    }

    static Contender byKey(String key) {
        return Arrays.stream(values()).filter(c -> c.key.equals(key)).findFirst().orElse(null);
    }
}
