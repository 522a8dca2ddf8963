package io.github.timingwheel.executor;

/**
 * A task that belongs to a group ({@link TaskGroup} or {@link TimeoutGroup}): it carries the
 * links of its group's intrusive lists itself, so that tracking it costs no node and no
 * allocation beyond the task.
 *
 * <p>The executor's one-shot and periodic tasks and the timer's timeouts have different
 * superclasses, so each grouped kind implements these accessors over its own fields. The links
 * follow the threading rule of the list that uses them: {@link MemberTracker}'s lock for the
 * tracking links, {@link SerialRunQueue}'s lock for {@code nextDue}.
 */
interface GroupMember {

    GroupMember previousMember();

    void previousMember(GroupMember member);

    GroupMember nextMember();

    void nextMember(GroupMember member);

    /** The next task in the serial group's queue of due tasks, or null. */
    GroupMember nextDue();

    void nextDue(GroupMember member);

    /** Whether the member is a periodic task, which an orderly shutdown of the group cancels. */
    boolean isPeriodic();

    /**
     * Cancels the member as its group's close does.
     *
     * @param mayInterruptIfRunning whether a run in progress is interrupted (executor tasks only)
     * @return true if this call cancelled a pending member
     */
    boolean cancelByGroup(boolean mayInterruptIfRunning);

    /**
     * Runs the member once, on the calling thread, if it is still pending and may run: what a
     * worker would do with it, without handing it to the group again.
     */
    void runInGroup();

    /** What the group's close reports for a cancelled member: the future or the timeout. */
    Object handle();
}
