package io.sluice.connector.postgres;

import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sluice.connector.postgres.replication.Publication;
import io.sluice.connector.postgres.replication.ReplicationSlot;
import io.sluice.connector.postgres.schema.SchemaSnapshot;
import io.sluice.connector.postgres.selection.TablePattern;
import io.sluice.schemas.codec.NumericCodec.NumericMode;
import io.sluice.schemas.mapping.MappingOptions;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * Configuration of {@link PostgresSourceConnector}. Connection keys carry Debezium's names, so
 * a Debezium PostgreSQL connector's configuration needs few changes.
 *
 * <p>Longer than a class should be, for a reason: it is the one {@code ConfigDef} of the
 * connector with every key's documentation beside its definition (docs/configuration.md is
 * generated from it), and typed getters; split, the reference would be scattered over classes.
 */
public final class PostgresSourceConfig extends AbstractConfig {

    public static final String HOSTNAME = "database.hostname";
    public static final String PORT = "database.port";
    public static final String PRIMARY_HOSTNAME = "database.primary.hostname";
    public static final String PRIMARY_PORT = "database.primary.port";
    public static final String USER = "database.user";
    public static final String PASSWORD = "database.password";
    public static final String DBNAME = "database.dbname";
    public static final String SSL_MODE = "database.sslmode";
    public static final String TOPIC_PREFIX = "topic.prefix";
    public static final String TABLE_INCLUDE = "table.include.list";
    public static final String TABLE_EXCLUDE = "table.exclude.list";
    public static final String SNAPSHOT_MODE = "snapshot.mode";
    public static final String SNAPSHOT_BATCH_BYTES = "snapshot.batch.bytes";
    public static final String SNAPSHOT_THREADS = "snapshot.max.threads";
    public static final String SNAPSHOT_QUEUE_BYTES = "snapshot.queue.bytes";
    public static final String SNAPSHOT_SCHEMA = "snapshot.schema";
    public static final String PG_DUMP_PATH = "pg_dump.path";
    public static final String RAW_TUPLES = "snapshot.raw.tuples";
    public static final String RAW_TUPLES_EXCLUDE = "snapshot.raw.tuples.exclude.list";
    public static final String NUMERIC_MAPPING = "numeric.mapping";
    public static final String SLOT_NAME = "slot.name";
    public static final String SLOT_FAILOVER = "slot.failover";
    public static final String PUBLICATION_NAME = "publication.name";
    public static final String PUBLICATION_MODE = "publication.autocreate.mode";
    public static final String VIA_PARTITION_ROOT = "publish.via.partition.root";
    public static final String STATUS_INTERVAL = "status.update.interval.ms";
    public static final String SEQUENCES_INTERVAL = "sequences.interval.ms";
    public static final String DDL_CAPTURE = "ddl.capture";
    public static final String DDL_COPY_ON = "ddl.copy.on";
    public static final String RECONNECT_TIMEOUT = "stream.reconnect.timeout.ms";
    public static final String TEXT_COLUMNS = "column.text.list";
    public static final String BARRIER_PARTITIONS = "barriers.topic.partitions";
    public static final String HEARTBEAT_INTERVAL = "heartbeat.interval.ms";
    public static final String HEARTBEAT_TABLE = "heartbeat.table";
    public static final String SLOT_HEALTH_INTERVAL = "slot.health.interval.ms";
    public static final String SIGNAL_TABLE = "signal.table";
    public static final String RESYNC_CHUNK_ROWS = "resync.chunk.rows";
    public static final String SLOT_LAG_WARN = "slot.lag.warn.bytes";
    public static final String SLOT_SAFE_WAL_WARN = "slot.safe.wal.warn.bytes";
    /** Kafka Connect's key for the partitions of the topics it creates for a source (KIP-158). */
    public static final String TOPIC_CREATION_PARTITIONS = "topic.creation.default.partitions";

    private static final String CONNECTION = "Connection";
    private static final String TABLES = "Tables";
    private static final String SNAPSHOT = "Snapshot";
    private static final String STREAMING = "Streaming";
    private static final String TYPES = "Types";
    private static final String CLUSTER = "Kafka Connect cluster";
    private static final String HEALTH = "Health";

