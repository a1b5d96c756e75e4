package io.sluice.sink.postgres;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;

import io.sluice.schemas.SluiceVersion;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.postgres.copy.CopyLoader;
import io.sluice.sink.postgres.copy.TableBatch;
import io.sluice.sink.postgres.schema.ExistingTables;
import io.sluice.sink.postgres.schema.SchemaApplier;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads row events into PostgreSQL with binary COPY: each target table gathers encoded rows
 * until its batch is full, then a COPY sends them on one of several connections while the
 * task goes on. {@link #flush} returns only when every row handed over is committed.
 */
public class PostgresSinkTask extends SinkTask {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresSinkTask.class);

    private PostgresSinkConfig config;
    private TargetTables tables;
    private CopyLoader loader;
    private SchemaApplier schema;
    private ErrantRecordReporter reporter;
    private final Map<String, TableBatch> batches = new LinkedHashMap<>();
    private long pendingBytes;

    @Override
    public String version() {
        return SluiceVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        config = new PostgresSinkConfig(props);
        tables = new TargetTables(config.endpoint(), config.tableNameFormat());
        loader = new CopyLoader(config.endpoint(), config.copyParallelism(), config.replicaRole());
        schema = new SchemaApplier(config.endpoint(), config.copyParallelism(), config.maintenanceWorkMem());
        try {
            reporter = context == null ? null : context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            reporter = null; // a worker older than Kafka 2.6
        }
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        try {
            for (SinkRecord record : records) {
                try {
                    apply(record);
                } catch (DataException e) {
                    if (reporter == null) {
                        throw e;
                    }
                    reporter.report(record, e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while loading", e);
        }
    }

    private void apply(SinkRecord record) throws InterruptedException {
        if (record.value() == null) {
            return; // a tombstone: deletes are carried by the delete event before it
        }
        if (!(record.value() instanceof Struct value)) {
            throw new DataException("Record on " + record.topic() + " has no struct value; the PostgreSQL sink needs schemas "
                    + "(value.converter.schemas.enable=true with JSON)");
        }
        String valueName = record.valueSchema().name();
        if (SchemaChangeEvents.VALUE_SCHEMA.name().equals(valueName)) {
            applySchemaChange(value);
            return;
        }
        if (!Envelope.isEnvelope(record.valueSchema())) {
            throw new DataException("Record on " + record.topic() + " is not a change event (schema " + valueName
                    + "); send the connector's events unflattened");
        }
        String op = value.getString(Envelope.OP);
        if (!op.equals("r") && !op.equals("c")) {
            throw new DataException("Change event with op=" + op + " on " + record.topic() + ": this sink version loads "
                    + "snapshots and inserts only; updates, deletes and truncates come with change streaming");
        }
        Struct source = value.getStruct(Envelope.SOURCE);
        Struct after = value.getStruct(Envelope.AFTER);
        String[] target = tables.targetOf(record.topic(), source.getString("schema"), source.getString("table"));
        TableBatch batch = batchFor(target, after);
        long before = batch.bytes();
        batch.add(after);
        pendingBytes += batch.bytes() - before;
        if (batch.bytes() >= config.batchBytes()) {
            send(batch);
        }
        if (pendingBytes >= 4 * config.batchBytes()) {
            sendLargest();
        }
    }

    private TableBatch batchFor(String[] target, Struct after) throws InterruptedException {
        String key = target[0] + "." + target[1];
        TableBatch batch = batches.get(key);
        if (batch != null && !batch.rowSchema().equals(after.schema())) {
            // The rows' shape changed: what is gathered goes out in the old shape first.
            send(batch);
            batch = null;
        }
        if (batch == null) {
            batch = new TableBatch(target[0], target[1], after.schema(), tables.columns(target[0], target[1]));
            batches.put(key, batch);
        }
        return batch;
    }

    /**
     * A snapshot opens with its pre-data schema and closes with its post-data schema; the rows
     * in between are all committed before the post-data (indexes, constraints) is built.
     */
    private void applySchemaChange(Struct value) throws InterruptedException {
        String marker = value.getStruct(Envelope.SOURCE).getString("snapshot");
        String ddl = value.getString("ddl");
        if ("first".equals(marker)) {
            if (config.schemaApply() && ddl != null) {
                List<String[]> loaded = new ArrayList<>();
                for (Struct change : value.<Struct>getArray("tableChanges")) {
                    String[] source = Identifiers.unquoteQualified(change.getString("id"));
                    loaded.add(tables.targetOf("", source[0], source[1]));
                }
                schema.applyPreData(ddl, loaded, config.tableExists());
                tables.invalidate();
            }
        } else if ("last".equals(marker)) {
            sendAll();
            loader.awaitAll();
            LOG.info("Snapshot rows loaded: {} rows, {} bytes", loader.rowsLoaded(), loader.bytesLoaded());
            if (config.schemaApply() && ddl != null) {
                schema.applyPostData(ddl, config.tableExists() != ExistingTables.FAIL);
            }
        }
    }

    private void send(TableBatch batch) throws InterruptedException {
        if (!batch.isEmpty()) {
            pendingBytes -= batch.bytes();
            loader.submit(batch.take());
        }
    }

    private void sendLargest() throws InterruptedException {
        TableBatch largest = batches.values().stream().max(java.util.Comparator.comparingLong(TableBatch::bytes)).orElseThrow();
        send(largest);
    }

    private void sendAll() throws InterruptedException {
        for (TableBatch batch : batches.values()) {
            send(batch);
        }
    }

    @Override
    public void flush(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        try {
            sendAll();
            loader.awaitAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while flushing", e);
        }
    }

    /** Rows committed to the target so far. */
    public long rowsLoaded() {
        return loader.rowsLoaded();
    }

    /** Bytes of rows sent to the target so far, in PostgreSQL's binary format. */
    public long bytesLoaded() {
        return loader.bytesLoaded();
    }

    @Override
    public void stop() {
        if (loader != null) {
            loader.close();
        }
        if (tables != null) {
            tables.close();
        }
    }
}
