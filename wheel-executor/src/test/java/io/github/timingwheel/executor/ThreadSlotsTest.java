package io.github.timingwheel.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import org.junit.jupiter.api.Test;

/** The JVM's counting threads' slots ({@link ThreadSlots}). */
class ThreadSlotsTest {

    /**
     * A thread that counted and died leaves nothing of its own reachable through its slot
     * (ThreadSlots [4]): what its task held is collected. On JDK 21 and later a dead thread
     * keeps its task, so a slot holding its thread would keep a shut-down executor's pool.
     * Mutant: owners held strongly (red in the JDK 25 pass of the build; JDK 17 clears a dead
     * thread's task itself).
     */
    @Test
    void aDeadThreadsTask_isCollected_whileItsSlotIsKept() throws InterruptedException {
        WeakReference<Object> held = runAndDie();
        for (int i = 0; i < 50 && held.get() != null; i++) {
            System.gc();
            Thread.onSpinWait();
        }
        assertThat(held.get()).as("what the dead counting thread's task held").isNull();
    }

    private static WeakReference<Object> runAndDie() throws InterruptedException {
        Object payload = new Object();
        Thread counting = new Thread(new Runnable() {
            @Override
            public void run() {
                ThreadSlots.mine();
                assertThat(payload).isNotNull(); // the task holds the payload
            }
        });
        counting.start();
        counting.join();
        return new WeakReference<>(payload);
    }
}