    /** What the connector does at start. */
    public enum SnapshotMode {
        /** Copy the existing rows, then stream every change after them. */
        INITIAL,
        /** Copy the existing rows, then stop producing: a one-off copy. */
        INITIAL_ONLY,
        /** No copy: stream changes from the slot (created now when missing). */
        NEVER
    }

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(HOSTNAME, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                    "Host name or address of the source PostgreSQL server. Several, comma-separated with optional ports "
                            + "(a,b:5433), name a primary and its standbys: Sluice connects to whichever is the primary, and after a "
                            + "failover reconnects to the new one (see slot.failover).", CONNECTION, 1, Width.MEDIUM, "Host")
            .define(PORT, Type.INT, 5432, ConfigDef.Range.between(1, 65535), Importance.HIGH,
                    "Port of the source PostgreSQL server.", CONNECTION, 2, Width.SHORT, "Port")
            .define(PRIMARY_HOSTNAME, Type.STRING, "", Importance.LOW,
                    "For a source that is a hot standby (PostgreSQL 16 and later decode there): its primary, host or hosts like "
                            + "database.hostname, reached with the same user, password and database. What a standby cannot do is done "
                            + "there: creating or altering the publication, installing the DDL capture triggers, copying a table that "
                            + "joins mid-stream (a lock and a logical message), and asking for the running-transactions record a new "
                            + "slot on the standby waits for. Empty: those are named in one line when they are needed.",
                    CONNECTION, 7, Width.MEDIUM, "Primary host (standby source)")
            .define(PRIMARY_PORT, Type.INT, null, Importance.LOW,
                    "Port of database.primary.hostname's hosts that name none. Empty: database.port.", CONNECTION, 8, Width.SHORT,
                    "Primary port")
            .define(USER, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                    "User to connect as. It needs CONNECT on the database, USAGE on the schemas and SELECT on the "
                            + "selected tables (a snapshot-only run needs nothing more).", CONNECTION, 3, Width.MEDIUM, "User")
            .define(PASSWORD, Type.PASSWORD, "", Importance.HIGH,
                    "Password of the user. Never logged.", CONNECTION, 4, Width.MEDIUM, "Password")
            .define(DBNAME, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                    "Database to copy.", CONNECTION, 5, Width.MEDIUM, "Database")
            .define(SSL_MODE, Type.STRING, "prefer", ConfigDef.ValidString.in("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
                    Importance.MEDIUM, "TLS use, as libpq's sslmode.", CONNECTION, 6, Width.SHORT, "TLS mode")
            .define(TOPIC_PREFIX, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new TopicPrefixValidator(), Importance.HIGH,
                    "Prefix of every topic name: rows of schema.table go to <prefix>.<schema>.<table>. Also names the "
                            + "source in events and offsets, so keep it stable.", TABLES, 1, Width.MEDIUM, "Topic prefix")
            .define(TABLE_INCLUDE, Type.LIST, "*.*", new PatternListValidator(), Importance.HIGH,
                    "Tables to copy, as comma-separated schema.table patterns where * matches any run of characters and "
                            + "? one character, e.g. public.*,*.audit_*. Quote a name part holding a dot or comma: "
                            + "\"my.schema\".*. System schemas are never copied. A partitioned table selects all its partitions.",
                    TABLES, 2, Width.LONG, "Include tables")
            .define(TABLE_EXCLUDE, Type.LIST, "", new PatternListValidator(), Importance.MEDIUM,
                    "Tables to leave out, as patterns like table.include.list; they win over includes.",
                    TABLES, 3, Width.LONG, "Exclude tables")
            .define(SNAPSHOT_MODE, Type.STRING, "initial", ConfigDef.CaseInsensitiveValidString.in("initial", "initial_only", "never"),
                    Importance.HIGH, "initial: copy the rows as of one consistent instant, then stream every change committed after "
                            + "it (the replication slot is created with the snapshot, so nothing is missed or sent twice); "
                            + "initial_only: copy the rows, then stop producing (no slot is created); never: no copy, stream from "
                            + "the slot, creating it when missing.",
                    SNAPSHOT, 1, Width.SHORT, "Snapshot mode")
            .define(SNAPSHOT_BATCH_BYTES, Type.LONG, 32L << 20, ConfigDef.Range.atLeast(1L << 16), Importance.MEDIUM,
                    "About how many bytes of table data one snapshot read covers. Tables are split into page ranges of this "
                            + "size, computed from each table's size and page count, so wide and narrow tables read alike.",
                    SNAPSHOT, 2, Width.SHORT, "Range size")
            .define(SNAPSHOT_THREADS, Type.INT, 4, ConfigDef.Range.between(1, 256), Importance.MEDIUM,
                    "Connections reading the snapshot at once, each reading one range at a time: tables in parallel and "
                            + "ranges of one table in parallel.", SNAPSHOT, 3, Width.SHORT, "Reader connections")
            .define(SNAPSHOT_QUEUE_BYTES, Type.LONG, 64L << 20, ConfigDef.Range.atLeast(1L << 20), Importance.LOW,
                    "Heap bytes of rows held between the readers and the consumer; readers wait when it is full, so memory "
                            + "stays bounded whatever the table sizes. Rows decoded into structs (snapshot.raw.tuples off, or a "
                            + "table raw tuples cannot carry) fill at most a quarter of it, counted at an estimate of their objects "
                            + "(about 1.5 KB for 13 columns), as the garbage collector traces them object by object.",
                    SNAPSHOT, 4, Width.SHORT, "Queue bytes")
            .define(SNAPSHOT_SCHEMA, Type.STRING, "auto", ConfigDef.CaseInsensitiveValidString.in("auto", "database", "tables", "none"),
                    Importance.MEDIUM, "Which DDL the snapshot sends ahead of its rows (pre-data) and after them (post-data: "
                            + "indexes, constraints, triggers, sequence values), dumped with pg_dump from the snapshot itself. "
                            + "database: every object of the database (rows still only of the selected tables); tables: the "
                            + "selected tables and what belongs to them, with the schemas, extensions and enum, domain, composite and "
                            + "range types they use, made where the target lacks them (functions they use must exist there); none: no DDL, the target is prepared by other means; auto: database when every table "
                            + "is selected (the default include list and no excludes), else tables.", SNAPSHOT, 5, Width.SHORT, "Schema")
            .define(PG_DUMP_PATH, Type.STRING, "", Importance.LOW,
                    "The pg_dump program to dump the schema with. It must be at least the source server's major version. "
                            + "Empty (the default): every pg_dump found in SLUICE_PG_BIN, on PATH and in /usr/lib/postgresql/*/bin "
                            + "is considered, and the oldest one at least the source's major version is taken; the PostgreSQL sink "
                            + "fits its script to an older target.", SNAPSHOT, 6, Width.LONG, "pg_dump")
            .define(RAW_TUPLES, Type.BOOLEAN, false, Importance.LOW,
                    "Send snapshot rows of tables whose column types are all built in as PostgreSQL's binary COPY tuples, "
                            + "many rows per record, without decoding them: much less work, but only a PostgreSQL sink can "
                            + "read them, and of transforms only Anonymize can change them (it rewrites columns inside the "
                            + "tuples). The sluice command turns it on when the target is PostgreSQL and no transform other than "
                            + "Anonymize is configured.", SNAPSHOT, 7, Width.SHORT, "Raw tuples")
            .define(RAW_TUPLES_EXCLUDE, Type.LIST, "", new PatternListValidator(), Importance.LOW,
                    "Tables whose snapshot rows travel as structs even with snapshot.raw.tuples on, as patterns like "
                            + "table.include.list: those a transform other than Anonymize rewrites, or whose columns of a type "
                            + "Anonymize cannot rewrite inside raw tuples (ranges, composites) have rules.", SNAPSHOT, 8, Width.LONG,
                    "Raw tuples: except")
            .define(SLOT_NAME, Type.STRING, "", new SlotNameValidator(), Importance.MEDIUM,
                    "The logical replication slot (pgoutput plugin) changes are streamed from: lower-case letters, digits and "
                            + "underscores. Empty: sluice_ and the topic prefix. The slot keeps WAL until Sluice confirms it, so "
                            + "drop it (sluice teardown) when the pipeline is retired.", STREAMING, 1, Width.MEDIUM, "Slot")
            .define(SLOT_FAILOVER, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Whether the slot is a failover slot (PostgreSQL 17 and later): standbys with sync_replication_slots=on keep "
                            + "a copy of it, so after a promotion streaming goes on from the new primary without a new snapshot. An "
                            + "existing slot is altered to one. Refused on 16 and older, where a slot stays on the server it was made "
                            + "on. docs/streaming.md shows the standby settings.", STREAMING, 2, Width.SHORT, "Failover slot")
            .define(PUBLICATION_NAME, Type.STRING, "", Importance.MEDIUM,
                    "The publication that selects the tables to decode. Empty: sluice_ and the topic prefix.",
                    STREAMING, 2, Width.MEDIUM, "Publication")
            .define(PUBLICATION_MODE, Type.STRING, "filtered", ConfigDef.CaseInsensitiveValidString.in("filtered", "all_tables", "disabled"),
                    Importance.LOW, "filtered: Sluice creates the publication for the selected tables and adds tables the selection "
                            + "gains; all_tables: creates it FOR ALL TABLES (needs superuser); disabled: it must exist and cover "
                            + "the selected tables.", STREAMING, 3, Width.SHORT, "Publication mode")
            .define(VIA_PARTITION_ROOT, Type.BOOLEAN, true, Importance.MEDIUM,
                    "Whether a partitioned table is one table to the sinks: its partitions' snapshot rows and changes carry the "
                            + "root's name and shape (one topic, one OpenSearch index, one webhook table), and a row moved between "
                            + "partitions is an update. The publication is made WITH (publish_via_partition_root = true). The "
                            + "PostgreSQL sink still keeps the partition tree: the partitions' own schema changes go to it alone, "
                            + "and PostgreSQL routes the root's rows. false: each leaf partition is a table of its own (its own "
                            + "topic). The sluice command sets false for a PostgreSQL target (partitions load in parallel, "
                            + "frozen). A pipeline whose snapshot is done keeps what its publication says until it is taken again "
                            + "(--fresh).", STREAMING, 9, Width.SHORT, "Partitions as their root")
            .define(STATUS_INTERVAL, Type.LONG, 10_000L, ConfigDef.Range.between(100L, 3_600_000L), Importance.LOW,
                    "How often the stream reports the confirmed position to the server (it also keeps the connection alive; "
                            + "keep it under the server's wal_sender_timeout).", STREAMING, 4, Width.SHORT, "Status interval")
            .define(DDL_CAPTURE, Type.BOOLEAN, true, Importance.MEDIUM,
                    "Capture DDL: event triggers (installed in schema sluice_capture by `sluice init`, by a superuser running "
                            + "the plugin archive's doc/sluice-ddl-capture.sql, or at start when the user may) send every schema "
                            + "change of the selected tables into the stream, in order with the rows, and add tables created under "
                            + "table.include.list to the publication as they are created. Installing them takes a superuser and "
                            + "PostgreSQL 14 or later; the pipeline itself may then run as any user with REPLICATION. Without them "
                            + "(false), a column added on the source reaches a Sluice sink with the first row that carries it "
                            + "(nullable, no default, its type read from the row's schema); renames, drops, type changes, indexes "
                            + "and new tables do not reach it.", STREAMING, 5, Width.SHORT, "Capture DDL")
            .define(DDL_COPY_ON, Type.STRING, "rewrite", ConfigDef.CaseInsensitiveValidString.in("rewrite", "column_change"), Importance.LOW,
                    "Which captured schema changes copy a table into the stream again (its rows follow the schema change, and "
                            + "its changes until the copy is done are in the copy). rewrite: those that converted the rows in a way "
                            + "a target cannot repeat (a type change with USING, or a cast that depends on settings). "
                            + "column_change: also every other column type change, dropped or renamed column, column added with a "
                            + "default or generated (existing rows gain a value the stream never carries) and primary key change, "
                            + "for targets that cannot change a field in place (OpenSearch, which builds a new index "
                            + "version from the copy and swaps its alias; the sluice command sets this for OpenSearch targets).",
                    STREAMING, 8, Width.SHORT, "Copy tables on")
            .define(RECONNECT_TIMEOUT, Type.LONG, 300_000L, ConfigDef.Range.atLeast(0L), Importance.MEDIUM,
                    "How long the stream tries to reconnect when the source goes away (restarted, network lost), with pauses "
                            + "growing from 100 ms to 10 s (exponential backoff with full jitter). It resumes from the last position confirmed, so nothing is lost "
                            + "or applied twice; after this long the pipeline stops with the reason.", STREAMING, 6, Width.SHORT,
                    "Reconnect timeout")
            .define(SEQUENCES_INTERVAL, Type.LONG, 10_000L, ConfigDef.Range.atLeast(0L), Importance.LOW,
                    "How often, while changes stream, the source's sequence values (all of the database's, or those the selected "
                            + "tables own) go out on <topic.prefix>.sequences, since logical decoding does not carry them; Sluice's "
                            + "sink moves the target's sequences forward to them (never back). 0 sends none. The source user needs "
                            + "SELECT or USAGE on the sequences to read their values.", STREAMING, 7, Width.SHORT, "Sequences interval")
            .define(NUMERIC_MAPPING, Type.STRING, "exact", ConfigDef.CaseInsensitiveValidString.in("exact", "precise", "double"),
                    Importance.MEDIUM, "How numeric values are represented: exact (decimal text, NaN and infinities kept), "
                            + "precise (Connect Decimal, as Debezium's default; refuses NaN) or double. See docs/types.md.",
                    TYPES, 1, Width.SHORT, "Numeric mapping")
            .define(TEXT_COLUMNS, Type.LIST, "", Importance.LOW,
                    "Columns (schema.table.column) carried as their PostgreSQL text whatever their type, e.g. an int[] column "
                            + "holding two-dimensional values, which a Connect array of one level cannot.", TYPES, 2, Width.LONG, "Columns as text")
            .define(BARRIER_PARTITIONS, Type.INT, 0, ConfigDef.Range.between(0, 10_000), Importance.HIGH,
                    "On a Kafka Connect cluster whose Sluice PostgreSQL sink applies the snapshot's schema or streamed schema "
                            + "changes: the partition count of the table topics (as " + TOPIC_CREATION_PARTITIONS + " creates them). "
                            + "Each schema event and stage of the snapshot then also writes an ordering barrier into every partition "
                            + "of the topics of the tables it concerns, and the sink applies the event only once all rows before it "
                            + "are in and holds the rows after it until it is applied: order across topics and partitions, as the "
                            + "source had it. 0 writes none: for the sluice command (one process keeps the order), and for sinks "
                            + "other than Sluice's, which do not know barrier records.", CLUSTER, 1, Width.SHORT, "Barrier partitions")
            .define(HEARTBEAT_INTERVAL, Type.LONG, 10_000L, ConfigDef.Range.between(0L, 3_600_000L), Importance.MEDIUM,
                    "How often, while changes stream, the source writes a heartbeat into its WAL (a logical decoding message, "
                            + "pg_logical_emit_message, on the primary). It comes back through the slot among the changes: a sink "
                            + "that has it durable has every change before it, which gives sluice_end_to_end_lag_seconds on an "
                            + "idle database, and the slot moves on even when the database's own writes never reach it. Needs "
                            + "EXECUTE on pg_logical_emit_message (PUBLIC has it unless revoked). 0 writes none.", HEALTH, 0,
                    Width.SHORT, "Heartbeat interval")
            .define(HEARTBEAT_TABLE, Type.STRING, "", Importance.LOW,
                    "Write the heartbeat as a row of this one-row-per-pipeline table (schema.table) instead of a logical "
                            + "decoding message: INSERT ... ON CONFLICT (pipeline) DO UPDATE SET at = now(). For a database where "
                            + "pg_logical_emit_message is revoked, or for consumers of the topics other than Sluice's sinks, which see "
                            + "it as an ordinary change. The table needs the columns pipeline text PRIMARY KEY and at timestamptz, "
                            + "the user INSERT and UPDATE on it, and table.include.list must select it (validation says which is "
                            + "missing): CREATE TABLE public.sluice_heartbeat (pipeline text PRIMARY KEY, at timestamptz NOT NULL). "
                            + "Empty: a logical decoding message.", HEALTH, 0, Width.MEDIUM, "Heartbeat table")
            .define(SIGNAL_TABLE, Type.STRING, io.sluice.connector.postgres.resync.SignalTable.DEFAULT, Importance.MEDIUM,
                    "The source's table of requests to the running pipeline (schema.table): a row (pipeline = topic.prefix, "
                            + "kind = 'resync', target = 'schema.table') asks it to copy that table again while it streams, "
                            + "which `sluice resync` does, and the pipeline writes its progress into the row. The source task "
                            + "makes it (and its schema) at start when it is missing, which takes CREATE on the database; a user "
                            + "that may not is told, once, the statement to have it run. It is never among the streamed tables. "
                            + "Empty: no requests are taken.", STREAMING, 20, Width.MEDIUM, "Signal table")
            .define(RESYNC_CHUNK_ROWS, Type.INT, 4096, ConfigDef.Range.between(1, 1_000_000), Importance.LOW,
                    "Rows per chunk of a table re-synced while streaming (docs/filters.md): read by key in one short "
                            + "transaction, held in memory until the stream reaches its watermark, then handed out. Larger "
                            + "chunks copy faster and hold more memory.", STREAMING, 21, Width.SHORT, "Re-sync chunk rows")
            .define(SLOT_HEALTH_INTERVAL, Type.LONG, 10_000L, ConfigDef.Range.between(0L, 3_600_000L), Importance.LOW,
                    "How often the replication slot's lag, wal_status and safe_wal_size are read from pg_replication_slots, "
                            + "for the metrics (docs/metrics.md) and the warnings below. 0 reads them never.", HEALTH, 1, Width.SHORT,
                    "Slot health interval")
            .define(SLOT_LAG_WARN, Type.LONG, 5L << 30, ConfigDef.Range.atLeast(0L), Importance.MEDIUM,
                    "A WARN is logged (and sluice_source_slot_at_risk is 1) while the slot holds more WAL than this many bytes "
                            + "(the server's WAL position minus the slot's confirmed position): the source's disk fills with WAL "
                            + "the pipeline has not confirmed. 0 never warns for lag.", HEALTH, 2, Width.SHORT, "Slot lag warning")
            .define(SLOT_SAFE_WAL_WARN, Type.LONG, 1L << 30, ConfigDef.Range.atLeast(0L), Importance.MEDIUM,
                    "A WARN is logged (and sluice_source_slot_at_risk is 1) while the slot's safe_wal_size is below this many "
                            + "bytes: that much more WAL and the server invalidates the slot (max_slot_wal_keep_size), and the "
                            + "pipeline must copy everything again. 0 never warns for it; with max_slot_wal_keep_size = -1 "
                            + "(unlimited) there is no such limit.", HEALTH, 3, Width.SHORT, "Slot safe WAL warning");

    public PostgresSourceConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
    }

