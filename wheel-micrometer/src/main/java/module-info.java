/**
 * The schedulers' metrics as Micrometer meters: {@code WheelSchedulerMetrics}, a
 * {@code MeterBinder}.
 */
// micrometer-core 1.x has no module descriptor, only its automatic name; the binder's signatures
// name its types, so a user must read it.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.github.timingwheel.micrometer {
    requires transitive io.github.timingwheel.executor;
    requires transitive micrometer.core;

    exports io.github.timingwheel.micrometer;
}
