package io.github.timingwheel.executor;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A task the scheduler refused. Committed by the thread that submitted it (its stack says who),
 * or, for a body the task executor refused, by the worker that handed it over.
 */
@Name("io.github.timingwheel.TaskRejected")
@Label("Task Rejected")
@Category("Timing Wheel")
@Description("A task was refused: submitted after shutdown, past the bound on pending tasks, or refused by the task executor")
final class TaskRejectedEvent extends jdk.jfr.Event {

    @Label("Scheduler")
    @Description("The name of the executor or timer")
    String scheduler;

    @Label("Task Class")
    @Description("The class of the task's Runnable, Callable or TimerTask")
    String taskClass;

    @Label("Reason")
    @Description("shutdown, maxPendingTasks, maxPendingTimeouts, stopped or taskExecutor")
    String reason;
}
