package io.github.timingwheel.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Checks every structural invariant of a {@link TimingWheel} through its package-private views,
 * and tells where a node is. A failure throws an {@link AssertionError} that names the wheel and
 * the offending node.
 *
 * <ol>
 *   <li>Bucket (l, s) is non-empty exactly when occupancy bit (l, s) is set (at level 0, its
 *       list, its stragglers or its presorted run); a level-0 bucket's own list is in
 *       (deadline, sequence) order, and so is its presorted run, each of whose nodes is in no
 *       ring, at the run index its heapIndex names, and placed as the bucket's.
 *   <li>Placement ([2] of the wheel's notes), with idx_l(t) = t >>> (l * log2(slots)) and c the
 *       current tick: a node in bucket (l, r) has a tick t with idx_l(t) mod ringSize = r,
 *       idx_l(c) < idx_l(t) and idx_{l+1}(t) <= idx_{l+1}(c) + 1.
 *   <li>Overflow: its ticks have idx_levels(t) > idx_levels(c) + 1 and are at least
 *       overflowMinTick, which is Long.MAX_VALUE when the overflow is empty.
 *   <li>The due heap is a heap by (deadline, sequence), each node's heapIndex is its position,
 *       and every heap node's tick is at most currentTick; the run and the ordered front are
 *       in that order, their ticks at most currentTick too, the front's links consistent.
 *   <li>Each bucket's count is at least its length, and 0 when it is empty.
 *   <li>Links: each ring is consistent both ways, nodes in a ring are not in the heap, heap nodes
 *       are in no ring, no node is in two places.
 *   <li>Staged nodes (TimingWheel [11]) are in no ring and not in the heap, each at the ring
 *       index its heapIndex names, and no staged deadline is before the ring's bound.
 *   <li>The nodes found add up to {@link TimingWheel#size()}.
 * </ol>
 */
final class WheelInvariants {

    /** {@link #locate} results besides a level number. */
    static final int OVERFLOW = Bucket.OVERFLOW;
    static final int HEAP = -2;
    static final int NOWHERE = -3;
    static final int STAGED = -4;

    private WheelInvariants() {
    }

    static void check(TimingWheel<?> wheel) {
        Set<TimerNode> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int level = 0; level < wheel.levels(); level++) {
            for (int slot = 0; slot < wheel.ringSize(); slot++) {
                Bucket bucket = wheel.bucket(level, slot);
                if (bucket == null) { // made when a node first goes there (TimingWheel [15])
                    require(!wheel.isOccupied(level, slot), wheel, () -> "an occupied slot without a bucket");
                    continue;
                }
                int l = level;
                int s = slot;
                require(bucket.level == l && bucket.slot == s, wheel, () -> bucket + " at " + l + "/" + s);
                require(bucket.isVacant() != wheel.isOccupied(level, slot), wheel,
                        () -> "occupancy bit disagrees with " + bucket + ", vacant=" + bucket.isVacant());
                require((level == 0) == (bucket.stragglers != null) && bucket.owner == bucket, wheel,
                        () -> bucket + ": stragglers exactly at level 0");
                checkRing(wheel, bucket, seen);
                if (bucket.stragglers != null) {
                    require(bucket.stragglers.owner == bucket && bucket.stragglers.level == 0
                            && bucket.stragglers.slot == s, wheel, () -> bucket + ": its stragglers' owner");
                    checkRing(wheel, bucket.stragglers, seen);
                    checkInOrder(wheel, bucket);
                }
                checkPresorted(wheel, bucket, seen);
            }
        }
        Bucket overflow = wheel.overflowBucket();
        require(!overflow.isEmpty() || wheel.overflowMinTick() == Long.MAX_VALUE, wheel,
                () -> "empty overflow with bound " + wheel.overflowMinTick());
        checkRing(wheel, overflow, seen);
        checkHeap(wheel, seen);
        checkStaging(wheel, seen);
        require(seen.size() == wheel.size(), wheel, () -> "found " + seen.size() + " nodes");
    }

    /** Where {@code node} is: a level, {@link #OVERFLOW}, {@link #HEAP} or {@link #NOWHERE}. */
    static int locate(TimingWheel<?> wheel, TimerNode node) {
        if (StagingRing.isStaged(node)) {
            return STAGED;
        }
        if (node.heapIndex <= -2 && tickOf(wheel, node) > wheel.currentTick()) {
            Bucket bucket = wheel.bucket(0, (int) tickOf(wheel, node) & (wheel.ringSize() - 1));
            require(bucket.presorted != null && bucket.presorted.holds(node, DueHeap.runSlotOf(node.heapIndex)), wheel,
                    () -> node + " not in its bucket's presorted run");
            return 0;
        }
        if (node.heapIndex != TimerNode.NOT_IN_HEAP) {
            DueHeap due = wheel.dueHeap();
            require(node.heapIndex >= 0 ? due.heapNode(node.heapIndex) == node : due.inRunAtItsIndex(node), wheel,
                    () -> node + " not at its heapIndex");
            return HEAP;
        }
        TimerNode walk = node.next;
        if (walk == null) {
            return NOWHERE;
        }
        while (!(walk instanceof Bucket)) {
            walk = walk.next;
        }
        int level = ((Bucket) walk).level;
        return level == Bucket.DUE_FRONT ? HEAP : level;
    }

    private static void checkRing(TimingWheel<?> wheel, Bucket bucket, Set<TimerNode> seen) {
        TimerNode previous = bucket;
        long limit = wheel.size() + 1;
        for (TimerNode walk = bucket.next; walk != bucket; walk = walk.next) {
            TimerNode node = walk;
            TimerNode before = previous;
            require(node != null && node.prev == before, wheel, () -> "broken ring in " + bucket + " after " + before);
            require(--limit > 0 && seen.add(node), wheel, () -> node + " seen twice (or a cycle) in " + bucket);
            require(node.heapIndex == TimerNode.NOT_IN_HEAP, wheel, () -> node + " in " + bucket + " and the heap");
            checkPlacement(wheel, bucket, node);
            previous = node;
        }
        TimerNode last = previous;
        require(bucket.prev == last, wheel, () -> bucket + " prev is not its last node " + last);
        long length = wheel.size() + 1 - limit;
        require(bucket.count >= length && (length > 0 || bucket.count == 0), wheel,
                () -> bucket + " counts " + bucket.count + " for " + length + " nodes");
    }

    /** A level-0 bucket's presorted run (TimingWheel [14]): in order, placed, each node at its index. */
    private static void checkPresorted(TimingWheel<?> wheel, Bucket bucket, Set<TimerNode> seen) {
        DueRun run = bucket.presorted;
        if (run == null) {
            return;
        }
        require(bucket.level == 0 && run.live() > 0, wheel, () -> bucket + ": an empty or misplaced presorted run");
        List<TimerNode> nodes = new ArrayList<>();
        run.forEachInOrder(nodes::add);
        require(nodes.size() == run.live(), wheel, () -> bucket + ": presorted run counts " + run.live());
        TimerNode previous = null;
        for (TimerNode node : nodes) {
            require(node.next == null && node.prev == null && seen.add(node), wheel,
                    () -> node + " in " + bucket + "'s presorted run and elsewhere");
            require(node.heapIndex <= -2 && run.holds(node, DueHeap.runSlotOf(node.heapIndex)), wheel,
                    () -> node + " not at its presorted run index");
            checkPlacement(wheel, bucket, node);
            TimerNode before = previous;
            require(before == null || !TimerNode.precedes(node, before), wheel,
                    () -> "presorted order: " + before + " before " + node);
            previous = node;
        }
    }

    /** A level-0 bucket's own list is in (deadline, sequence) order (TimingWheel [13]). */
    private static void checkInOrder(TimingWheel<?> wheel, Bucket bucket) {
        for (TimerNode node = bucket.next; node != bucket && node.next != bucket; node = node.next) {
            TimerNode before = node;
            TimerNode after = node.next;
            require(!TimerNode.precedes(after, before), wheel, () -> bucket + " out of order: " + before + " before " + after);
        }
    }

    private static void checkStaging(TimingWheel<?> wheel, Set<TimerNode> seen) {
        StagingRing staging = wheel.staging();
        if (staging == null) {
            return;
        }
        int[] live = new int[1];
        staging.forEach(node -> {
            live[0]++;
            require(staging.holdsAtItsIndex(node) && node.next == null && node.prev == null, wheel,
                    () -> node + " staged but linked, or not at the ring index its heapIndex names");
            require(seen.add(node), wheel, () -> node + " staged and elsewhere, or staged twice");
            require(node.deadline >= staging.earliest(), wheel,
                    () -> node + " staged before the ring's bound " + staging.earliest());
        });
        require(live[0] == staging.size(), wheel, () -> "the ring counts " + staging.size() + " for " + live[0]);
    }

    private static void checkPlacement(TimingWheel<?> wheel, Bucket bucket, TimerNode node) {
        long current = wheel.currentTick();
        long tick = tickOf(wheel, node);
        int bits = wheel.slotBits();
        if (bucket.level == Bucket.OVERFLOW) {
            int shift = wheel.levels() * bits;
            require((tick >>> shift) - (current >>> shift) > 1, wheel,
                    () -> node + " in overflow but within the top level's two laps of tick " + current);
            require(wheel.overflowMinTick() <= tick, wheel,
                    () -> node + " below overflowMinTick " + wheel.overflowMinTick());
            return;
        }
        int shift = bucket.level * bits;
        int upper = shift + bits;
        require((tick >>> upper) - (current >>> upper) <= 1, wheel,
                () -> node + " (tick " + tick + ") in " + bucket + " is beyond two laps of tick " + current);
        require(((tick >>> shift) & (wheel.ringSize() - 1)) == bucket.slot, wheel,
                () -> node + " (tick " + tick + ") in the wrong slot " + bucket);
        require(tick >>> shift > current >>> shift, wheel,
                () -> node + " (tick " + tick + ") in " + bucket + " not ahead of tick " + current);
    }

    private static void checkHeap(TimingWheel<?> wheel, Set<TimerNode> seen) {
        DueHeap heap = wheel.dueHeap();
        require(heap.size() == wheel.dueCount(), wheel, () -> "dueCount disagrees with the heap");
        for (int i = 0; i < heap.heapSize(); i++) {
            TimerNode node = heap.heapNode(i);
            int index = i;
            require(node != null && node.heapIndex == i, wheel, () -> "heap[" + index + "] = " + node + " has a wrong heapIndex");
            checkDue(wheel, node, seen);
            if (i > 0) {
                TimerNode parent = heap.heapNode((i - 1) >>> 1);
                require(TimerNode.precedes(parent, node), wheel, () -> "heap order: " + parent + " above " + node);
            }
        }
        List<TimerNode> run = heap.runNodes();
        List<TimerNode> front = frontNodes(wheel, heap.front());
        require(heap.heapSize() + run.size() + front.size() == heap.size(), wheel,
                () -> "heap, run and front sizes disagree");
        TimerNode previous = null;
        for (TimerNode node : run) {
            require(heap.inRunAtItsIndex(node), wheel, () -> node + " not at its run index");
            checkDue(wheel, node, seen);
            TimerNode before = previous;
            require(before == null || !TimerNode.precedes(node, before), wheel,
                    () -> "run order: " + before + " before " + node);
            previous = node;
        }
        previous = null;
        for (TimerNode node : front) {
            require(node.heapIndex == TimerNode.NOT_IN_HEAP, wheel, () -> node + " in the front and the heap");
            require(seen.add(node), wheel, () -> node + " seen twice");
            require(tickOf(wheel, node) <= wheel.currentTick(), wheel, () -> node + " in the front before its tick");
            TimerNode before = previous;
            require(before == null || !TimerNode.precedes(node, before), wheel,
                    () -> "front order: " + before + " before " + node);
            previous = node;
        }
    }

    /** The ordered front's nodes in list order, after checking its links both ways. */
    private static List<TimerNode> frontNodes(TimingWheel<?> wheel, Bucket front) {
        List<TimerNode> nodes = new ArrayList<>();
        TimerNode previous = front;
        long limit = wheel.size() + 1;
        for (TimerNode walk = front.next; walk != front; walk = walk.next) {
            TimerNode node = walk;
            TimerNode before = previous;
            require(node != null && node.prev == before && --limit > 0, wheel,
                    () -> "broken front after " + before);
            nodes.add(node);
            previous = node;
        }
        TimerNode last = previous;
        require(front.prev == last, wheel, () -> "the front's prev is not its last node " + last);
        return nodes;
    }

    private static void checkDue(TimingWheel<?> wheel, TimerNode node, Set<TimerNode> seen) {
        require(node.next == null && node.prev == null, wheel, () -> node + " in the heap and a ring");
        require(seen.add(node), wheel, () -> node + " seen twice");
        require(tickOf(wheel, node) <= wheel.currentTick(), wheel, () -> node + " in the heap before its tick");
    }

    private static long tickOf(TimingWheel<?> wheel, TimerNode node) {
        require(node.deadline >= 0, wheel, () -> node + " has a negative deadline");
        return node.deadline / wheel.tickNanos();
    }

    private static void require(boolean condition, TimingWheel<?> wheel, Supplier<String> message) {
        if (!condition) {
            throw new AssertionError(message.get() + " in " + wheel);
        }
    }
}
