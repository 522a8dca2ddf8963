package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Whether the calling thread is virtual (JDK 21 and later), on a JDK 17 baseline. A virtual
 * thread typically runs one request and ends, so what a scheduler keeps per producer thread (a
 * thread-local entry, a counter cell) would be made and dropped once per request.
 */
final class VirtualThreads {

    /** Thread.isVirtual() where it exists (JDK 21+), else null: then no thread is virtual. */
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    private VirtualThreads() {
    }

    /** Whether the calling thread is a virtual thread. */
    static boolean current() {
        return is(Thread.currentThread());
    }

    /** Whether {@code thread} is a virtual thread. */
    static boolean is(Thread thread) {
        if (IS_VIRTUAL == null) {
            return false; // a constant the JIT folds: JDK 17 pays nothing
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(thread);
        } catch (Throwable unexpected) {
            return false;
        }
    }

    private static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException beforeJdk21) {
            return null;
        }
    }
}