    public String hostname() {
        return getString(HOSTNAME);
    }

    public int port() {
        return getInt(PORT);
    }

    /** The primary of a standby source, host or hosts; empty when none is given. */
    public String primaryHostname() {
        return getString(PRIMARY_HOSTNAME).strip();
    }

    public int primaryPort() {
        Integer port = getInt(PRIMARY_PORT);
        return port == null ? port() : port;
    }

    public String user() {
        return getString(USER);
    }

    public Password password() {
        return getPassword(PASSWORD);
    }

    public String database() {
        return getString(DBNAME);
    }

    public String sslMode() {
        return getString(SSL_MODE);
    }

    public String topicPrefix() {
        return getString(TOPIC_PREFIX);
    }

    public List<TablePattern> includes() {
        return getList(TABLE_INCLUDE).stream().map(TablePattern::parse).toList();
    }

    /** The exclude list, and the signal table and the selection ledger beside it, which are never streamed. */
    public List<TablePattern> excludes() {
        List<TablePattern> excludes = new java.util.ArrayList<>(getList(TABLE_EXCLUDE).stream().map(TablePattern::parse).toList());
        io.sluice.connector.postgres.resync.SignalTable signals = signalTable();
        if (signals != null) {
            // The signal table and, beside it, the ledger of the tables each pipeline streams.
            String[] name = io.sluice.schemas.naming.Identifiers.unquoteQualified(signals.name());
            for (String table : List.of(name[1], io.sluice.connector.postgres.resync.SelectionLedger.TABLE)) {
                excludes.add(TablePattern.parse("\"" + name[0].replace("\"", "\"\"") + "\".\"" + table.replace("\"", "\"\"") + "\""));
            }
        }
        return excludes;
    }

