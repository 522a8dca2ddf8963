/**
 * The hierarchical timing wheel, its due heap, the time sources and the lateness histogram:
 * data structures only, no threads, and no module besides {@code java.base}.
 */
module io.github.timingwheel.core {
    exports io.github.timingwheel.core;
}
