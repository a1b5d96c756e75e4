package io.sluice.sink.postgres.copy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.postgres.schema.TargetTables;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Rows of a resumed snapshot, which may be on the target already: the columns they are upserted
 * on, the target's key or, while the target has none yet (its keys come with post-data), the
 * event key's columns backed by a temporary unique index, dropped before post-data builds the
 * real keys.
 */
final class ResumedRows {

    /** Sends and waits for every COPY in flight: an index cannot be built under them. */
    interface Drain {
        void run() throws InterruptedException;
    }

    private final TargetTables tables;
    private final CopyLoader loader;
    /** The temporary unique indexes this task made, by the table they are on. */
    private final Map<String, String> made = new LinkedHashMap<>();

    ResumedRows(TargetTables tables, CopyLoader loader) {
        this.tables = tables;
        this.loader = loader;
    }

    /** Whether the row may be on the target already: its snapshot resumed an earlier one. */
    static boolean mayExist(SinkRecord record) {
        Header resumed = record.headers().lastWithName(EventHeaders.SNAPSHOT_RESUMED);
        return resumed != null && Boolean.TRUE.equals(resumed.value());
    }

    /** The record key's columns, none for a keyless record. */
    static List<String> eventKey(SinkRecord record) {
        if (record.keySchema() == null || record.keySchema().type() != Schema.Type.STRUCT) {
            return List.of();
        }
        return record.keySchema().fields().stream().map(Field::name).toList();
    }

    /**
     * The columns to upsert a resumed row on, making the temporary unique index the first time a
     * keyless target needs one. Null for a keyless event into a keyless target: its rows are
     * inserted (such a table is emptied and copied again whole).
     */
    List<String> upsertKeys(String[] target, List<String> eventKey, Drain drain) throws InterruptedException {
        List<String> keys = tables.keyColumns(target[0], target[1]);
        if (!keys.isEmpty()) {
            return keys;
        }
        if (eventKey.isEmpty()) {
            return null;
        }
        String table = Identifiers.quote(target[0], target[1]);
        if (!made.containsKey(table)) {
            String index = "sluice_resume_" + Integer.toHexString(table.hashCode());
            drain.run();
            String create = "CREATE UNIQUE INDEX IF NOT EXISTS " + Identifiers.quote(index) + " ON " + table + " ("
                    + String.join(", ", eventKey.stream().map(Identifiers::quote).toList()) + ")";
            // On a cluster, tasks resuming the same table make the same index: one at a time, the others find it there.
            loader.execute("DO $$BEGIN PERFORM pg_advisory_xact_lock(hashtext(" + Identifiers.literal(table) + ")); EXECUTE "
                    + Identifiers.literal(create) + "; END$$", "Indexing " + table + " to resume");
            made.put(table, Identifiers.quote(target[0], index));
        }
        return eventKey;
    }

    /** Drops the indexes this task made. */
    void dropOwn() {
        for (String index : made.values()) {
            loader.execute("DROP INDEX IF EXISTS " + index, "Dropping the resume index " + index);
        }
        made.clear();
    }

    /** Drops the indexes on the loaded tables, whichever task made them (on a cluster). */
    void dropAll(List<String[]> loaded) {
        if (loaded.isEmpty()) {
            return;
        }
        String names = String.join(", ", loaded.stream().map(t -> "to_regclass(" + Identifiers.literal(Identifiers.quote(t[0], t[1])) + ")").toList());
        loader.execute("DO $$DECLARE i regclass; BEGIN FOR i IN SELECT x.indexrelid::regclass FROM pg_index x JOIN pg_class c "
                + "ON c.oid = x.indexrelid WHERE c.relname LIKE 'sluice\\_resume\\_%' AND x.indrelid IN (" + names + ") LOOP "
                + "EXECUTE 'DROP INDEX IF EXISTS ' || i; END LOOP; END$$", "Dropping the indexes that let the snapshot resume");
        made.clear();
    }
}
