package io.github.timingwheel.executor;

/**
 * A re-armable timeout of a {@link TaskGroup}: a {@link RearmableTask} that also carries its
 * group's links, so that closing the group cancels it as any task of the group. It claims its
 * firing when the group runs it, not when a worker takes it: a serial group queues the task
 * when the wheel hands it out and runs it in its turn, and a touch may come in between.
 */
final class GroupedRearmableTask extends RearmableTask implements GroupMember {

    final TaskGroup group;
    /** Tracking links, guarded by the group's MemberTracker. */
    private GroupMember previousMember;
    private GroupMember nextMember;
    /** Serial groups' run queue link, guarded by the group's SerialRunQueue. */
    private GroupMember nextDue;

    GroupedRearmableTask(WheelScheduledExecutor owner, TaskGroup group, Runnable command, long timeoutNanos,
            long toleranceNanos) {
        super(owner, command, timeoutNanos, toleranceNanos);
        this.group = group;
    }

    @Override
    boolean claimsInRun() {
        return false;
    }

    /** A worker (or the task executor) runs the task: through its group. */
    @Override
    void runBody() {
        group.run(this);
    }

    @Override
    public void runInGroup() {
        if (claimElseRelink() && mayRunElseCancel()) {
            super.runBody();
        }
        group.afterRun();
    }

    @Override
    void completed() {
        group.finished(this);
    }

    @Override
    void handedOut() {
        group.handedOut(this);
    }

    @Override
    public boolean cancelByGroup(boolean mayInterruptIfRunning) {
        return cancel(mayInterruptIfRunning);
    }

    @Override
    public Object handle() {
        return this;
    }

    @Override
    public GroupMember previousMember() {
        return previousMember;
    }

    @Override
    public void previousMember(GroupMember member) {
        previousMember = member;
    }

    @Override
    public GroupMember nextMember() {
        return nextMember;
    }

    @Override
    public void nextMember(GroupMember member) {
        nextMember = member;
    }

    @Override
    public GroupMember nextDue() {
        return nextDue;
    }

    @Override
    public void nextDue(GroupMember member) {
        nextDue = member;
    }
}
