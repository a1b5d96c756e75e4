package io.sluice.schemas.envelope;

import io.sluice.schemas.SluiceVersion;
import io.sluice.schemas.lookup.RecentSchemas;
import io.sluice.schemas.mapping.LogicalTypes;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * The {@code source} block of a change event: where and when the change happened. Field for
 * field the block of Debezium's PostgreSQL connector, so tooling that reads one reads the other.
 *
 * @param name       the logical server name (the topic prefix)
 * @param database   the database
 * @param schema     the table's schema
 * @param table      the table
 * @param commitMicros commit time of the transaction (for snapshot rows: when the snapshot read them), microseconds since the epoch
 * @param snapshot   whether and where in the snapshot the event is
 * @param txId       the source transaction id, null when unknown
 * @param lsn        the event's log position, null for snapshot rows
 * @param sequence   Debezium's {@code ["lastCommitLsn","lsn"]} JSON pair, null when unknown
 */
public record SourceInfo(String name, String database, String schema, String table, long commitMicros, Snapshot snapshot,
                         Long txId, Long lsn, String sequence) {

    public static final String CONNECTOR = "postgresql";

    public static final Schema SCHEMA = SchemaBuilder.struct().name("io.sluice.connector.postgresql.Source")
            .field("version", Schema.STRING_SCHEMA)
            .field("connector", Schema.STRING_SCHEMA)
            .field("name", Schema.STRING_SCHEMA)
            .field("ts_ms", Schema.INT64_SCHEMA)
            .field("snapshot", LogicalTypes.enumeration(Snapshot.codes()).optional().defaultValue(Snapshot.FALSE.code()).build())
            .field("db", Schema.STRING_SCHEMA)
            .field("sequence", Schema.OPTIONAL_STRING_SCHEMA)
            .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
            .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
            .field("schema", Schema.STRING_SCHEMA)
            .field("table", Schema.STRING_SCHEMA)
            .field("txId", Schema.OPTIONAL_INT64_SCHEMA)
            .field("lsn", Schema.OPTIONAL_INT64_SCHEMA)
            .field("xmin", Schema.OPTIONAL_INT64_SCHEMA)
            .build();

    /** The table's schema a source block (Sluice's or Debezium's) names. */
    public static String schemaOf(Struct source) {
        Field field = NAMED_FIELDS.of(source.schema()).schema();
        return field == null ? source.getString("schema") : (String) source.get(field);
    }

    /** The table a source block (Sluice's or Debezium's) names. */
    public static String tableOf(Struct source) {
        Field field = NAMED_FIELDS.of(source.schema()).table();
        return field == null ? source.getString("table") : (String) source.get(field);
    }

    /**
     * A source block's schema and table fields, found once per block schema instead of by name
     * for every event a sink routes (a twentieth of a sink thread's time); nearly every event
     * carries Sluice's block schema, a few other producers' blocks fit beside it.
     */
    private record NamedFields(Field schema, Field table) {
    }

    private static final RecentSchemas<NamedFields> NAMED_FIELDS = new RecentSchemas<>(
            block -> new NamedFields(block.field("schema"), block.field("table")));

    /** Debezium's snapshot markers. */
    public enum Snapshot {
        TRUE("true"), FIRST("first"), FIRST_IN_DATA_COLLECTION("first_in_data_collection"),
        LAST_IN_DATA_COLLECTION("last_in_data_collection"), LAST("last"), FALSE("false"), INCREMENTAL("incremental");

        private final String code;

        Snapshot(String code) {
            this.code = code;
        }

        public String code() {
            return code;
        }

        /** The marker a source block's {@code snapshot} field holds; null for null. */
        public static Snapshot forCode(String code) {
            if (code == null) {
                return null;
            }
            for (Snapshot s : values()) {
                if (s.code.equals(code)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("Unknown snapshot marker '" + code + "'");
        }

        static java.util.List<String> codes() {
            return java.util.Arrays.stream(values()).map(Snapshot::code).toList();
        }
    }

    public Struct toStruct() {
        return new Struct(SCHEMA)
                .put("version", SluiceVersion.get())
                .put("connector", CONNECTOR)
                .put("name", name)
                .put("ts_ms", Math.floorDiv(commitMicros, 1000L))
                .put("snapshot", snapshot.code())
                .put("db", database)
                .put("sequence", sequence)
                .put("ts_us", commitMicros)
                .put("ts_ns", Math.multiplyExact(commitMicros, 1000L))
                .put("schema", schema)
                .put("table", table)
                .put("txId", txId)
                .put("lsn", lsn);
    }
}
