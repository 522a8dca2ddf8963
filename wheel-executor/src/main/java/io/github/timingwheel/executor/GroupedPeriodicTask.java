package io.github.timingwheel.executor;

/**
 * A fixed-rate or fixed-delay task of a {@link TaskGroup}: a {@link PeriodicTask} that also
 * carries its group's links and its missed-run policy (96 bytes; the ungrouped periodic task is
 * 72). It stays in its group across runs, until it is cancelled or fails; each run goes through
 * the group, so a serial group orders it with the group's other tasks.
 */
final class GroupedPeriodicTask extends PeriodicTask implements GroupMember {

    final TaskGroup group;
    /** The missed-run policy of a fixed-rate task; null for fixed delay. */
    private final MissedRunPolicy policy;
    /** Tracking links, guarded by the group's MemberTracker. */
    private GroupMember previousMember;
    private GroupMember nextMember;
    /** Serial groups' run queue link, guarded by the group's SerialRunQueue. */
    private GroupMember nextDue;

    /**
     * @param period positive, in nanoseconds
     * @param policy what a fixed-rate task does after missed runs; null for a fixed delay
     */
    GroupedPeriodicTask(WheelScheduledExecutor owner, TaskGroup group, Runnable body, long period,
            MissedRunPolicy policy) {
        super(owner, body, period);
        this.group = group;
        this.policy = policy;
    }

    @Override
    MissedRunPolicy missedRunPolicy() {
        return policy;
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
