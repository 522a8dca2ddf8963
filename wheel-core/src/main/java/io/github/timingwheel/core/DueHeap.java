package io.github.timingwheel.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * The nodes whose tick has come, ordered by (deadline, sequence): a binary min-heap, and beside
 * it an ordered front (a level-0 bucket that was in order) and a sorted run (the bulk of a tick
 * that came due at once, out of order). The head ({@link #peek}) is the first of the three
 * heads.
 *
 * <p>Each node records where it is ({@link TimerNode#heapIndex}): its index in the heap, as the
 * JDK's {@code DelayedWorkQueue} does, so that removing any node is O(log k) for a heap of k
 * nodes; or, encoded as {@code -2 - i}, its slot {@code i} in the run ({@link DueRun}), where
 * removal leaves a hole that polls step over (O(1)).
 *
 * <p>Why a run. A tick's bucket may hold hundreds of thousands of nodes that come due together
 * (a burst of timers armed for one instant). Polled out of a heap, each costs a walk down the
 * heap's depth, a cache miss per level once the heap outgrows the cache. The wheel hands such a
 * bucket over in one batch ({@link #beginBatch}, {@link #endBatch}); a batch of at least
 * {@link #RUN_MIN} nodes that finds no run is sorted once, by a radix sort of keys copied from
 * the nodes as they came (DueRun [1]), and then polled from the front. Smaller batches, and
 * batches that come while a run is being polled (a backlog), go into the heap, so the run is
 * never merged into. A run may also come ready-made ({@link #addRun}): a bucket's stragglers
 * sorted ahead of their tick (TimingWheel [14]).
 *
 * <p>Why an ordered front. A level-0 bucket keeps its nodes in (deadline, sequence) order, and
 * those that arrive out of order in a list beside them (Bucket.stragglers): timeouts of one
 * length armed in turn arrive in order. At the
 * tick the ordered list is taken over whole ({@link #adopt}), in O(1), and polled from its
 * front: the first node is handed out at once however many share the tick, and each node is
 * visited once, when it is polled, instead of once to be walked and sorted and again to be
 * polled. A node there keeps its links and {@code heapIndex == NOT_IN_HEAP}; it is unlinked
 * when it is polled or cancelled, like any bucket's node (the wheel's cancel unlinks it without
 * knowing where it is).
 *
 * <p>The heap's array shrinks by half when it falls below a quarter full (amortised O(1)), and
 * the run's array is dropped once the run is polled empty, so a burst that passes through does
 * not keep its peak arrays alive.
 */
final class DueHeap {

    private static final int MIN_CAPACITY = 64;
    /** The fewest nodes of a batch that make a run rather than go into the heap. */
    static final int RUN_MIN = 256;

    private TimerNode[] queue = new TimerNode[MIN_CAPACITY];
    private int size;

    /** The run being polled, or null. */
    private DueRun run;

    /** The ordered front: a level-0 bucket taken over whole, polled from its first node. */
    private final Bucket front = Bucket.dueFront();

    /**
     * Nodes added since beginBatch, not yet placed, with their deadlines and sequences copied
     * as they come (DueRun [1]); used only between beginBatch and endBatch.
     */
    private TimerNode[] batch = new TimerNode[MIN_CAPACITY];
    private long[] batchDeadlines = new long[MIN_CAPACITY];
    private long[] batchSequences = new long[MIN_CAPACITY];
    private int batchSize;
    private boolean batching;

    /**
     * Nodes in the heap, the run and the ordered front; counting the front walks it (a cancel
     * leaves its count unchanged), so this is for tests and descriptions, not for a poll.
     */
    int size() {
        int inFront = 0;
        for (TimerNode node = front.next; node != front; node = node.next) {
            inFront++;
        }
        return size + runLive() + inFront;
    }

    boolean isEmpty() {
        return size == 0 && runLive() == 0 && front.isEmpty();
    }

    /** The first node, by (deadline, sequence), or null. */
    TimerNode peek() {
        TimerNode head = queue[0];
        TimerNode fromRun = run == null ? null : run.peek();
        if (fromRun != null && (head == null || TimerNode.precedes(fromRun, head))) {
            head = fromRun;
        }
        TimerNode fromFront = front.next;
        if (fromFront != front && (head == null || TimerNode.precedes(fromFront, head))) {
            head = fromFront;
        }
        return head;
    }

    /**
     * Takes over the list of {@code bucket}, a level-0 bucket whose tick has come and whose list
     * is in (deadline, sequence) order (its stragglers stay), as the ordered front, if no front
     * is being polled: a front is never merged into.
     *
     * @return whether it did; if not, the caller places the list's nodes as usual
     */
    boolean adopt(Bucket bucket) {
        if (bucket.isEmpty() || !front.isEmpty()) {
            return false;
        }
        front.takeAll(bucket);
        return true;
    }

    /**
     * Takes over {@code presorted}, a level-0 bucket's stragglers sorted ahead of its tick
     * (TimingWheel [14]) whose tick has come, as the run, in O(1), if no run is being polled;
     * else adds its nodes one by one (between beginBatch and endBatch they then go to the heap,
     * since a run is never merged into).
     */
    void addRun(DueRun presorted) {
        if (run == null) {
            run = presorted;
            return;
        }
        presorted.forEachInOrder(node -> {
            node.heapIndex = TimerNode.NOT_IN_HEAP;
            add(node);
        });
    }

    void add(TimerNode node) {
        if (batching) {
            if (batchSize == batch.length) {
                growBatch(batchSize + (batchSize >>> 1));
            }
            batch[batchSize] = node;
            batchDeadlines[batchSize] = node.deadline;
            batchSequences[batchSize] = node.sequence;
            node.heapIndex = runIndexOf(batchSize); // its slot, should the batch become a run
            batchSize++;
            return;
        }
        addToHeap(node);
    }

    /**
     * Makes room in the batch for {@code more} nodes about to be added, so that a large bucket
     * handed over at once grows the batch's arrays once, not by half again a dozen times.
     * Call only between {@link #beginBatch} and {@link #endBatch}; {@code more} may be an upper
     * bound.
     */
    void reserve(long more) {
        long wanted = batchSize + more;
        if (wanted > batch.length) {
            growBatch((int) Math.min(wanted, Integer.MAX_VALUE - 8));
        }
    }

    private void growBatch(int capacity) {
        batch = Arrays.copyOf(batch, capacity);
        batchDeadlines = Arrays.copyOf(batchDeadlines, capacity);
        batchSequences = Arrays.copyOf(batchSequences, capacity);
    }

    /** Collects the nodes added until {@link #endBatch} (a bucket the wheel hands over). */
    void beginBatch() {
        batching = true;
    }

    /** Places the nodes added since {@link #beginBatch}: as a new run, or into the heap. */
    void endBatch() {
        batching = false;
        int n = batchSize;
        batchSize = 0;
        DueRun sorted = n >= RUN_MIN && run == null ? DueRun.sort(batch, batchDeadlines, batchSequences, n) : null;
        if (sorted != null) {
            run = sorted; // it keeps 'batch' as its slots
            newBatchArrays();
            return;
        }
        for (int i = 0; i < n; i++) {
            addToHeap(batch[i]);
            batch[i] = null;
        }
        if (batch.length > MIN_CAPACITY && n < (batch.length >>> 2)) {
            newBatchArrays();
        }
    }

    /** Gives the next batch arrays of the minimum size: the old ones went to a run, or are far too big. */
    private void newBatchArrays() {
        batch = new TimerNode[MIN_CAPACITY];
        batchDeadlines = new long[MIN_CAPACITY];
        batchSequences = new long[MIN_CAPACITY];
    }

    /**
     * Removes {@code head}, which {@link #peek} returned just now. From the run, the slot to
     * clear is read from the run's order rather than from the node, whose line may still be on
     * its way: a poll then does not wait for one node's miss before it looks at the next.
     */
    void removeHead(TimerNode head) {
        if (isRunIndex(head.heapIndex)) {
            run.removeHead();
            dropRunIfEmpty();
            return;
        }
        remove(head);
    }

    /**
     * Takes out, in order, the run's due nodes that come before every other node here, and
     * before {@code bound} if it is not null, by deadline alone (a tie is left to
     * {@link #peek}), at most {@code max}, into {@code into} from index {@code from}: without a
     * load from any of them (DueRun [5]).
     *
     * @return how many it took out; 0 if there is no run or its head is not first by deadline
     */
    int drainRunBefore(long now, TimerNode bound, TimerNode[] into, int from, int max) {
        if (run == null) {
            return 0;
        }
        long limit = now == Long.MAX_VALUE ? now : now + 1;
        if (size > 0) {
            limit = Math.min(limit, queue[0].deadline);
        }
        limit = Math.min(limit, front.next.deadline); // the sentinel's is Long.MAX_VALUE: no branch
        if (bound != null) {
            limit = Math.min(limit, bound.deadline);
        }
        int drained = run.drainBefore(limit, into, from, max);
        dropRunIfEmpty();
        return drained;
    }

    /** Lets go of a run polled or removed empty, and its arrays with it. */
    private void dropRunIfEmpty() {
        if (run.live() == 0) {
            run = null;
        }
    }

    void remove(TimerNode node) {
        int index = node.heapIndex;
        if (index >= 0) {
            removeAt(index);
            return;
        }
        if (index == TimerNode.NOT_IN_HEAP) {
            Bucket.unlink(node); // in the ordered front
            return;
        }
        run.remove(runSlotOf(index));
        dropRunIfEmpty();
    }

    /** Calls {@code action} on every node, in no particular order. */
    void forEach(Consumer<TimerNode> action) {
        for (int i = 0; i < size; i++) {
            action.accept(queue[i]);
        }
        if (run != null) {
            run.forEachInOrder(action);
        }
        for (TimerNode node = front.next; node != front; node = node.next) {
            action.accept(node);
        }
    }

    /** Removes every node; each one's {@code heapIndex} is reset before it is handed on. */
    void clear(Consumer<TimerNode> sink) {
        TimerNode[] oldHeap = queue;
        int oldSize = size;
        DueRun oldRun = run;
        queue = new TimerNode[MIN_CAPACITY];
        size = 0;
        run = null;
        for (int i = 0; i < oldSize; i++) {
            oldHeap[i].heapIndex = TimerNode.NOT_IN_HEAP;
            sink.accept(oldHeap[i]);
        }
        if (oldRun != null) {
            oldRun.forEachInOrder(node -> {
                node.heapIndex = TimerNode.NOT_IN_HEAP;
                sink.accept(node);
            });
        }
        TimerNode node = front.detachAll();
        while (node != null) {
            TimerNode following = node.next;
            node.prev = null;
            node.next = null;
            sink.accept(node);
            node = following;
        }
    }

    // ---------------------------------------------------------------------------------------
    // For invariant checks.

    int heapSize() {
        return size;
    }

    TimerNode heapNode(int index) {
        return queue[index];
    }

    /** The nodes of the run in order, holes left out. */
    List<TimerNode> runNodes() {
        List<TimerNode> nodes = new ArrayList<>();
        if (run != null) {
            run.forEachInOrder(nodes::add);
        }
        return nodes;
    }

    /** The ordered front's sentinel. */
    Bucket front() {
        return front;
    }

    /** Whether {@code node} sits in the run at the place its heapIndex names. */
    boolean inRunAtItsIndex(TimerNode node) {
        int index = node.heapIndex;
        return isRunIndex(index) && run != null && run.holds(node, runSlotOf(index));
    }

    // ---------------------------------------------------------------------------------------

    private int runLive() {
        return run == null ? 0 : run.live();
    }

    static int runIndexOf(int slot) {
        return -2 - slot;
    }

    static int runSlotOf(int heapIndex) {
        return -2 - heapIndex;
    }

    /** Whether {@code heapIndex} names a slot of a run ({@link #runIndexOf}), not a heap index or NOT_IN_HEAP. */
    static boolean isRunIndex(int heapIndex) {
        return heapIndex <= -2;
    }

    private void addToHeap(TimerNode node) {
        if (size == queue.length) {
            queue = Arrays.copyOf(queue, size + (size >>> 1));
        }
        siftUp(size++, node);
    }

    private void removeAt(int index) {
        TimerNode removed = queue[index];
        removed.heapIndex = TimerNode.NOT_IN_HEAP;
        int last = --size;
        TimerNode moved = queue[last];
        queue[last] = null;
        if (index != last) {
            siftDown(index, moved);
            if (queue[index] == moved) {
                siftUp(index, moved);
            }
        }
        maybeShrink();
    }

    private void maybeShrink() {
        int capacity = queue.length;
        if (capacity > MIN_CAPACITY && size < (capacity >>> 2)) {
            queue = Arrays.copyOf(queue, Math.max(MIN_CAPACITY, capacity >>> 1));
        }
    }

    private void siftUp(int index, TimerNode node) {
        while (index > 0) {
            int parentIndex = (index - 1) >>> 1;
            TimerNode parent = queue[parentIndex];
            if (!TimerNode.precedes(node, parent)) {
                break;
            }
            place(index, parent);
            index = parentIndex;
        }
        place(index, node);
    }

    private void siftDown(int index, TimerNode node) {
        int half = size >>> 1;
        while (index < half) {
            int childIndex = 2 * index + 1;
            TimerNode child = queue[childIndex];
            int rightIndex = childIndex + 1;
            if (rightIndex < size && TimerNode.precedes(queue[rightIndex], child)) {
                childIndex = rightIndex;
                child = queue[childIndex];
            }
            if (!TimerNode.precedes(child, node)) {
                break;
            }
            place(index, child);
            index = childIndex;
        }
        place(index, node);
    }

    private void place(int index, TimerNode node) {
        queue[index] = node;
        node.heapIndex = index;
    }

    /** (deadline, sequence) order as a comparator's result; also the tests' reference order. */
    static int compare(TimerNode a, TimerNode b) {
        return TimerNode.precedes(a, b) ? -1 : TimerNode.precedes(b, a) ? 1 : 0;
    }

}
