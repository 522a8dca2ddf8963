package io.github.timingwheel.core;

/**
 * Padding before a {@link TimingWheel}'s fields, so that two wheels never share a cache line
 * (see the padding after its fields).
 */
abstract class TimingWheelPad {
    long p01, p02, p03, p04, p05, p06, p07, p08;
}
