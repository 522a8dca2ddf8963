package io.github.timingwheel.executor;

import io.netty.util.Timer;
import io.netty.util.TimerTask;

/**
 * A timeout of a {@link TimeoutGroup}: a {@link WheelTimeout} that also carries its group's
 * links (72 bytes; the ungrouped timeout is 56).
 */
final class GroupedTimeout extends WheelTimeout implements GroupMember {

    private final TimeoutGroup group;
    /** Tracking links, guarded by the group's MemberTracker. */
    private GroupMember previousMember;
    private GroupMember nextMember;
    /** Serial groups' run queue link, guarded by the group's SerialRunQueue. */
    private GroupMember nextDue;

    GroupedTimeout(WheelTimer timer, TimeoutGroup group, TimerTask task) {
        super(timer, task);
        this.group = group;
    }

    /** The group that made it: re-arming through {@code timeout.timer()} stays in the group. */
    @Override
    public Timer timer() {
        return group;
    }

    /** The deadline has come: fire now, or let the serial group fire it in its turn. */
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
        if (claim()) {
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
