package io.github.timingwheel.benchmarks.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * What walking a wheel's slot costs per node, and what walking several lists in turn would
 * gain (the lanes tried in docs/performance.md, "Lanes"): the time per node of walking a
 * million nodes scattered over the heap, linked into 1, 2, 4 or 8 lists that the walk follows
 * together, one node of each in turn. In one list each step needs the node before it from
 * memory, so the misses come one after another; in k lists k of them are in flight at once.
 * The nodes are linked in a random order of their allocation, as timers armed in no order of
 * their deadlines lie in a slot, and the caches are flooded before each walk.
 *
 * <p>Run: {@code java -Xmx4g -cp benchmarks/target/benchmarks.jar
 * io.github.timingwheel.benchmarks.core.LaneWalk [nodes] [rounds]} (default 1048576 nodes, 6
 * rounds; the first is warm-up).
 */
public final class LaneWalk {

    private static final int[] LISTS = {1, 2, 4, 8};
    /** Bytes of memory read between walks so that no node is left in a cache. */
    private static final int FLOOD_BYTES = 64 << 20;

    private LaneWalk() {
    }

    /** A node of about a timer task's size: links, a deadline, a sequence, a heap index. */
    private static final class Node {
        Node next;
        long deadline;
        long sequence;
        int heapIndex;
        long p1;
        long p2;
        long p3;
    }

    public static void main(String[] args) {
        int count = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 1 << 20;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 6;
        List<Node> order = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Node node = new Node();
            node.deadline = i;
            order.add(node);
        }
        Collections.shuffle(order, new Random(1));
        long[] sink = new long[count];
        long[] flood = new long[FLOOD_BYTES / Long.BYTES];
        System.out.printf("%,d nodes; ns per node walked, by the number of lists walked together%n", count);
        System.out.printf("%5s%s%n", "round", String.format("%10s".repeat(LISTS.length), (Object[]) labels()));
        for (int round = 1; round <= rounds; round++) {
            StringBuilder line = new StringBuilder(String.format("%5s", round == 1 ? "warm" : round - 1));
            for (int lists : LISTS) {
                Node[] heads = link(order, lists);
                long checksum = 0;
                for (int i = 0; i < flood.length; i += 8) {
                    checksum += flood[i];
                }
                long start = System.nanoTime();
                int walked = walk(heads, sink);
                long nanos = System.nanoTime() - start;
                if (walked != count || checksum != 0) { // the flood is zeros: its sum is read only to keep the loop
                    throw new AssertionError("walked " + walked + " of " + count);
                }
                line.append(String.format("%10.1f", (double) nanos / count));
            }
            System.out.println(line);
        }
    }

    private static String[] labels() {
        String[] labels = new String[LISTS.length];
        for (int i = 0; i < LISTS.length; i++) {
            labels[i] = LISTS[i] + (LISTS[i] == 1 ? " list" : " lists");
        }
        return labels;
    }

    /** Links the nodes, in the given order, into {@code lists} lists in turn. */
    private static Node[] link(List<Node> order, int lists) {
        Node[] heads = new Node[lists];
        Node[] tails = new Node[lists];
        for (int i = 0; i < order.size(); i++) {
            Node node = order.get(i);
            node.next = null;
            int list = i % lists;
            if (heads[list] == null) {
                heads[list] = node;
            } else {
                tails[list].next = node;
            }
            tails[list] = node;
        }
        return heads;
    }

    /** Takes one node of each list in turn, and touches it as a cascade touches a node it moves. */
    private static int walk(Node[] heads, long[] sink) {
        Node[] walking = heads.clone();
        int walked = 0;
        for (boolean any = true; any; ) {
            any = false;
            for (int list = 0; list < walking.length; list++) {
                Node node = walking[list];
                if (node != null) {
                    any = true;
                    walking[list] = node.next;
                    node.next = null;
                    sink[walked] = node.deadline ^ node.sequence;
                    node.heapIndex = walked++;
                }
            }
        }
        return walked;
    }
}
