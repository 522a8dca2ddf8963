module app.executor {
    requires io.github.timingwheel.executor;
}
