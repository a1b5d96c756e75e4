package io.sluice.sink.opensearch;

import java.util.Map;

import io.sluice.sink.core.barrier.BarrierGate;
import io.sluice.sink.core.barrier.ReadTopics;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.connector.RoutedSinkTask;
import io.sluice.sink.core.deadletter.DeadLetterConfig;
import io.sluice.sink.core.deadletter.DeadLetters;
import io.sluice.sink.core.metrics.MetricsConfig;
import io.sluice.sink.opensearch.bulk.BulkQueue;
import io.sluice.sink.opensearch.bulk.BulkSender;
import io.sluice.sink.opensearch.client.ClusterClient;
import io.sluice.sink.opensearch.client.ConnectionCheck;
import io.sluice.sink.opensearch.index.Indexes;
import io.sluice.sink.opensearch.mapping.FieldMappings;
import io.sluice.sink.opensearch.metrics.OpenSearchMeters;
import io.sluice.sink.opensearch.state.BarrierDocuments;
import io.sluice.sink.opensearch.state.HeartbeatDocuments;
import io.sluice.sink.opensearch.state.SnapshotDocuments;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenSearch sink as a Kafka Connect task: the sink core routes the records and keeps what
 * is durable; the {@link OpenSearchWriter} writes them with {@code _bulk}. Replays need no
 * skipping here: every write carries an external version, and OpenSearch refuses an older one.
 */
public class OpenSearchSinkTask extends RoutedSinkTask {

    private static final Logger LOG = LoggerFactory.getLogger(OpenSearchSinkTask.class);

    private ClusterClient client;
    private BulkQueue queue;
    private OpenSearchWriter writer;
    private TunedBatchSize batchSize;

    @Override
    public void start(Map<String, String> props) {
        OpenSearchSinkConfig config = new OpenSearchSinkConfig(props);
        client = new ClusterClient(config.address(), config.inFlight(), config.retryTimeoutMillis());
        String version = ConnectionCheck.check(client);
        LOG.info("Writing to OpenSearch {} at {}", version, client.address());
        batchSize = new TunedBatchSize("OpenSearch _bulk", config.tuning(), config.bulkBytes());
        gate = new BarrierGate(new BarrierDocuments(client, config.barrierIndex(), config.connectorName()), ReadTopics.of(props));
        deadLetters = new DeadLetters(DeadLetters.reporterOf(context), DeadLetterConfig.mismatchAction(config), e -> false, System::currentTimeMillis);
        Indexes indexes = new Indexes(client, new FieldMappings(config.mappingOptions()), config.mappingOverrides(), config.indexSettings(),
                config.mappingOptions().dynamic());
        SnapshotMarks snapshots = new SnapshotMarks(config, indexes, new SnapshotDocuments(client, config.stateIndex()));
        queue = new BulkQueue(new BulkSender(client, config.retryTimeoutMillis(), new OpenSearchMeters(MetricsConfig.targetName(props))), ledger, deadLetters, batchSize, config.inFlight(), config.bulkDocuments(),
                config.bulkDelayMillis());
        writer = new OpenSearchWriter(config, indexes, snapshots, gate, queue, new HeartbeatDocuments(client, config.stateIndex()));
        route(writer, gate, deadLetters, "indexing", props);
        batchSize.register(metrics, "bulk");
        registerCounts(metrics.plugin());
    }


    /** What the task has written, as metrics of the task (JMX under a worker, and the sluice command). */
    private void registerCounts(org.apache.kafka.common.metrics.PluginMetrics plugin) {
        gauge(plugin, "documents-written", "Documents indexed or deleted since the task started", () -> writer.written());
        gauge(plugin, "writes-older-than-stored", "Writes OpenSearch refused as older than the version it has (replays), since the task "
                + "started", () -> writer.olderThanStored());
        gauge(plugin, "bulk-bytes-sent", "Bytes of _bulk bodies sent since the task started", () -> writer.bytesSent());
    }

    private static void gauge(org.apache.kafka.common.metrics.PluginMetrics plugin, String name, String description,
                              java.util.function.LongSupplier value) {
        plugin.addMetric(plugin.metricName(name, description, new java.util.LinkedHashMap<>()),
                (org.apache.kafka.common.metrics.Gauge<Long>) (config, now) -> value.getAsLong());
    }

    /** The bulk size in use and its tuning. */
    public TunedBatchSize batchSize() {
        return batchSize;
    }

    /** The bulk size in use and how its tuning goes, for the {@code sluice} command's status lines. */
    public String batchStatus() {
        return batchSize.status();
    }

    /** Documents indexed or deleted so far. */
    public long documentsWritten() {
        return writer.written();
    }

    /** Writes refused as older than what the index has (replays). */
    public long olderThanStored() {
        return writer.olderThanStored();
    }

    /** Bytes of _bulk bodies sent so far. */
    public long bytesSent() {
        return writer.bytesSent();
    }

    @Override
    protected void stopSink() {
        if (queue != null) {
            queue.close();
        }
        if (client != null) {
            client.close();
        }
    }
}
