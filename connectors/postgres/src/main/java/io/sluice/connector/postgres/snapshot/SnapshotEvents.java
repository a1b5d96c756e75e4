package io.sluice.connector.postgres.snapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.offsets.ServerPartition;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.naming.TopicNames;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The records of one snapshot that are not rows: the schema-change events that open and close
 * it and follow each table's last row, and the truncate that empties a keyless table copied
 * again. Tables are named as the sinks know them (a partition by its root's name when
 * partitions are published through it).
 */
final class SnapshotEvents {

    private final String topicPrefix;
    private final String database;
    private final long snapshotMicros;

    SnapshotEvents(String topicPrefix, String database, long snapshotMicros) {
        this.topicPrefix = topicPrefix;
        this.database = database;
        this.snapshotMicros = snapshotMicros;
    }

    /**
     * An event on the schema-change topic that opens (pre-data DDL, snapshot=first) or closes
     * (post-data DDL and sequence values, snapshot=last) the snapshot. Both list the tables the
     * snapshot loads, so a sink knows them before the first row.
     */
    SourceRecord schemaEvent(String ddl, SourceInfo.Snapshot marker, Map<String, Object> offset, List<SchemaChangeEvents.TableChange> tables) {
        SourceInfo source = new SourceInfo(topicPrefix, database, "", "", snapshotMicros, marker, null, null, null);
        return new SourceRecord(ServerPartition.of(topicPrefix), offset, TopicNames.forSchemaChanges(topicPrefix), null,
                SchemaChangeEvents.KEY_SCHEMA, SchemaChangeEvents.key(database),
                SchemaChangeEvents.VALUE_SCHEMA, SchemaChangeEvents.value(source, null, ddl, tables, System.currentTimeMillis()));
    }

    /** The event after a table's last row, with its post-data {@code ddl} (null for none). */
    SourceRecord tableLoaded(TablePlan plan, TableProgress table, String ddl) {
        SourceInfo source = new SourceInfo(topicPrefix, database, plan.schema().schemaName(), plan.schema().tableName(),
                snapshotMicros, SourceInfo.Snapshot.LAST_IN_DATA_COLLECTION, null, null, null);
        return new SourceRecord(table.partition(), table.offset(), TopicNames.forSchemaChanges(topicPrefix), null,
                SchemaChangeEvents.KEY_SCHEMA, SchemaChangeEvents.key(database),
                SchemaChangeEvents.VALUE_SCHEMA, SchemaChangeEvents.value(source, null, ddl, List.of(creation(plan)), System.currentTimeMillis()));
    }

    /** A truncate event that empties a keyless table on the target before it is copied again. */
    SourceRecord truncation(TablePlan plan, TableProgress table) {
        Struct source = new SourceInfo(topicPrefix, database, plan.schema().schemaName(), plan.schema().tableName(), snapshotMicros,
                SourceInfo.Snapshot.TRUE, null, null, null).toStruct();
        Struct value = plan.schema().envelope(Operation.TRUNCATE, null, null, source, System.currentTimeMillis() * 1000L);
        return new SourceRecord(table.partition(), table.offset(), plan.schema().topic(), null, null, null,
                plan.schema().envelopeSchema(), value);
    }

    /** The table as a schema-change event lists it: its name, key and columns as the records carry them. */
    static SchemaChangeEvents.TableChange creation(TablePlan plan) {
        List<SchemaChangeEvents.ColumnDefinition> columns = new ArrayList<>();
        int position = 1;
        for (var mapping : plan.schema().columns()) {
            var column = mapping.column();
            columns.add(new SchemaChangeEvents.ColumnDefinition(column.name(), column.type().displayName(), column.declaredType(),
                    position++, column.nullable(), null, column.generated(), column.type().underlying().labels().isEmpty() ? null
                    : column.type().underlying().labels(), null));
        }
        return new SchemaChangeEvents.TableChange(SchemaChangeEvents.ChangeType.CREATE,
                Identifiers.quote(plan.schema().schemaName(), plan.schema().tableName()), plan.schema().keyColumns(), columns, null);
    }
}