    /** The table of requests to the running pipeline; null when none is taken. */
    public io.sluice.connector.postgres.resync.SignalTable signalTable() {
        String table = getString(SIGNAL_TABLE).trim();
        return table.isEmpty() ? null : new io.sluice.connector.postgres.resync.SignalTable(table);
    }

    public int resyncChunkRows() {
        return getInt(RESYNC_CHUNK_ROWS);
    }

    /**
     * The row filters ({@code table.filter.<schema>.<table>}), which are keys of no fixed name.
     *
     * @throws org.apache.kafka.common.config.ConfigException when a key names no table or a condition is empty
     */
    public io.sluice.connector.postgres.selection.RowFilters rowFilters() {
        try {
            return io.sluice.connector.postgres.selection.RowFilters.of(originals());
        } catch (IllegalArgumentException e) {
            throw new org.apache.kafka.common.config.ConfigException(e.getMessage());
        }
    }

    /**
     * The column lists ({@code table.columns.<schema>.<table>}), keys of no fixed name.
     *
     * @throws org.apache.kafka.common.config.ConfigException when a key names no table or its list is malformed
     */
    public io.sluice.connector.postgres.selection.ColumnLists columnLists() {
        try {
            return io.sluice.connector.postgres.selection.ColumnLists.of(originals());
        } catch (IllegalArgumentException e) {
            throw new org.apache.kafka.common.config.ConfigException(e.getMessage());
        }
    }

