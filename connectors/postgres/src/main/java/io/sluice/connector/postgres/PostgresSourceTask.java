package io.sluice.connector.postgres;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.schema.PgDump;
import io.sluice.connector.postgres.schema.SchemaSnapshot;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.connector.postgres.snapshot.SnapshotRun;
import io.sluice.schemas.SluiceVersion;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one task of {@link PostgresSourceConnector}: runs the snapshot, hands its records to
 * Connect in batches, and after the end-of-snapshot event produces nothing more.
 */
public class PostgresSourceTask extends SourceTask {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresSourceTask.class);
    private static final int MAX_BATCH = 4096;
    private static final long POLL_WAIT_MILLIS = 500;

    private SnapshotRun snapshot;
    private volatile boolean idle;

    @Override
    public String version() {
        return SluiceVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        PostgresSourceConfig config = new PostgresSourceConfig(props);
        PgEndpoint endpoint = PostgresSourceConnector.endpoint(config);
        SnapshotRun.Settings settings = new SnapshotRun.Settings(config.topicPrefix(),
                new TableSelector(config.includes(), config.excludes()), new TypeMapper(config.mappingOptions()),
                config.snapshotBatchBytes(), config.snapshotThreads(), config.snapshotQueueBytes(),
                config.schemaScope() == SchemaSnapshot.Scope.NONE ? null
                        : new SnapshotRun.SchemaSource(PgDump.locate(config.pgDumpPath()), endpoint, config.schemaScope()),
                config.rawTuples());
        snapshot = new SnapshotRun(settings, () -> PgConnect.open(endpoint, "sluice snapshot " + config.topicPrefix()),
                partition -> context.offsetStorageReader().offset(partition));
        if (snapshot.alreadyCompleted()) {
            LOG.info("The snapshot of {} finished in an earlier run; nothing to read (reset the offsets to copy again)", endpoint);
            idle = true;
            return;
        }
        try {
            snapshot.start();
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.apache.kafka.connect.errors.ConnectException("Interrupted while starting the snapshot", e);
        }
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        if (idle) {
            Thread.sleep(POLL_WAIT_MILLIS);
            return null;
        }
        List<SourceRecord> records = snapshot.poll(MAX_BATCH, POLL_WAIT_MILLIS);
        if (!records.isEmpty() && isEndOfSnapshot(records.get(records.size() - 1))) {
            idle = true;
        }
        return records.isEmpty() ? null : records;
    }

    private static boolean isEndOfSnapshot(SourceRecord record) {
        return record.sourceOffset() != null && Boolean.TRUE.equals(record.sourceOffset().get(SnapshotRun.COMPLETED));
    }

    @Override
    public void stop() {
        if (snapshot != null) {
            snapshot.close();
        }
    }
}
