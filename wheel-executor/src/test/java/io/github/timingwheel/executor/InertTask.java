package io.github.timingwheel.executor;

/**
 * A task of the tests, linked straight into a queue's wheel: always wanted there, never
 * cancelled, its own runnable, of any queue; it does nothing when it runs. Subclasses change
 * what a test needs.
 */
class InertTask extends WheelTask {

    @Override
    boolean wantsWheel() {
        return true;
    }

    @Override
    Runnable outer() {
        return this;
    }

    @Override
    boolean belongsTo(WheelWorkQueue queue) {
        return true;
    }

    @Override
    void markInInbox() {
    }

    @Override
    void clearInInbox() {
    }

    @Override
    boolean inInbox() {
        return false; // never cancelled, so nothing asks
    }

    @Override
    public void run() {
    }
}
