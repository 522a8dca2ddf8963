package app.timer;

import io.github.timingwheel.executor.WheelTimer;
import io.netty.util.Timeout;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The Netty timer on the module path. */
public final class Main {
    public static void main(String[] args) throws Exception {
        try (WheelTimer timer = new WheelTimer()) {
            CountDownLatch fired = new CountDownLatch(1);
            timer.newTimeout(t -> fired.countDown(), 1, TimeUnit.MILLISECONDS);
            Timeout cancelled = timer.newTimeout(t -> { }, 1, TimeUnit.HOURS);
            cancelled.cancel();
            if (!fired.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the timeout did not fire");
            }
            System.out.println("timer: fired, cancelled " + timer.metrics().cancelled());
        }
    }
}
