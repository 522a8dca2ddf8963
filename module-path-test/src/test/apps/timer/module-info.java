module app.timer {
    requires io.github.timingwheel.executor;
    requires io.netty.common;
}
