/**
 * What every benchmark here shares: the schedulers compared, made one way
 * ({@link io.github.timingwheel.benchmarks.subjects.TimerSubject}, with
 * {@link io.github.timingwheel.benchmarks.subjects.Baseline} for another commit's library), and how
 * they are measured and reported: the CPU and context switches of their threads
 * ({@link io.github.timingwheel.benchmarks.subjects.SchedulerThreads}), the heap they retain
 * ({@link io.github.timingwheel.benchmarks.subjects.HeapMeter}), and the median and range of a
 * figure over rounds ({@link io.github.timingwheel.benchmarks.subjects.Summary}). A subject's
 * threads are its own; the benchmark's threads only arm and cancel through it.
 */
package io.github.timingwheel.benchmarks.subjects;
