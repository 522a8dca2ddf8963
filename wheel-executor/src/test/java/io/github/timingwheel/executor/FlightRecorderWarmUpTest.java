package io.github.timingwheel.executor;

import static io.github.timingwheel.executor.ExecutorTesting.awaitTermination;
import static java.util.concurrent.TimeUnit.HOURS;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import jdk.jfr.EventType;
import jdk.jfr.Event;
import org.junit.jupiter.api.Test;

/**
 * The first flight recorder event costs no more than the next: the scheduler's build does the
 * one-time work. The first use of an event class in a JVM loads and initialises it, which with
 * the Flight Recorder means about a hundred {@code jdk.jfr} classes and the event's
 * instrumentation: measured on a 2-core machine, 500 to 900 ms for the first
 * {@code isEnabled()} of a fresh JVM, 0.01 ms for the next. Done by the worker that commits the
 * first event, that delays every task queued behind it; done by {@code build()}, it costs the
 * caller once.
 *
 * <p>The proof is behaviour, not a time: a scheduler whose builder turns an event on has
 * loaded and registered that event's class when {@code build()} returns, and one whose builder
 * turns it off has not. Each test builds the scheduler from a fresh copy of this package's
 * classes in a class loader of its own, so that what other tests in this JVM did with the
 * event classes cannot hide what the build does.
 */
class FlightRecorderWarmUpTest {

    private static final String PACKAGE = WheelScheduledExecutor.class.getPackageName() + ".";
    private static final String LATE_CLASS = PACKAGE + "TaskLateEvent";
    private static final String RAN_LONG_CLASS = PACKAGE + "TaskRanLongEvent";
    private static final String REJECTED_CLASS = PACKAGE + "TaskRejectedEvent";

    /** Defines this package's classes afresh; everything else comes from the test's loader. */
    static final class FreshPackageLoader extends URLClassLoader {

        FreshPackageLoader() {
            super(new URL[] {WheelScheduledExecutor.class.getProtectionDomain().getCodeSource().getLocation()},
                    FreshPackageLoader.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(PACKAGE) || name.substring(PACKAGE.length()).contains(".")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    loaded = findClass(name); // this package's classes only: child first
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }

        /** Whether this loader has loaded the class; never loads it. */
        boolean hasLoaded(String name) {
            return findLoadedClass(name) != null;
        }

        /**
         * Whether the Flight Recorder has registered the event class; neither loads, initialises
         * nor registers it.
         */
        boolean isRegistered(String name) {
            Class<?> event = findLoadedClass(name);
            if (event == null) {
                return false;
            }
            try {
                return EventType.getEventType(event.asSubclass(Event.class)) != null;
            } catch (IllegalStateException notRegistered) {
                return false;
            }
        }

        /**
         * {@code WheelScheduledExecutor.builder()}, from the fresh classes, with the given event
         * settings, built: through reflection, since its classes are not the test's.
         */
        ExecutorService buildExecutor(long lateThresholdNanos, long longThresholdNanos, boolean rejections)
                throws ReflectiveOperationException {
            Class<?> executorClass = loadClass(PACKAGE + "WheelScheduledExecutor");
            Object builder = executorClass.getMethod("builder").invoke(null);
            Class<?> builderClass = builder.getClass();
            builderClass.getMethod("workers", int.class).invoke(builder, 1);
            builderClass.getMethod("daemon", boolean.class).invoke(builder, true);
            if (lateThresholdNanos >= 0L) {
                builderClass.getMethod("lateTaskEventThreshold", long.class, TimeUnit.class)
                        .invoke(builder, lateThresholdNanos, TimeUnit.NANOSECONDS);
            }
            if (longThresholdNanos >= 0L) {
                builderClass.getMethod("longTaskEventThreshold", long.class, TimeUnit.class)
                        .invoke(builder, longThresholdNanos, TimeUnit.NANOSECONDS);
            }
            builderClass.getMethod("rejectionEvents", boolean.class).invoke(builder, rejections);
            return (ExecutorService) builderClass.getMethod("build").invoke(builder);
        }
    }

    @Test
    void eventsOn_areLoadedAndRegistered_byTheBuild() throws Exception {
        try (FreshPackageLoader fresh = new FreshPackageLoader()) {
            ExecutorService executor = fresh.buildExecutor(HOURS.toNanos(1L), HOURS.toNanos(1L), true);
            try {
                for (String event : new String[] {LATE_CLASS, RAN_LONG_CLASS, REJECTED_CLASS}) {
                    assertThat(fresh.hasLoaded(event)).as("%s loaded by build()", event).isTrue();
                    assertThat(fresh.isRegistered(event)).as("%s registered by build()", event).isTrue();
                }
            } finally {
                shutDown(executor);
            }
        }
    }

    /** Only the kinds the builder turns on are prepared; with none on, no event class loads. */
    @Test
    void eventsOff_loadNothing() throws Exception {
        try (FreshPackageLoader fresh = new FreshPackageLoader()) {
            ExecutorService lateOnly = fresh.buildExecutor(0L, -1L, false);
            ExecutorService none = fresh.buildExecutor(-1L, -1L, false);
            try {
                assertThat(fresh.hasLoaded(LATE_CLASS)).as("late-start events, on").isTrue();
                assertThat(fresh.hasLoaded(RAN_LONG_CLASS)).as("long-run events, off").isFalse();
                assertThat(fresh.hasLoaded(REJECTED_CLASS)).as("rejection events, off").isFalse();
            } finally {
                shutDown(lateOnly);
                shutDown(none);
            }
        }
    }

    private static void shutDown(ExecutorService executor) throws InterruptedException {
        executor.shutdownNow();
        awaitTermination(executor);
    }
}
