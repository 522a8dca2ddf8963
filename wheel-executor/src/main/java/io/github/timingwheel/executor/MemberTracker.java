package io.github.timingwheel.executor;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The pending tasks of one group and its lifecycle: an intrusive doubly linked list of
 * {@link GroupMember}s, the open, shut-down and closed states, and the counts that decide when
 * the group has terminated.
 *
 * <p>Every method is thread-safe. The lock is this object's monitor, which is never exposed to
 * users (the public group objects hold a tracker, they are not one).
 */
final class MemberTracker {

    /*
     * Implementation notes
     *
     * [1] One monitor guards every field below and every member's tracking links. Each critical
     *     section is a few pointer writes and never calls out: no task code, no executor, no
     *     other lock (only notifyAll). So the lock is a leaf: it may be taken while holding the
     *     wheel's lock (SerialRunQueue does not need to, but nothing forbids it) and no cycle of
     *     locks can form. Uncontended, a monitor costs one CAS to enter and one to leave; it is
     *     contended only when the thread that schedules a group's tasks meets the worker that
     *     completes one of them, for a few instructions. A lock-free list was not worth its
     *     proof: unlinking from the middle of a doubly linked list without a lock needs marking
     *     and helping (Harris, Sundell-Tsigas), and the per-task cost here is already O(1).
     * [2] Membership. A member is linked from admit() until its completion hook (finished())
     *     or a rejected submission (admitted(.., false)) unlinks it. The hook runs exactly once
     *     per task, after its final state is set, so a task that completes or is cancelled in
     *     any way, by anyone, leaves the list: nothing is retained.
     * [3] close() vs schedule(). A submission links its member first (admit, which rejects if
     *     the group is not open), then hands it to the executor outside the lock, then reports
     *     (admitted). close() marks the group closed and then waits, under the monitor, until no
     *     submission is in flight: a submission is short and never blocks (no task code runs in
     *     it), and waiting means close() never cancels a task that the executor has not yet
     *     accepted (whose pending count it would otherwise decrement before the executor
     *     incremented it). So every submission either saw the group closed and was rejected, or
     *     was linked before close() took its snapshot and is cancelled by it.
     * [4] close() cancels the members outside the lock, from a snapshot array: a cancel runs
     *     task code (Netty's TimerTask.cancelled, the waiters of a future) and re-enters the
     *     tracker through the completion hook. The members stay linked until their own hooks
     *     unlink them, so the group is not terminated before every member is finished.
     * [5] Termination: not open, no member linked, no submission in flight, and no run in
     *     progress. Runs are counted from before the run's last state check (enterRun) to after
     *     the body returned (exitRun), so a body that close() could not stop (it had passed its
     *     check, as with Future.cancel(false)) keeps the group from terminating until it ends.
     *     Every change that can make the condition true calls notifyAll.
     */

    private static final int OPEN = 0;
    private static final int SHUT_DOWN = 1;
    private static final int CLOSED = 2;

    private static final GroupMember[] NONE = new GroupMember[0];

    /** Most recently linked first. Guarded by this ([1]). */
    private GroupMember head;
    /** Members linked. Guarded by this. */
    private int size;
    /** OPEN, then SHUT_DOWN or CLOSED, never back; written under this, read by isShutdown. */
    private volatile int state;
    /** Submissions between admit and admitted ([3]). Guarded by this. */
    private int submitting;
    /** Runs in progress ([5]). Guarded by this. */
    private int running;

    // ---------------------------------------------------------------------------------------
    // Submission ([3]).

    /**
     * Links a new member, before it is handed to the executor.
     *
     * @throws RejectedExecutionException if the group is shut down or closed
     */
    synchronized void admit(GroupMember member) {
        if (state != OPEN) {
            throw new RejectedExecutionException("the group is " + (state == CLOSED ? "closed" : "shut down"));
        }
        GroupMember first = head;
        member.nextMember(first);
        if (first != null) {
            first.previousMember(member);
        }
        head = member;
        size++;
        submitting++;
    }

    /** Ends a submission: a member the executor did not accept is unlinked again. */
    synchronized void admitted(GroupMember member, boolean accepted) {
        if (!accepted) {
            unlink(member);
        }
        submitting--;
        if (state != OPEN) {
            notifyAll(); // close() may wait for this submission, awaitTermination for the last
        }
    }

    // ---------------------------------------------------------------------------------------
    // Completion and runs ([2], [5]).

    /** The completion hook: the member leaves the group. Idempotent. */
    synchronized void finished(GroupMember member) {
        unlink(member);
        if (state != OPEN && terminated()) {
            notifyAll();
        }
    }

    /** A run is about to make its last state check. */
    synchronized void enterRun() {
        running++;
    }

    /** The run has returned. */
    synchronized void exitRun() {
        running--;
        if (state != OPEN && terminated()) {
            notifyAll();
        }
    }

    /** Call only when holding this. */
    private void unlink(GroupMember member) {
        GroupMember previous = member.previousMember();
        GroupMember next = member.nextMember();
        if (previous == null && head != member) {
            return; // not linked: finished already, or never admitted
        }
        if (previous == null) {
            head = next;
        } else {
            previous.nextMember(next);
        }
        if (next != null) {
            next.previousMember(previous);
        }
        member.previousMember(null);
        member.nextMember(null);
        size--;
    }

    // ---------------------------------------------------------------------------------------
    // Lifecycle.

    /**
     * Closes the group: no new members; returns every member still linked, for the caller to
     * cancel outside the lock ([4]). Waits for submissions in flight first ([3]).
     *
     * @return the members to cancel; empty if the group was closed already
     */
    GroupMember[] close() {
        return end(CLOSED);
    }

    /**
     * Shuts the group down in order: no new members; returns the periodic members, for the
     * caller to cancel; one-shot members stay and run.
     */
    GroupMember[] shutdown() {
        return end(SHUT_DOWN);
    }

    private GroupMember[] end(int target) {
        boolean interrupted = false;
        try {
            synchronized (this) {
                if (state >= target) {
                    return NONE;
                }
                state = target;
                while (submitting > 0) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        interrupted = true; // the wait is a few instructions long; finish it
                    }
                }
                GroupMember[] members = snapshot(target == SHUT_DOWN);
                if (terminated()) {
                    notifyAll();
                }
                return members;
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Call only when holding this. */
    private GroupMember[] snapshot(boolean periodicOnly) {
        int count = 0;
        for (GroupMember m = head; m != null; m = m.nextMember()) {
            if (!periodicOnly || m.isPeriodic()) {
                count++;
            }
        }
        if (count == 0) {
            return NONE;
        }
        GroupMember[] members = new GroupMember[count];
        int i = 0;
        for (GroupMember m = head; m != null; m = m.nextMember()) {
            if (!periodicOnly || m.isPeriodic()) {
                members[i++] = m;
            }
        }
        return members;
    }

    boolean isShutdown() {
        return state != OPEN;
    }

    boolean isClosed() {
        return state == CLOSED;
    }

    synchronized boolean isTerminated() {
        return state != OPEN && terminated();
    }

    /** Call only when holding this ([5]). */
    private boolean terminated() {
        return size == 0 && submitting == 0 && running == 0;
    }

    /** Waits until terminated, or until the timeout elapses. */
    synchronized boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        long deadline = System.nanoTime() + nanos;
        while (!(state != OPEN && terminated())) {
            if (nanos <= 0L) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, nanos);
            nanos = deadline - System.nanoTime();
        }
        return true;
    }

    /** The number of members linked: pending, or running and not yet finished. */
    synchronized int size() {
        return size;
    }
}
