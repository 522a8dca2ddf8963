package io.github.timingwheel.executor;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A run that took at least the scheduler's threshold. Committed by the thread that ran the task,
 * just after the body returned or threw. The run time is a field, measured on the scheduler's
 * time source; the event itself is an instant.
 */
@Name("io.github.timingwheel.TaskRanLong")
@Label("Task Ran Long")
@Category("Timing Wheel")
@Description("A task's run took at least the threshold set in the scheduler's builder")
@StackTrace(false)
final class TaskRanLongEvent extends jdk.jfr.Event {

    @Label("Scheduler")
    @Description("The name of the executor or timer")
    String scheduler;

    @Label("Task Class")
    @Description("The class of the task's Runnable, Callable or TimerTask")
    String taskClass;

    @Label("Run Time")
    @Description("How long the run took, on the scheduler's time source")
    @Timespan(Timespan.NANOSECONDS)
    long runTime;

    @Label("Threshold")
    @Description("The run time from which a run is recorded")
    @Timespan(Timespan.NANOSECONDS)
    long threshold;

    @Label("Failed")
    @Description("Whether the run threw")
    boolean failed;
}
