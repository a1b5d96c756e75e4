package io.sluice.sink.postgres;

import java.util.Map;
import java.util.Optional;

import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.batch.BatchTuningConfig;
import io.sluice.sink.core.batch.TunerSettings;
import io.sluice.sink.core.deadletter.DeadLetterConfig;
import io.sluice.sink.core.metrics.MetricsConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * Configuration of {@link PostgresSinkConnector}. Connection keys carry the names of
 * Debezium's JDBC sink.
 */
public final class PostgresSinkConfig extends AbstractConfig {

    public static final String URL = "connection.url";
    public static final String USER = "connection.username";
    public static final String PASSWORD = "connection.password";
    public static final String TABLE_NAME_FORMAT = "table.name.format";
    public static final String BATCH_BYTES = "batch.max.bytes";
    public static final String COPY_PARALLELISM = "copy.parallelism";
    public static final String LOAD_BUFFER = "load.buffer.bytes";
    public static final String REPLICA_ROLE = "load.replica.role";
    public static final String FREEZE = "load.freeze";
    public static final String SCHEMA_APPLY = "schema.apply";
    public static final String TABLE_EXISTS = "table.exists";
    public static final String MAINTENANCE_WORK_MEM = "post.data.maintenance.work.mem";
    public static final String VACUUM = "post.data.vacuum";
    public static final String APPLY_INTERVAL = "apply.max.delay.ms";
    public static final String POSITION_TABLE = "position.table";
    public static final String APPLY_RETRY_TIMEOUT = "apply.retry.timeout.ms";
    public static final String POSITION_MODE = "position.mode";

    private static final String CONNECTION = "Connection";
    private static final String LOAD = "Load";
    private static final String SCHEMA = "Schema";
    private static final String CHANGES = "Changes";
    private static final String TUNING = "Batch tuning";

