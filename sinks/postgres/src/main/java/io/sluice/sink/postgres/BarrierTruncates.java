package io.sluice.sink.postgres;

import java.sql.Statement;
import java.util.Map;

import io.sluice.schemas.envelope.Barriers;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.naming.TopicNames;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.postgres.apply.StreamedChanges;
import io.sluice.sink.postgres.copy.SnapshotLoads;
import io.sluice.sink.postgres.schema.TargetTables;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Tables emptied at an ordering barrier, on a Kafka Connect cluster: a streamed truncation (or
 * the start of a table's copy into the stream), or a table a resumed snapshot copies again. The
 * event waited until every partition's rows before it were on the target, and none after it are;
 * the emptying, the event's Kafka offset and the barrier's release are one transaction (sent
 * again after that, the router passes the event over as released). The event came on the
 * schema-change topic, so its table's topic is named from the source.
 */
final class BarrierTruncates {

    private final TargetTables tables;
    private final SnapshotLoads loads;
    private final StreamedChanges changes;
    private final BarrierReleases releases;
    private final boolean byKafkaOffset;

    BarrierTruncates(TargetTables tables, SnapshotLoads loads, StreamedChanges changes, BarrierReleases releases, boolean byKafkaOffset) {
        this.tables = tables;
        this.loads = loads;
        this.changes = changes;
        this.releases = releases;
        this.byKafkaOffset = byKafkaOffset;
    }

    /** A streamed truncation: emptied as the source did, a partitioned table with its partitions, any other without its children. */
    void truncate(SinkEvent event) throws InterruptedException {
        empty(event, true, "as the source did");
    }

    /** A table a resumed snapshot copies again: emptied with whatever inherits from it. */
    void emptyForReload(SinkEvent event) throws InterruptedException {
        empty(event, false, "to copy it again");
    }

    private void empty(SinkEvent event, boolean asStreamed, String why) throws InterruptedException {
        SinkRecord record = event.record();
        Struct source = event.source();
        Barriers.Barrier barrier = event.barrier();
        String sourceName = source.getString("name");
        String schemaName = source.getString("schema");
        String table = source.getString("table");
        String[] target = tables.resolve(TopicNames.forTable(sourceName, schemaName, table), schemaName, table);
        boolean only = asStreamed && !tables.partitioned(target[0], target[1]);
        loads.sendAll();
        loads.awaitSent();
        changes.alone(sourceName, null, byKafkaOffset ? Map.of(SinkEvent.partitionOf(record), record.kafkaOffset() + 1) : Map.of(),
                "emptying " + tables.name(target) + " " + why, c -> {
                    try (Statement s = c.createStatement()) {
                        s.execute((only ? "TRUNCATE ONLY " : "TRUNCATE ") + Identifiers.quote(target[0], target[1]));
                    }
                    releases.inTransaction(c, barrier);
                });
        releases.committed(barrier);
    }
}
