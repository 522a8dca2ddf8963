package io.github.timingwheel.executor;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A run that started later than its deadline by at least the scheduler's threshold. Committed
 * by the thread that runs the task, just before the body; its stack would say nothing more.
 */
@Name("io.github.timingwheel.TaskLate")
@Label("Task Started Late")
@Category("Timing Wheel")
@Description("A task started later than its deadline by at least the threshold set in the scheduler's builder")
@StackTrace(false)
final class TaskLateEvent extends jdk.jfr.Event {

    @Label("Scheduler")
    @Description("The name of the executor or timer")
    String scheduler;

    @Label("Task Class")
    @Description("The class of the task's Runnable, Callable or TimerTask")
    String taskClass;

    @Label("Lateness")
    @Description("When the task started minus its deadline, on the scheduler's time source")
    @Timespan(Timespan.NANOSECONDS)
    long lateness;

    @Label("Threshold")
    @Description("The lateness from which a start is recorded")
    @Timespan(Timespan.NANOSECONDS)
    long threshold;
}
