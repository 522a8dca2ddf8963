package io.github.timingwheel.executor;

/**
 * A one-shot task of a {@link TaskGroup}: a {@link ScheduledTask} that also carries its
 * group's links. 80 bytes on a 64-bit JVM with compressed references (the ungrouped task is 64;
 * the four references fill exactly the next 16).
 *
 * @param <V> the result type
 */
final class GroupedTask<V> extends ScheduledTask<V> implements GroupMember {

    final TaskGroup group;
    /** Tracking links, guarded by the group's MemberTracker. */
    private GroupMember previousMember;
    private GroupMember nextMember;
    /** Serial groups' run queue link, guarded by the group's SerialRunQueue. */
    private GroupMember nextDue;

    GroupedTask(WheelScheduledExecutor owner, TaskGroup group, Object body) {
        super(owner, body);
        this.group = group;
    }

    /** A worker (or the task executor) runs the task: through its group. */
    @Override
    void runBody() {
        group.run(this);
    }

    @Override
    public void runInGroup() {
        if (mayRunElseCancel()) {
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
        return outer().cancel(mayInterruptIfRunning);
    }

    @Override
    public Object handle() {
        return outer();
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
