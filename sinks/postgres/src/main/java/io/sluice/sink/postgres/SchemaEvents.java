package io.sluice.sink.postgres;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.sluice.schemas.envelope.Barriers;
import io.sluice.schemas.envelope.ObjectChanges;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.naming.TopicNames;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.postgres.apply.StreamedChanges;
import io.sluice.sink.postgres.copy.SnapshotLoads;
import io.sluice.sink.postgres.schema.ExistingTables;
import io.sluice.sink.postgres.schema.SchemaApplier;
import io.sluice.sink.postgres.schema.StreamedSchemaChange;
import io.sluice.sink.postgres.schema.TargetTables;
import io.sluice.sink.postgres.state.SnapshotClaims;
import io.sluice.sink.postgres.state.SinkTables;
import io.sluice.sink.postgres.state.SnapshotRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Schema events in order with the rows around them. A snapshot opens with its pre-data schema
 * and closes with the rest of its post-data schema; in between, after each table's rows, come
 * that table's indexes and constraints, built in the background as soon as its rows are
 * committed. A streamed schema change goes in a target transaction of its own, after what came
 * before it and with the position it reaches. On a Kafka Connect cluster each event comes once
 * every partition reached its ordering barrier, and releases the barrier with its work.
 */
final class SchemaEvents {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaEvents.class);

    /** The first streamed event ends the snapshot's loads. */
    interface StreamStart {
        void begin() throws InterruptedException;
    }

    private final PostgresSinkConfig config;
    private final TargetTables tables;
    private final SnapshotLoads loads;
    private final StreamedChanges changes;
    private final SchemaApplier schema;
    private final SnapshotClaims claims;
    private final SnapshotRecords snapshotRecords;
    private final BarrierReleases releases;
    private final OffsetLedger ledger;
    private final boolean byKafkaOffset;
    private final StreamStart streamStart;
    /** Releases of barriers whose tables are being built in the background, until they are written. */
    private final List<CompletableFuture<Void>> releasing = new ArrayList<>();

    /** @param state where the target keeps the snapshots' claims and records */
    SchemaEvents(PostgresSinkConfig config, TargetTables tables, SnapshotLoads loads, StreamedChanges changes, SchemaApplier schema,
                 SinkTables state, BarrierReleases releases, OffsetLedger ledger, StreamStart streamStart) {
        this.config = config;
        this.tables = tables;
        this.loads = loads;
        this.changes = changes;
        this.schema = schema;
        this.claims = state.claims();
        this.snapshotRecords = state.snapshots();
        this.releases = releases;
        this.ledger = ledger;
        this.byKafkaOffset = config.positionsByKafkaOffset();
        this.streamStart = streamStart;
    }

    void apply(SinkEvent event) throws InterruptedException {
        SinkRecord record = event.record();
        Struct value = event.value();
        Struct source = event.source();
        SourceInfo.Snapshot marker = event.snapshotMarker();
        String ddl = value.getString("ddl");
        boolean tolerateExisting = config.tableExists() != ExistingTables.FAIL || SnapshotLoads.mayExist(record);
        Barriers.Barrier barrier = event.barrier();
        if (barrier == null && byKafkaOffset && config.schemaApply()) {
            throw new ConnectException("The schema event on " + record.topic() + " (offset " + record.kafkaOffset() + ") carries no ordering "
                    + "barrier. On a Kafka Connect cluster rows and schema events travel on different topics and partitions, so the "
                    + "sink cannot apply them in the source's order without barriers: set barriers.topic.partitions on the Sluice "
                    + "source connector to the table topics' partition count. (Or set " + PostgresSinkConfig.SCHEMA_APPLY
                    + "=false to keep the target's schema yourself.)");
        }
        if (barrier != null) {
            applyAtBarrier(record, value, source, marker, ddl, barrier);
            return;
        }
        if (marker == SourceInfo.Snapshot.FIRST) {
            boolean created = snapshotBegins(value, source, ddl);
            if (config.schemaApply() && ddl != null) {
                loads.freezeCreatedTables(created && config.freeze());
            }
        } else if (marker == SourceInfo.Snapshot.LAST_IN_DATA_COLLECTION) {
            String[] target = tables.resolve(record.topic(), source.getString("schema"), source.getString("table"));
            loads.hold(target, record);
            schema.buildTable(target, loads.tableDone(target), config.schemaApply() ? ddl : null, tolerateExisting);
        } else if (marker == SourceInfo.Snapshot.LAST) {
            loads.finish();
            LOG.info("Snapshot rows loaded: {} rows, {} bytes", loads.rowsLoaded(), loads.bytesLoaded());
            loads.dropResumeIndexes();
            schema.applyPostData(config.schemaApply() ? ddl : null, loadedTables(value), tolerateExisting);
            // Post-data made the keys that streamed changes find rows by.
            tables.invalidate();
            schema.snapshotFinished(claims, snapshotRecords, snapshotMark(value, source));
        } else if (marker == null || marker == SourceInfo.Snapshot.FALSE) {
            applyStreamed(record, value, source, ddl, null);
        }
    }

    /**
     * A schema event on a cluster, once every partition of its barrier has arrived: every row
     * before it, of every task, is on the target, and none after it. The barrier is released when
     * the event's work is committed (in the same transaction where the work has one), and the
     * partitions held at it go on. Loads are never frozen here: a table's rows come through many
     * tasks' transactions.
     */
    private void applyAtBarrier(SinkRecord record, Struct value, Struct source, SourceInfo.Snapshot marker, String ddl, Barriers.Barrier barrier)
            throws InterruptedException {
        String sourceName = source.getString("name");
        loads.freezeCreatedTables(false);
        if (marker == SourceInfo.Snapshot.FIRST) {
            snapshotBegins(value, source, ddl);
            releases.release(barrier);
        } else if (marker == SourceInfo.Snapshot.LAST_IN_DATA_COLLECTION) {
            String[] target = tableTarget(sourceName, source);
            // Its rows are all committed (each partition arrived after its own); built in the background, released when built.
            String held = "barrier " + barrier.id();
            ledger.hold(held, SinkEvent.partitionOf(record), record.kafkaOffset());
            CompletableFuture<Void> release = schema.buildTable(target, CompletableFuture.completedFuture(null),
                    config.schemaApply() ? ddl : null, true).thenRun(() -> {
                        releases.releaseElsewhere(barrier);
                        ledger.release(held);
                    });
            synchronized (releasing) {
                releasing.add(release);
            }
        } else if (marker == SourceInfo.Snapshot.LAST) {
            loads.sendAll();
            loads.awaitSent();
            List<CompletableFuture<Void>> pending;
            synchronized (releasing) {
                pending = List.copyOf(releasing);
                releasing.clear();
            }
            for (CompletableFuture<Void> release : pending) {
                release.join();
            }
            schema.checkFailures();
            List<String[]> loaded = loadedTables(value);
            loads.dropResumeIndexes(loaded);
            schema.applyPostData(config.schemaApply() ? ddl : null, loaded, true);
            tables.invalidate();
            schema.snapshotFinished(claims, snapshotRecords, snapshotMark(value, source));
            releases.release(barrier);
            LOG.info("Snapshot of {} applied: post-data built once every partition had its rows in", sourceName);
        } else if (marker == null || marker == SourceInfo.Snapshot.FALSE) {
            applyStreamed(record, value, source, ddl, barrier);
        } else {
            releases.release(barrier);
        }
    }

    /**
     * A schema change from the stream: what came before it is applied first, then the change
     * in a target transaction of its own that also moves the position, so the rows after it
     * find the new shape and a restart does not apply it twice.
     */
    private void applyStreamed(SinkRecord record, Struct value, Struct source, String ddl, Barriers.Barrier barrier)
            throws InterruptedException {
        String sourceName = source.getString("name");
        SourcePosition position = SourcePosition.of(value);
        streamStart.begin();
        if (changes.appliedAlready(sourceName, position)) {
            return;
        }
        Map<TopicPartition, Long> next = Map.of();
        if (byKafkaOffset) {
            next = Map.of(SinkEvent.partitionOf(record), record.kafkaOffset() + 1);
            position = null; // the offset says it; source positions of many partitions have no common order
        }
        // This sink keeps partition trees: where partitions are published through their roots, it takes the partitions' changes.
        List<SchemaChangeEvents.TableChange> tableChanges = SchemaChangeEvents.tableChanges(value, true);
        if (!config.schemaApply()) {
            LOG.info("Schema change of {} not applied ({}=false): {}", tableChanges.stream().map(SchemaChangeEvents.TableChange::id).toList(),
                    PostgresSinkConfig.SCHEMA_APPLY, ddl);
            changes.alone(sourceName, position, next, "a schema change position", c -> releases.inTransaction(c, barrier));
            releases.committed(barrier);
            return;
        }
        // The source's name is its topic prefix, which names the tables' topics.
        changes.alone(sourceName, position, next, "schema change \"" + ddl + "\"", c -> {
            StreamedSchemaChange.apply(c, tableChanges, ObjectChanges.of(value), ddl,
                    t -> tables.targetOf(TopicNames.forTable(sourceName, t[0], t[1]), t[0], t[1]));
            releases.inTransaction(c, barrier);
        });
        releases.committed(barrier);
        tables.forgetTargets();
        loads.forgetChecks();
    }

    /** The target of the table a schema event names, whose topic is named from the source. */
    private String[] tableTarget(String sourceName, Struct source) {
        String schemaName = source.getString("schema");
        String table = source.getString("table");
        return tables.resolve(TopicNames.forTable(sourceName, schemaName, table), schemaName, table);
    }

    /**
     * A snapshot's first event: its pre-data applied (when the sink keeps the schema), and its
     * start recorded on the target, with the tables when they were created here.
     *
     * @return whether the tables were created here
     */
    private boolean snapshotBegins(Struct value, Struct source, String ddl) {
        // Connections opened meanwhile, as the schema is created: each costs round trips.
        loads.openAhead();
        schema.openAhead();
        SchemaApplier.SnapshotMark mark = snapshotMark(value, source);
        boolean created = false;
        if (config.schemaApply() && ddl != null) {
            created = schema.applyPreData(ddl, loadedTables(value), config.tableExists(), claims, source.getString("name"),
                    snapshotRecords, mark);
            tables.invalidate();
        }
        if (!created) {
            schema.snapshotStarted(snapshotRecords, mark);
        }
        return created;
    }

    private SchemaApplier.SnapshotMark snapshotMark(Struct value, Struct source) {
        List<String> sourceTables = new ArrayList<>();
        for (Struct change : value.<Struct>getArray("tableChanges")) {
            sourceTables.add(change.getString("id"));
        }
        List<String> targetTables = loadedTables(value).stream().map(t -> Identifiers.quote(t[0], t[1])).toList();
        Long micros = source.getInt64("ts_us");
        return new SchemaApplier.SnapshotMark(source.getString("name"), source.getString("db"),
                micros != null ? micros : source.getInt64("ts_ms") * 1000L, sourceTables, targetTables);
    }

    /** The target tables of the tables a schema event lists. */
    private List<String[]> loadedTables(Struct value) {
        List<String[]> loaded = new ArrayList<>();
        for (Struct change : value.<Struct>getArray("tableChanges")) {
            String[] source = Identifiers.unquoteQualified(change.getString("id"));
            loaded.add(tables.targetOf("", source[0], source[1]));
        }
        return loaded;
    }
}
