package io.sluice.connector.postgres.replication;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.ddl.DdlMessage;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Begin;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.ObjectChanges;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.naming.Identifiers;
import org.apache.kafka.connect.data.Struct;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one DDL message of Sluice's capture triggers means for the stream: whether the known
 * tables' shapes must be read again, which tables must be copied into the stream (and why), and
 * the schema-change event of the selected tables and objects it touched, if any.
 */
record DdlEvents(DdlMessage ddl, DdlMessage.Selection selection, boolean typesChanged, Map<DdlMessage.Table, String> copies,
                 List<SchemaChangeEvents.TableChange> changes, List<ObjectChanges.ObjectChange> objects) {

    private static final Logger LOG = LoggerFactory.getLogger(DdlEvents.class);

    static DdlEvents of(DdlMessage ddl, DdlMessage.Selection selection) {
        // A changed composite type or domain changes the values of the tables that use it, but pgoutput sends no new Relation
        // for them: every known table's shape is read again.
        boolean typesChanged = ddl.objects().stream().anyMatch(o -> o.kind().equals("type") || o.kind().equals("domain"));
        Map<DdlMessage.Table, String> copies = new LinkedHashMap<>();
        // A partitioned table holds no rows of its own: its partitions are in the message too, and are copied, unless
        // partitions are published through their root, which then holds all of their rows, as the copy reads it.
        for (DdlMessage.Table t : ddl.arrivedWithRows(selection)) {
            if (t.now().partitionKey() == null || selection.throughRoots()) {
                copies.put(t, "joined the selected tables with rows in it (" + ddl.tag() + ")");
            }
        }
        for (DdlMessage.Table t : ddl.rewritten(selection)) {
            if (t.now().partitionKey() == null || selection.throughRoots()) {
                copies.putIfAbsent(t, "had its rows converted by an expression the target cannot repeat (" + ddl.tag() + ")");
            }
        }
        if (selection.throughRoots()) {
            warnOfDroppedPartitions(ddl, selection);
        }
        for (DdlMessage.Table t : ddl.tables()) {
            if (!t.unpublished().isEmpty() && t.now() != null) {
                LOG.error("{} joined the selected tables ({}), but publication {} could not take it with its row filter or column "
                        + "list, so it was left out rather than published without them: its changes are not streamed until it joins. "
                        + "It joins at its next DDL once they fit (its rows are copied then), or mend the table.filter / "
                        + "table.columns key that matches it and start the pipeline again, then copy it with `sluice resync` (on "
                        + "Connect: a request in the signal table). Why: {}", t.now().schema() + "." + t.now().name(), ddl.tag(),
                        String.join(", ", t.unpublished().keySet()), t.unpublished());
            }
        }
        return new DdlEvents(ddl, selection, typesChanged, copies, ddl.changes(selection), ddl.objectChanges(selection));
    }

    /**
     * A partition dropped (not detached) takes its rows out of its root with no change event:
     * PostgreSQL sends none, and the rows can no longer be read. What the sinks without the tree hold of them stays.
     */
    private static void warnOfDroppedPartitions(DdlMessage ddl, DdlMessage.Selection selection) {
        for (DdlMessage.Table t : ddl.tables()) {
            DdlMessage.Definition was = t.previous();
            if (t.now() == null && was != null && !was.ancestors().isEmpty()) {
                String[] root = was.top();
                boolean rootDropped = ddl.tables().stream().anyMatch(r -> r.now() == null && r.previous() != null
                        && r.previous().schema().equals(root[0]) && r.previous().name().equals(root[1]));
                if (!rootDropped && selection.selects(root[0], root[1], List.of())) {
                    LOG.warn("Partition {}.{} of {}.{} was dropped while attached ({}): its rows left {}.{} without a delete each "
                            + "(PostgreSQL sends none): a PostgreSQL target drops the partition too, but what an index or a "
                            + "subscriber holds of them stays. Detach a partition before dropping it "
                            + "(DETACH PARTITION sends its rows as deletes), or copy {}.{} again with sluice run --fresh",
                            was.schema(), was.name(), root[0], root[1], ddl.tag(), root[0], root[1], root[0], root[1]);
                }
            }
        }
    }

    /** Whether the message touched no selected table or object: no event goes out. */
    boolean silent() {
        return changes.isEmpty() && objects.isEmpty();
    }

    /** The schema-change event, the {@code event}-th of its transaction. */
    Struct value(String topicPrefix, String database, Begin transaction, long event, long commitMicros) {
        String[] first = changes.isEmpty() ? new String[] {ddl.selectedObjects(selection).get(0).schema(), ""}
                : Identifiers.unquoteQualified(changes.get(0).id());
        SourceInfo source = new SourceInfo(topicPrefix, database, first[0], first[1], commitMicros, SourceInfo.Snapshot.FALSE,
                Integer.toUnsignedLong(transaction.xid()), transaction.finalLsn(), null);
        Struct value = SchemaChangeEvents.value(source, first[0], ddl.statement(), changes, objects, System.currentTimeMillis());
        value.put(Envelope.TRANSACTION, Envelope.transaction(Integer.toUnsignedLong(transaction.xid()), transaction.finalLsn(), event, 1));
        return value;
    }
}