    /**
     * The roots of a staging subset ({@code subset.<schema>.<table>}), keys of no fixed name.
     *
     * @throws org.apache.kafka.common.config.ConfigException when a key names no table or its condition is malformed
     */
    public io.sluice.connector.postgres.selection.SubsetRoots subsetRoots() {
        try {
            return io.sluice.connector.postgres.selection.SubsetRoots.of(originals());
        } catch (IllegalArgumentException e) {
            throw new org.apache.kafka.common.config.ConfigException(e.getMessage());
        }
    }

    /** Chooses the tables the pipeline reads, with their row filters and column lists. */
    public io.sluice.connector.postgres.selection.TableSelector tableSelector() {
        return new io.sluice.connector.postgres.selection.TableSelector(includes(), excludes(), rowFilters(), columnLists());
    }

    public SnapshotMode snapshotMode() {
        return SnapshotMode.valueOf(getString(SNAPSHOT_MODE).toUpperCase(java.util.Locale.ROOT));
    }

    public long snapshotBatchBytes() {
        return getLong(SNAPSHOT_BATCH_BYTES);
    }

    public int snapshotThreads() {
        return getInt(SNAPSHOT_THREADS);
    }

    public long snapshotQueueBytes() {
        return getLong(SNAPSHOT_QUEUE_BYTES);
    }

