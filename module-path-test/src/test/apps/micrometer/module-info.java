module app.micrometer {
    requires io.github.timingwheel.micrometer;
}