    public static final ConfigDef CONFIG_DEF = BatchTuningConfig.define(new ConfigDef()
            .define(URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new UrlValidator(), Importance.HIGH,
                    "The target database: postgres://host:port/database (user and password may be in the URL) or "
                            + "jdbc:postgresql://host:port/database.", CONNECTION, 1, Width.LONG, "Target URL")
            .define(USER, Type.STRING, null, Importance.HIGH,
                    "User to connect as; overrides a user in the URL. It needs INSERT on the target tables (and, to load "
                            + "without triggers and foreign-key checks, the right to set session_replication_role).",
                    CONNECTION, 2, Width.MEDIUM, "User")
            .define(PASSWORD, Type.PASSWORD, null, Importance.HIGH,
                    "Password of the user; overrides a password in the URL. Never logged.", CONNECTION, 3, Width.MEDIUM, "Password")
            .define(TABLE_NAME_FORMAT, Type.STRING, "${schema}.${table}", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                    "Target table of each event, built from the source schema and table (${schema}, ${table}) or the "
                            + "topic (${topic}); the result is schema.table. A snapshot's schema events create tables under their "
                            + "source names, so when renaming, set schema.apply=false and create the target tables beforehand.",
                    LOAD, 1, Width.MEDIUM, "Table name format")
            .define(BATCH_BYTES, Type.LONG, 16L << 20, ConfigDef.Range.atLeast(1L << 16), Importance.MEDIUM,
                    "Bytes of encoded rows gathered for one table before they are sent in one binary COPY, and of streamed "
                            + "changes applied in one target transaction. With batch.tuning.enabled (the default) this is where "
                            + "tuning starts, and what is kept when tuning finds nothing faster or gives up.",
                    LOAD, 2, Width.SHORT, "Batch bytes")
            .define(COPY_PARALLELISM, Type.INT, 4, ConfigDef.Range.between(1, 64), Importance.MEDIUM,
                    "Connections loading at once, each running one COPY of one table's batch.", LOAD, 3, Width.SHORT, "COPY streams")
            .define(LOAD_BUFFER, Type.LONG, 128L << 20, ConfigDef.Range.atLeast(1L << 16), Importance.MEDIUM,
                    "Bytes of batches being sent at once, across all COPY streams; a batch waits while it does not fit (one "
                            + "always goes). With it, the batch size decides how many streams are busy: 32 MB batches keep four "
                            + "busy, 128 MB ones one; so the batch size tuner tries no COPY batch above this divided by "
                            + "copy.parallelism. The sink holds about this plus two batches in memory.",
                    LOAD, 4, Width.SHORT, "Load buffer")
            .define(REPLICA_ROLE, Type.BOOLEAN, true, Importance.LOW,
                    "Load with session_replication_role = replica, so triggers and foreign-key checks do not fire for "
                            + "copied rows (they were checked on the source). Needs superuser or a GRANT SET on the parameter; "
                            + "without it Sluice loads with them active and says so once.", LOAD, 5, Width.SHORT, "Replica role")
            .define(FREEZE, Type.BOOLEAN, true, Importance.LOW,
                    "Load each table the snapshot created in one transaction that writes its rows frozen (COPY FREEZE): "
                            + "nothing has to visit them again to set hint bits, the visibility map or to freeze them later, so "
                            + "index builds and foreign-key checks run faster and the target needs no vacuum after the load. A "
                            + "table's rows are confirmed when its last rows are in; an interrupted table is copied again.",
                    LOAD, 6, Width.SHORT, "Freeze rows")
            .define(SCHEMA_APPLY, Type.BOOLEAN, true, Importance.MEDIUM,
                    "Apply the schema events of a snapshot: pre-data (types, tables...) before its rows, post-data (indexes, "
                            + "constraints, triggers, sequence values) after them. Off when the target is prepared by other means.",
                    SCHEMA, 1, Width.SHORT, "Apply schema")
            .define(TABLE_EXISTS, Type.STRING, "fail", ConfigDef.CaseInsensitiveValidString.in("fail", "truncate", "append"),
                    Importance.HIGH, "When a table the snapshot loads already exists on the target: fail (stop before changing "
                            + "anything, naming the tables), truncate (empty it, then load) or append (load into it as it is). "
                            + "Objects that already exist are kept.", SCHEMA, 2, Width.SHORT, "Existing tables")
            .define(MAINTENANCE_WORK_MEM, Type.STRING, "256MB", new ConfigDef.NonEmptyString(), Importance.LOW,
                    "maintenance_work_mem (and work_mem, for foreign-key validation) of the connections that build indexes "
                            + "and constraints after the rows.", SCHEMA, 3, Width.SHORT, "Index build memory")
            .define(VACUUM, Type.BOOLEAN, true, Importance.LOW,
                    "VACUUM each loaded table once its rows are in, before its indexes are built, and ANALYZE it after: "
                            + "hint bits and the visibility map are set once, foreign keys are validated with index-only scans and "
                            + "good plans, the target plans queries well from the start, and autovacuum has nothing left to do.",
                    SCHEMA, 4, Width.SHORT, "Vacuum and analyze tables")
            .define(APPLY_INTERVAL, Type.LONG, 100L, ConfigDef.Range.atLeast(0L), Importance.MEDIUM,
                    "Longest a streamed change waits before it is applied. Changes are applied together, many source "
                            + "transactions in one target transaction, when this much time has passed since the oldest pending "
                            + "one or when batch.max.bytes of them are pending, whichever comes first (and in the sluice "
                            + "runtime at once when its source is caught up); while the target is still writing the previous "
                            + "batch they keep gathering until it is done. Lower for less latency, higher for fewer, larger "
                            + "transactions.", CHANGES, 1, Width.SHORT, "Apply delay")
            .define(POSITION_TABLE, Type.STRING, "sluice.applied_position", ConfigDef.LambdaValidator.with((name, value) -> {
                        String table = (String) value;
                        int dot = table == null ? -1 : table.indexOf('.');
                        if (dot <= 0 || dot == table.length() - 1) {
                            throw new ConfigException(name, value, "name the table as schema.table");
                        }
                    }, () -> "schema.table"), Importance.LOW,
                    "Table on the target (schema.table, created if missing) that holds the last applied position of each "
                            + "source, written in the same transaction as the changes, so that after a restart nothing is applied twice.",
                    CHANGES, 2, Width.MEDIUM, "Position table")
            .define(POSITION_MODE, Type.STRING, "kafka", ConfigDef.CaseInsensitiveValidString.in("kafka", "source"), Importance.MEDIUM,
                    "How the target records which streamed changes it has, in the same transaction as them, so that after a crash "
                            + "or a rebalance nothing is applied twice or skipped. kafka: per topic partition, the offset after the "
                            + "last change applied (in the kafka_offsets table beside position.table); a task given a partition "
                            + "resumes there. Right on Kafka Connect, where many partitions and tasks feed one target in no common "
                            + "order. source: per source, the last source position applied; right only for one stream in source "
                            + "order, which is what the sluice command runs (it sets this).",
                    CHANGES, 3, Width.SHORT, "Position mode")
            .define(APPLY_RETRY_TIMEOUT, Type.LONG, 300_000L, ConfigDef.Range.atLeast(0L), Importance.MEDIUM,
                    "How long streamed changes are tried again while the target cannot be reached (connection lost, server "
                            + "restarting or refusing connections), with pauses growing from 100 ms to 10 s (exponential backoff with full jitter). Nothing is lost "
                            + "meanwhile: the changes stay pending and the source keeps them. A batch whose connection died "
                            + "while it committed is looked for on the target before it is sent again, once the lost connection's "
                            + "session there has ended (the sink ends it, or waits this long for the server to). After this long "
                            + "the pipeline stops with the reason; 0 stops at the first failure.", CHANGES, 4, Width.SHORT, "Retry timeout"),
            TUNING, BATCH_BYTES);