    public SchemaSnapshot.Scope schemaScope() {
        String scope = getString(SNAPSHOT_SCHEMA).toLowerCase(java.util.Locale.ROOT);
        if (scope.equals("auto")) {
            boolean everything = getList(TABLE_INCLUDE).equals(List.of("*.*")) && getList(TABLE_EXCLUDE).isEmpty();
            return everything ? SchemaSnapshot.Scope.DATABASE : SchemaSnapshot.Scope.TABLES;
        }
        return SchemaSnapshot.Scope.valueOf(scope.toUpperCase(java.util.Locale.ROOT));
    }

    public boolean rawTuples() {
        return getBoolean(RAW_TUPLES);
    }

    public List<TablePattern> rawTuplesExcludes() {
        return getList(RAW_TUPLES_EXCLUDE).stream().map(TablePattern::parse).toList();
    }

    public String pgDumpPath() {
        return getString(PG_DUMP_PATH);
    }

    public String slotName() {
        String name = getString(SLOT_NAME);
        return name.isBlank() ? ReplicationSlot.defaultName(topicPrefix()) : name;
    }

    public boolean slotFailover() {
        return getBoolean(SLOT_FAILOVER);
    }

    public boolean viaPartitionRoot() {
        return getBoolean(VIA_PARTITION_ROOT);
    }

