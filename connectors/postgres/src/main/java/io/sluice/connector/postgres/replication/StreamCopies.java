package io.sluice.connector.postgres.replication;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Tables copied into the stream (a table that joined the selection with rows, or whose rows a
 * DDL rewrote in a way the target cannot repeat): which wait for their copy, which are being
 * copied and until which marker their streamed changes are dropped (the copy holds them), and
 * the position the slot may not be confirmed past meanwhile, so that a crash redoes the copy.
 */
final class StreamCopies {

    /** Tables being copied, by oid, with their copy's marker (null until the copy starts). */
    private final Map<Integer, String> copying = new HashMap<>();
    private final ArrayDeque<Integer> requests = new ArrayDeque<>();
    private Long ceiling;

    /**
     * Asks for a table to be copied; false when it is being copied already.
     *
     * @param lastCompleteEnd the end of the last transaction fully received: the slot stays there until the copies are done
     */
    boolean request(int oid, long lastCompleteEnd) {
        if (copying.containsKey(oid)) {
            return false;
        }
        copying.put(oid, null);
        requests.add(oid);
        if (ceiling == null) {
            ceiling = lastCompleteEnd;
        }
        return true;
    }

    /** The next table to copy; null when none waits. */
    Integer next() {
        return requests.poll();
    }

    /** The copy started: the table's changes are dropped until the stream reaches the marker. */
    void started(int oid, String marker) {
        copying.put(oid, marker);
    }

    /** The copy could not start (the table was dropped meanwhile): its changes are streamed again. */
    void abandoned(int oid) {
        copying.remove(oid);
        liftCeilingIfDone();
    }

    /** The stream reached a copy's marker: changes after it are the table's own again. */
    void markerReached(String marker) {
        if (copying.values().removeIf(marker::equals)) {
            liftCeilingIfDone();
        }
    }

    /** Whether the table's streamed changes are dropped: its copy holds them. */
    boolean holds(int oid) {
        return !copying.isEmpty() && copying.containsKey(oid);
    }

    /** The highest position the slot may be confirmed to while tables are being copied; null when none is. */
    Long ceiling() {
        return ceiling;
    }

    /** A confirm position, lowered to the ceiling while tables are being copied (positions compare unsigned). */
    long capped(long confirm) {
        return ceiling != null && Long.compareUnsigned(confirm, ceiling) > 0 ? ceiling : confirm;
    }

    private void liftCeilingIfDone() {
        if (copying.isEmpty()) {
            ceiling = null;
        }
    }
}