    static {
        DeadLetterConfig.define(CONFIG_DEF, SCHEMA, 5);
        MetricsConfig.define(CONFIG_DEF, "Metrics", 1);
    }

    public PostgresSinkConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
    }

    public PgEndpoint endpoint() {
        PgEndpoint parsed = parse(getString(URL));
        String user = getString(USER) != null ? getString(USER) : parsed.user();
        Password password = getPassword(PASSWORD);
        return new PgEndpoint(parsed.host(), parsed.port(), parsed.database(), user,
                password != null ? password.value() : parsed.password(), parsed.sslMode());
    }

    public String tableNameFormat() {
        return getString(TABLE_NAME_FORMAT);
    }

    public long batchBytes() {
        return getLong(BATCH_BYTES);
    }

    public long loadBufferBytes() {
        return getLong(LOAD_BUFFER);
    }

    /** How to tune batch sizes, starting from batch.max.bytes; empty when tuning is off. */
    public Optional<TunerSettings> batchTuning() {
        return BatchTuningConfig.settings(this, batchBytes());
    }

    /**
     * How to tune snapshot COPY batches: as {@link #batchTuning()}, with no size above the load
     * buffer's share of one COPY stream. A larger batch leaves streams idle: the buffer holds
     * fewer batches than there are streams.
     */
    public Optional<TunerSettings> copyBatchTuning() {
        return batchTuning().map(settings -> settings.cappedAt(loadBufferBytes() / copyParallelism()));
    }

    public int copyParallelism() {
        return getInt(COPY_PARALLELISM);
    }

    public boolean freeze() {
        return getBoolean(FREEZE);
    }

    public boolean replicaRole() {
        return getBoolean(REPLICA_ROLE);
    }

    public boolean schemaApply() {
        return getBoolean(SCHEMA_APPLY);
    }

    public io.sluice.sink.postgres.schema.ExistingTables tableExists() {
        return io.sluice.sink.postgres.schema.ExistingTables.valueOf(getString(TABLE_EXISTS).toUpperCase(java.util.Locale.ROOT));
    }

    public boolean vacuum() {
        return getBoolean(VACUUM);
    }

    public String maintenanceWorkMem() {
        return getString(MAINTENANCE_WORK_MEM);
    }

    public long applyMaxDelayMillis() {
        return getLong(APPLY_INTERVAL);
    }

    public long applyRetryTimeoutMillis() {
        return getLong(APPLY_RETRY_TIMEOUT);
    }

    /** Whether applied changes are tracked by Kafka offset per topic partition (else by source position). */
    public boolean positionsByKafkaOffset() {
        return "kafka".equalsIgnoreCase(getString(POSITION_MODE));
    }

    /** The connector's name on Kafka Connect, which keeps its offsets on the target apart from other connectors'. */
    public String connectorName() {
        Object name = originals().get("name");
        return name == null ? "sluice" : name.toString();
    }

    public String positionTable() {
        return getString(POSITION_TABLE);
    }

    static PgEndpoint parse(String url) {
        String plain = url.startsWith("jdbc:") ? url.substring("jdbc:".length()) : url;
        return PgEndpoint.parse(plain);
    }

    private static final class UrlValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null) {
                throw new ConfigException(name, null, "name the target database, e.g. postgres://host:5432/database");
            }
            try {
                parse((String) value);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, "<url>", e.getMessage());
            }
        }

        @Override
        public String toString() {
            return "postgres://host:port/database";
        }
    }
}
