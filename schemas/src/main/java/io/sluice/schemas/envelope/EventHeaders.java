package io.sluice.schemas.envelope;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.header.Headers;

/** Record headers Sluice's sources set and its sinks read. */
public final class EventHeaders {

    /**
     * On the rows of a resumed snapshot (value {@code true}). Some of them may already be in
     * the target, read before the interruption but not yet confirmed, so a sink must upsert
     * them rather than insert.
     */
    public static final String SNAPSHOT_RESUMED = "sluice.snapshot.resumed";

    /**
     * On a change event whose row had TOASTed values the change did not touch: their column names,
     * comma-separated. PostgreSQL does not send such values; their fields hold null (or an empty
     * placeholder where the field is required) and are not data: a sink keeps the stored value.
     */
    public static final String UNCHANGED_TOAST = "sluice.unchanged.toast";

    /**
     * On an update or delete whose {@code before} holds only the replica identity's columns
     * (REPLICA IDENTITY DEFAULT or USING INDEX); its other fields are not data.
     */
    public static final String KEY_ONLY_BEFORE = "sluice.before.key.only";

    /**
     * On an update that changed the row's key (value {@code true}). The record is keyed by the
     * new key; the old key's earlier changes may be in another partition.
     */
    public static final String KEY_CHANGED = "sluice.key.changed";

    /**
     * On the delete of the old key that comes just before an update changing a row's key (value
     * {@code true}), when that update carries the whole row. Keyed by the old key, it lands in the
     * old key's partition after that key's earlier changes, so a sink applying partitions
     * independently cannot have one of those bring the old row back once the update is applied.
     */
    public static final String KEY_MOVED_AWAY = "sluice.key.moved.away";

    /**
     * On the last event of a source transaction (value {@code true}): a target that has applied
     * it has the whole transaction, which it records with its position, so that {@code sluice
     * verify} reads the target only between whole transactions (a batch may end inside one).
     */
    public static final String TRANSACTION_END = "sluice.transaction.end";

    /**
     * On a row event whose images hold values their Connect form cannot carry everywhere (array
     * lower bounds other than 1; NaN, ±Infinity and -0 floats, which Kafka's JSON converter loses):
     * where they are and what they are, as JSON ({@link ValueNotes}).
     */
    public static final String VALUE_NOTES = "sluice.value.notes";

    /**
     * On the rows and the key range of a re-sync asked for one webhook subscription (its
     * backfill): the subscription's name. The webhook sink delivers those rows to it alone; other
     * targets apply them as any re-sync's.
     */
    public static final String RESYNC_FOR = "sluice.resync.for";

    /**
     * On a row of a table a staging subset decides, streamed: how the target judges it by the
     * subset's rule against the rows it has. {@value #SUBSET_ROOT}: a root's row that meets its
     * condition, kept; {@value #SUBSET_VIA} and a JSON array of foreign-key names: kept when the
     * target has the row already, or the row one of those keys references; {@value #SUBSET_PARENT}:
     * a row a following row references, taken when that row is kept and the target lacks it;
     * {@value #SUBSET_DELETE}: a delete, always applied (a row the target lacks is not there to
     * delete), which the target notes so that an update changing the row's key after it is judged
     * by whether the row was there.
     */
    public static final String SUBSET = "sluice.subset";
    public static final String SUBSET_ROOT = "root";
    public static final String SUBSET_DELETE = "delete";
    public static final String SUBSET_VIA = "via:";
    public static final String SUBSET_PARENT = "parent";
    /** The source's own note on a row between its decoding and {@link #SUBSET}'s marking; never handed out. */
    public static final String SUBSET_VALUES = "sluice.subset.values";

    private EventHeaders() {
    }

    /** The columns the {@link #UNCHANGED_TOAST} header names, in its order; empty when there is none. */
    public static Set<String> unchangedToast(Headers headers) {
        Header header = headers.lastWithName(UNCHANGED_TOAST);
        if (header == null || header.value() == null || header.value().toString().isEmpty()) {
            return Set.of();
        }
        return Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(header.value().toString().split(","))));
    }

    /** Whether a flag header ({@link #KEY_ONLY_BEFORE}, {@link #KEY_MOVED_AWAY}, …) is there and true. */
    public static boolean isSet(Headers headers, String name) {
        Header header = headers.lastWithName(name);
        return header != null && header.value() != null && Boolean.parseBoolean(header.value().toString());
    }
}
