package io.github.timingwheel.executor;

/**
 * The run queue of a serial group: its due tasks, in the order the wheel handed them out, and
 * the flag that lets one thread at a time run them (the serial executor, or actor, pattern).
 *
 * <p>Thread-safe; the lock is this object's monitor, never exposed to users.
 */
final class SerialRunQueue {

    /*
     * Implementation notes
     *
     * [1] Order. The wheel hands due tasks out one at a time under its lock, earliest deadline
     *     first and equal deadlines in sequence (submission) order. Two workers that take two
     *     tasks of one group leave that lock in order but may reach the group in either order,
     *     so queueing a task when its worker arrives would let a later task overtake an earlier
     *     one. The queue therefore appends a task in WheelTask.handedOut(), which the wheel's
     *     lock holder calls at the moment of hand-out: the queue's order is the hand-out order.
     *     The worker that took the task then calls kick(), which runs the queue or finds it
     *     being run.
     * [2] Mutual exclusion. 'draining' is set by the one thread that finds it clear (under the
     *     monitor) and cleared by that thread when it finds the queue empty (under the monitor).
     *     Only the drainer runs tasks, so no two tasks of the group run at once; the monitor's
     *     release and acquire between one drainer's last task and the next drainer's first make
     *     each run happen-before the next.
     * [3] No lost task. Every task appended in handedOut() is followed by a kick() from the
     *     worker that took it. A drainer stops only after seeing the queue empty under the
     *     monitor, so an append either comes before that check (the drainer runs it) or after
     *     (the task's kick finds 'draining' clear and drains). Tasks handed to drainTo (the
     *     executor's shutdownNow) have no kick: they wait in the queue until another task of
     *     the group kicks it, or the group's cancelAll() or shutdownNow() cancels them.
     * [4] Fairness. A drainer runs at most BATCH tasks, then passes the rest to a fresh task on
     *     the shared workers (still draining, so the order holds) and returns its thread to the
     *     pool: a group with many due tasks does not hold a worker for all of them. If the
     *     executor does not take the continuation (it is shut down, or full), the drainer goes
     *     on itself. The continuation never goes through the executor's public execute(): after
     *     shutdown that reaches the RejectedExecutionHandler, and a handler that returns
     *     (DiscardPolicy, DiscardOldestPolicy and CallerRunsPolicy after shutdown, a logging
     *     handler) would drop it silently, leaving 'draining' set and the group's accepted
     *     tasks never run, while the executor, its queue empty, reports termination.
     *     Continuations.offer() answers instead, and a drainer that is refused keeps its worker
     *     busy, so the pool cannot terminate while the group holds due tasks.
     * [5] The monitor is a leaf lock, as MemberTracker's: handedOut() takes it while the wheel's
     *     lock is held, and no holder of this monitor takes any other lock or runs task code.
     */

    /** Tasks a drainer runs before it hands the rest to a fresh worker task ([4]). */
    static final int BATCH = 32;

    private final MemberTracker tracker;
    /** Where a drain continues after a batch ([4]). */
    private final Continuations continuations;

    /** Oldest due task, or null. Guarded by this. */
    private GroupMember head;
    /** Newest due task, or null. Guarded by this. */
    private GroupMember tail;
    /** Whether a thread is running the queue ([2]). Guarded by this. */
    private boolean draining;

    /** Queues the rest of a drain as a task of its own ([4]). */
    @FunctionalInterface
    interface Continuations {

        /** @return true if {@code drain} was queued and will run; false if the caller must go on */
        boolean offer(Runnable drain);
    }

    SerialRunQueue(MemberTracker tracker, Continuations continuations) {
        this.tracker = tracker;
        this.continuations = continuations;
    }

    /** Appends a task the wheel hands out ([1]); a task already queued stays where it is. */
    synchronized void append(GroupMember member) {
        if (member.nextDue() != null || tail == member) {
            return;
        }
        if (tail == null) {
            head = member;
        } else {
            tail.nextDue(member);
        }
        tail = member;
    }

    /** Runs the due tasks on this thread unless another thread does already ([2], [3]). */
    void kick() {
        synchronized (this) {
            if (draining || head == null) {
                return;
            }
            draining = true;
        }
        drain();
    }

    /** Drops every queued task (the group's cancelAll() or shutdownNow() has cancelled them). */
    synchronized void clear() {
        for (GroupMember m = head, next; m != null; m = next) {
            next = m.nextDue();
            m.nextDue(null);
        }
        head = null;
        tail = null;
    }

    /** Call only while draining; returns with the queue empty and 'draining' clear, or handed on. */
    private void drain() {
        boolean done = false;
        try {
            for (int ran = 0; ; ran++) {
                if (ran == BATCH && handOn()) {
                    done = true;
                    return;
                }
                GroupMember next = poll();
                if (next == null) {
                    done = true;
                    return;
                }
                tracker.enterRun();
                try {
                    next.runInGroup();
                } finally {
                    tracker.exitRun();
                }
            }
        } finally {
            if (!done) {
                stopDraining(); // a run threw past its own handler: let the next kick go on
            }
        }
    }

    /** The next task, or null after clearing 'draining' if there is none. */
    private synchronized GroupMember poll() {
        GroupMember first = head;
        if (first == null) {
            draining = false;
            return null;
        }
        head = first.nextDue();
        if (head == null) {
            tail = null;
        }
        first.nextDue(null);
        return first;
    }

    private synchronized void stopDraining() {
        draining = false;
    }

    /** Passes the rest of the drain to a fresh task ([4]); false if it must go on here. */
    private boolean handOn() {
        return continuations.offer(this::drain);
    }
}
