package io.github.timingwheel.executor;

import io.netty.util.Timer;
import io.netty.util.TimerTask;

/**
 * A re-armable timeout of a {@link TimeoutGroup}: a {@link RearmableWheelTimeout} that also
 * carries its group's links, so that stopping the group cancels it. In a serial group it claims
 * its firing when the group runs it, not when the wheel hands it out, since a touch may come in
 * between.
 */
final class GroupedRearmableTimeout extends RearmableWheelTimeout implements GroupMember {

    private final TimeoutGroup group;
    /** Tracking links, guarded by the group's MemberTracker. */
    private GroupMember previousMember;
    private GroupMember nextMember;
    /** Serial groups' run queue link, guarded by the group's SerialRunQueue. */
    private GroupMember nextDue;

    GroupedRearmableTimeout(WheelTimer timer, TimeoutGroup group, TimerTask task, long timeoutNanos,
            long toleranceNanos) {
        super(timer, task, timeoutNanos, toleranceNanos);
        this.group = group;
    }

    /** The group that made it. */
    @Override
    public Timer timer() {
        return group;
    }

    /** The deadline has come: claim and fire now, or let the serial group do so in its turn. */
    @Override
    public void run() {
        if (group.isSerial()) {
            group.kickOnTaskThread();
        } else {
            super.run();
        }
    }

    @Override
    public void runInGroup() {
        if (claimElseRelink() && claim()) {
            wheelTimer().expiredHere(this);
        }
    }

    @Override
    void finished() {
        group.finished(this);
    }

    @Override
    void handedOut() {
        group.handedOut(this);
    }

    @Override
    public boolean isPeriodic() {
        return false;
    }

    @Override
    public boolean cancelByGroup(boolean mayInterruptIfRunning) {
        return cancel();
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
