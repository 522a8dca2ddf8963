package io.github.timingwheel.executor;

import java.lang.invoke.MethodHandles;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;

/**
 * The JDK Flight Recorder events of one executor or timer: a run that started late, a run that
 * took long, a task refused. Each kind is on only if its builder setting is; a scheduler with
 * none on has no {@code TaskEvents} at all, so it never loads a {@code jdk.jfr} class and pays
 * one null check per run. The kinds that are on have their classes loaded and registered when
 * the scheduler is built, so that the first event does not stall a worker. An event that is on
 * is built only past its threshold, and committed only if a recording has it enabled
 * ({@code isEnabled}), so a JVM that is not recording pays for a comparison and an allocation
 * the JIT usually removes.
 *
 * <p>Immutable and thread-safe; every method is called by the thread that saw what it records.
 */
final class TaskEvents {

    /*
     * Implementation notes
     *
     * [1] The first use of an event class in a JVM loads and initialises it, and with it about
     *     a hundred jdk.jfr classes and the event's instrumentation: half a second or more on
     *     a small machine. Left to the first event, that falls on a worker, and every task
     *     queued behind it starts that much late (the 4th run of a fixed-rate lane started
     *     455-495 ms late in the MissedRunPolicies example). So of() registers and initialises
     *     the classes of the kinds that are on, once, on the thread that builds the scheduler;
     *     the first event then costs what any event costs (FlightRecorderWarmUpTest). Kinds
     *     that are off are not touched, and a scheduler with none on loads no jdk.jfr class.
     */

    /** The name of the executor or timer, in every event. */
    private final String scheduler;
    private final boolean lateEvents;
    /** Lateness from which a start is recorded, in nanoseconds; meaningful if lateEvents. */
    private final long lateThresholdNanos;
    private final boolean longRunEvents;
    /** Run time from which a run is recorded, in nanoseconds; meaningful if longRunEvents. */
    private final long longRunThresholdNanos;
    private final boolean rejectionEvents;

    private TaskEvents(String scheduler, long lateThresholdNanos, long longRunThresholdNanos,
            boolean rejectionEvents) {
        this.scheduler = scheduler;
        this.lateEvents = lateThresholdNanos >= 0L;
        this.lateThresholdNanos = lateThresholdNanos;
        this.longRunEvents = longRunThresholdNanos >= 0L;
        this.longRunThresholdNanos = longRunThresholdNanos;
        this.rejectionEvents = rejectionEvents;
    }

    /**
     * The events of a scheduler, or null if none is on.
     *
     * @param lateThresholdNanos negative for no late-start events
     * @param longRunThresholdNanos negative for no long-run events
     */
    static TaskEvents of(String scheduler, long lateThresholdNanos, long longRunThresholdNanos,
            boolean rejectionEvents) {
        if (lateThresholdNanos < 0L && longRunThresholdNanos < 0L && !rejectionEvents) {
            return null;
        }
        TaskEvents events = new TaskEvents(scheduler, lateThresholdNanos, longRunThresholdNanos,
                rejectionEvents);
        events.prepareEventClasses();
        return events;
    }

    /** Registers and initialises the event classes that are on, here and now ([1]). */
    private void prepareEventClasses() {
        if (lateEvents) {
            prepare(TaskLateEvent.class);
        }
        if (longRunEvents) {
            prepare(TaskRanLongEvent.class);
        }
        if (rejectionEvents) {
            prepare(TaskRejectedEvent.class);
        }
    }

    private static void prepare(Class<? extends Event> eventClass) {
        FlightRecorder.register(eventClass); // idempotent: later schedulers pay a look-up
        try {
            MethodHandles.lookup().ensureInitialized(eventClass);
        } catch (IllegalAccessException samePackage) {
            throw new AssertionError(samePackage);
        }
    }

    /** Whether runs must be timed: only then does the scheduler read the clock after a body. */
    boolean timesRuns() {
        return longRunEvents;
    }

    void started(Object body, long latenessNanos) {
        if (lateEvents && latenessNanos >= lateThresholdNanos) {
            TaskLateEvent event = new TaskLateEvent();
            if (event.isEnabled()) {
                event.scheduler = scheduler;
                event.taskClass = className(body);
                event.lateness = latenessNanos;
                event.threshold = lateThresholdNanos;
                event.commit();
            }
        }
    }

    void ended(Object body, long runNanos, boolean failed) {
        if (longRunEvents && runNanos >= longRunThresholdNanos) {
            TaskRanLongEvent event = new TaskRanLongEvent();
            if (event.isEnabled()) {
                event.scheduler = scheduler;
                event.taskClass = className(body);
                event.runTime = runNanos;
                event.threshold = longRunThresholdNanos;
                event.failed = failed;
                event.commit();
            }
        }
    }

    void rejected(Object body, String reason) {
        if (rejectionEvents) {
            TaskRejectedEvent event = new TaskRejectedEvent();
            if (event.isEnabled()) {
                event.scheduler = scheduler;
                event.taskClass = className(body);
                event.reason = reason;
                event.commit();
            }
        }
    }

    private static String className(Object body) {
        return body == null ? "" : body.getClass().getName();
    }
}
