/**
 * Worker threads around the timing wheel: {@code WheelScheduledExecutor}, a
 * {@code ScheduledExecutorService}, and {@code WheelTimer}, an {@code io.netty.util.Timer}.
 *
 * <p>Netty is optional: a program without {@code io.netty.common} on its module path uses the
 * executor and never loads a Netty class; one that uses {@code WheelTimer} or
 * {@code TimeoutGroup} requires {@code io.netty.common} itself (4.1 or 4.2).
 */
module io.github.timingwheel.executor {
    // SchedulerMetrics hands out the core's LatencyDistribution.
    requires transitive io.github.timingwheel.core;
    // The producers' inboxes.
    requires org.jctools.core;
    // Only WheelTimer and TimeoutGroup, whose signatures name io.netty.util types. Static and
    // not transitive: a module that uses either requires io.netty.common itself (4.1 or 4.2),
    // and one that does not can leave Netty out (javac would want a static transitive module
    // present when compiling every module that reads this one).
    requires static io.netty.common;
    // The flight recorder events. Their classes are loaded only when a builder turns them on.
    // Not static, so that jlink puts jdk.jfr into an image built for an application of this
    // module: with static, a trimmed image would lack it, and a builder that turns the events
    // on would fail with NoClassDefFoundError. (A full JDK resolves jdk.jfr either way.)
    requires jdk.jfr;

    exports io.github.timingwheel.executor;
}
