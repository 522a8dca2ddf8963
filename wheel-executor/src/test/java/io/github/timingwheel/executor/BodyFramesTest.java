package io.github.timingwheel.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How far below the worker's loop a task body runs (ScheduledTask [6]): every frame there is
 * paid again by each exception the body builds, and a timeout's body usually builds one. The
 * JDK's executor is the control: a Callable runs as far below its worker as ours.
 */
class BodyFramesTest {

    /** Frames between the body and ThreadPoolExecutor.runWorker, both left out. */
    private static final Callable<Integer> FRAMES_TO_WORKER = () -> {
        StackTraceElement[] stack = new Throwable().getStackTrace();
        for (int i = 0; i < stack.length; i++) {
            if (stack[i].getClassName().equals(ThreadPoolExecutor.class.getName())
                    && stack[i].getMethodName().equals("runWorker")) {
                return i - 1;
            }
        }
        throw new AssertionError("not run by a ThreadPoolExecutor worker");
    };

    @Test
    void aOneShotBody_runsTwoFramesBelowTheWorker_asACallableDoesInTheJdksExecutor() throws Exception {
        try (WheelScheduledExecutor ours = WheelScheduledExecutor.builder().workers(1).build()) {
            assertThat(framesBelowWorker(ours)).isEqualTo(2);
        }
        ScheduledThreadPoolExecutor jdk = new ScheduledThreadPoolExecutor(1);
        try {
            assertThat(framesBelowWorker(jdk)).isEqualTo(2);
        } finally {
            jdk.shutdownNow();
        }
    }

    private static int framesBelowWorker(ScheduledExecutorService executor) throws Exception {
        return executor.schedule(FRAMES_TO_WORKER, 1, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS);
    }
}