    public String publicationName() {
        String name = getString(PUBLICATION_NAME);
        return name.isBlank() ? ReplicationSlot.defaultName(topicPrefix()) : name;
    }

    public Publication.Mode publicationMode() {
        return Publication.Mode.valueOf(getString(PUBLICATION_MODE).toUpperCase(java.util.Locale.ROOT));
    }

    public long reconnectTimeoutMillis() {
        return getLong(RECONNECT_TIMEOUT);
    }

    public boolean ddlCapture() {
        return getBoolean(DDL_CAPTURE);
    }

    /** Whether every column change (not only rewrites a target cannot repeat) copies the table into the stream. */
    public boolean copyOnColumnChange() {
        return getString(DDL_COPY_ON).equalsIgnoreCase("column_change");
    }

    public long sequencesIntervalMillis() {
        return getLong(SEQUENCES_INTERVAL);
    }

    /** Whether every sequence of the database is kept in step (the whole database is copied), or only the selected tables'. */
    public boolean allSequences() {
        return schemaScope() == SchemaSnapshot.Scope.DATABASE;
    }

    public long heartbeatIntervalMillis() {
        return getLong(HEARTBEAT_INTERVAL);
    }

    /**
     * The partitions each heartbeat is copied into on a Kafka Connect cluster: those of the barriers,
     * which every topic of the pipeline has (validation and each record's partition check hold the
     * user to it); 1 without barriers (and in the sluice command).
     */
    public int heartbeatPartitions() {
        return Math.max(1, barrierPartitions());
    }

