package io.github.timingwheel.core;

/**
 * Padding before a {@link TimingWheel}'s fields, so that two wheels never share a cache line
 * (see the padding after its fields).
 */
abstract class TimingWheelPad {
    /**
     * Fills the 4 bytes after a compressed object header, where the JVM (JDK 15 and later)
     * would otherwise put one of the wheel's int fields, in front of the padding.
     */
    int p00;
    long p01, p02, p03, p04, p05, p06, p07, p08;
}
