package io.sluice.runtime.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.debezium.engine.RecordChangeEvent;
import io.sluice.connector.postgres.replication.ChangeRecords;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.mapping.MappingOptions;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.types.Oids;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.PgType;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/** Streamed inserts into one table of a stand-in source, each its own transaction, for the hand-off's tests. */
final class StandInChanges {

    private static final PgType INT4 = new PgType(Oids.INT4, "pg_catalog", "int4", PgType.Kind.BASE, "int4recv", ',', -1, null, null, null);
    private static final TableSchema TABLE = TableSchema.of("app", "public", "items",
            List.of(new TypeMapper(MappingOptions.DEFAULTS).map(new PgColumn("public.items", "id", INT4, -1, 0, false, "integer", false))),
            List.of("id"));
    private static final Map<String, String> PARTITION = Map.of("server", "app");

    private long lsn;

    /** The next {@code count} inserts, one source transaction each, in commit order. */
    List<RecordChangeEvent<SourceRecord>> next(int count) {
        List<RecordChangeEvent<SourceRecord>> events = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            lsn += 100;
            Struct row = TABLE.row(List.of((int) lsn));
            SourceInfo source = new SourceInfo("app", "db", "public", "items", 1_700_000_000_000_000L, SourceInfo.Snapshot.FALSE, lsn, lsn, null);
            SourceRecord record = new SourceRecord(PARTITION, Map.of(ChangeRecords.COMMIT_LSN, lsn, ChangeRecords.EVENT, 0L), TABLE.topic(),
                    TABLE.keySchema(), TABLE.key(row), TABLE.envelopeSchema(), TABLE.envelope(Operation.CREATE, null, row, source, 0L));
            events.add(() -> record);
        }
        return events;
    }
}