    /** The heartbeat table, {@code schema.table}; empty for heartbeats as logical decoding messages. */
    public String heartbeatTable() {
        return getString(HEARTBEAT_TABLE).trim();
    }

    public long slotHealthIntervalMillis() {
        return getLong(SLOT_HEALTH_INTERVAL);
    }

    public long slotLagWarnBytes() {
        return getLong(SLOT_LAG_WARN);
    }

    public long slotSafeWalWarnBytes() {
        return getLong(SLOT_SAFE_WAL_WARN);
    }

    public long statusIntervalMillis() {
        return getLong(STATUS_INTERVAL);
    }

    public MappingOptions mappingOptions() {
        NumericMode mode = NumericMode.valueOf(getString(NUMERIC_MAPPING).toUpperCase(java.util.Locale.ROOT));
        return new MappingOptions(mode, Set.copyOf(getList(TEXT_COLUMNS)));
    }

    /** The partitions of each table topic to write ordering barriers into; 0 for none. */
    public int barrierPartitions() {
        return getInt(BARRIER_PARTITIONS);
    }

    /** Checks each entry parses as a table pattern. */
    private static final class PatternListValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> patterns = (List<String>) value;
            for (String pattern : patterns) {
                try {
                    TablePattern.parse(pattern);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(name, pattern, e.getMessage());
                }
            }
        }

        @Override
        public String toString() {
            return "comma-separated schema.table patterns with * and ?";
        }
    }

    /** A prefix that yields legal Kafka topic names. */

    /** Empty (derive from the topic prefix) or a name PostgreSQL accepts for a replication slot. */
    static final class SlotNameValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            String s = (String) value;
            if (s != null && !s.isEmpty() && !ReplicationSlot.validName(s)) {
                throw new ConfigException(name, value, "A slot name has 1 to 63 lower-case letters, digits and underscores");
            }
        }

        @Override
        public String toString() {
            return "empty, or [a-z0-9_]{1,63}";
        }
    }
    private static final class TopicPrefixValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            String prefix = (String) value;
            if (prefix == null || prefix.isBlank()) {
                throw new ConfigException(name, value, "must name the source, e.g. the server or database name");
            }
            if (!prefix.matches("[a-zA-Z0-9._-]+")) {
                throw new ConfigException(name, value, "may hold only letters, digits, '.', '_' and '-', as Kafka topic names do");
            }
        }

        @Override
        public String toString() {
            return "letters, digits, '.', '_' and '-'";
        }
    }
}
