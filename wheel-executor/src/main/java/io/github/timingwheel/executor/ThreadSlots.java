package io.github.timingwheel.executor;

import java.lang.ref.WeakReference;
import java.util.Arrays;

/**
 * A small number for each live platform thread that counts, the same in every
 * {@link CounterCells} of the JVM: its slot. A thread claims one on its first call, and a slot
 * whose thread has died goes to the next thread that claims one, so the slots stay about as
 * many as the threads that count at once.
 */
final class ThreadSlots {

    /*
     * Implementation notes
     *
     * [1] One thread-local for the JVM, not one per CounterCells: a thread's first look-up of a
     *     thread-local is a branch that a compiled add had never seen taken, and with one per
     *     CounterCells every new executor made its producers' first schedule throw away the
     *     compiled schedule path (CounterCells [6]). With one for the JVM, a thread takes that
     *     branch once in its life.
     * [2] 'owners' is changed only under the class's monitor, by claims, which are rare (one per
     *     thread that ever counts). 'count' is volatile: a CounterCells made on any thread
     *     sizes its cells by it, and any slot claimed before that read is below it.
     * [3] A slot is given again only once its thread has died, seen by Thread.isAlive()
     *     returning false, which happens-after the dead thread's last action (JLS 17.4.4): so
     *     the claiming thread, which then goes on adding in the dead thread's cells, reads the
     *     values the dead thread left there, and every total stays a sum of all adds. Or once
     *     its thread has been collected: a thread object is collected only after it died and a
     *     collection has stopped every thread since, which orders what it wrote before the
     *     claim (the memory model has no word for collection; HotSpot's safepoints give it).
     * [4] Owners are held weakly. A dead thread keeps the task it was started with (JDK 21 and
     *     later do not clear it), a pool's worker and through it the pool: held strongly here,
     *     a shut-down executor stayed reachable until its workers' slots were given again.
     */

    /** The calling thread's slot, claimed by its first look-up ([1]). */
    private static final ThreadLocal<Slot> MINE = ThreadLocal.withInitial(ThreadSlots::claim);

    /**
     * The thread that holds each slot, or held it last, weakly ([4]); guarded by the class's
     * monitor ([2]).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static WeakReference<Thread>[] owners = new WeakReference[16];
    /** Slots given so far: one more than the highest ([2]). */
    private static volatile int count;

    /** A claimed slot, final so that a look-up reads one field. */
    private record Slot(int index) {
    }

    private ThreadSlots() {
    }

    /** The calling platform thread's slot. */
    static int mine() {
        return MINE.get().index();
    }

    /** Slots given so far: every slot claimed before this call is below it ([2]). */
    static int count() {
        return count;
    }

    /** A slot for the calling thread: one whose thread has died ([3]), or a new one. */
    private static synchronized Slot claim() {
        Thread me = Thread.currentThread();
        int given = count;
        for (int i = 0; i < given; i++) {
            Thread owner = owners[i].get();
            if (owner == null || !owner.isAlive()) { // [3]
                owners[i] = new WeakReference<>(me);
                return new Slot(i);
            }
        }
        if (given == owners.length) {
            owners = Arrays.copyOf(owners, 2 * given);
        }
        owners[given] = new WeakReference<>(me);
        count = given + 1;
        return new Slot(given);
    }
}
