package io.sluice.sink.postgres;

import java.util.Collection;
import java.util.Map;

import io.sluice.schemas.SluiceVersion;
import io.sluice.schemas.mapping.ColumnMismatch;
import io.sluice.sink.core.barrier.BarrierGate;
import io.sluice.sink.core.barrier.Subscription;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.deadletter.DeadLetterConfig;
import io.sluice.sink.core.deadletter.DeadLetters;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.metrics.SinkMetrics;
import io.sluice.sink.core.position.ReplaySkips;
import io.sluice.sink.core.routing.RecordRouter;
import io.sluice.sink.postgres.state.KafkaOffsets;
import io.sluice.sink.postgres.state.TargetBarrierStore;
import io.sluice.sink.postgres.state.TargetState;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * The PostgreSQL sink as a Kafka Connect task: the sink core routes the records ({@link RecordRouter}),
 * keeps what is durable ({@link OffsetLedger}), what the target has ({@link ReplaySkips}) and the
 * ordering barriers ({@link BarrierGate}); the {@link PostgresWriter} writes with binary COPY and
 * set-based transactions. {@link #flush} returns only when every record handed over is committed.
 */
public class PostgresSinkTask extends SinkTask {

    private PostgresSinkConfig config;
    private final OffsetLedger ledger = new OffsetLedger();
    private final ReplaySkips skips = new ReplaySkips();
    private BarrierGate gate;
    private DeadLetters deadLetters;
    private PostgresWriter writer;
    private RecordRouter router;
    private SinkMetrics metrics;

    @Override
    public String version() {
        return SluiceVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        config = new PostgresSinkConfig(props);
        TargetState state = new TargetState(config.positionTable(), config.connectorName());
        KafkaOffsets offsets = config.positionsByKafkaOffset() ? state.kafkaOffsets() : null;
        TargetBarrierStore barriers = new TargetBarrierStore(config.endpoint(), state.barriers(), offsets);
        gate = new BarrierGate(barriers, Subscription.of(props));
        writer = new PostgresWriter(config, state, offsets, ledger, skips, gate, barriers);
        deadLetters = new DeadLetters(DeadLetters.reporterOf(context), DeadLetterConfig.mismatchAction(config), ColumnMismatch.class::isInstance,
                System::currentTimeMillis);
        router = new RecordRouter(writer, ledger, skips, gate, deadLetters);
        metrics = SinkMetrics.of(context);
        deadLetters.register(metrics.plugin());
        writer.copyBatchSize().register(metrics.plugin(), "snapshot-copy");
        writer.applyBatchSize().register(metrics.plugin(), "stream-apply");
    }


    @Override
    public void put(Collection<SinkRecord> records) {
        writer.checkFailures();
        try {
            router.put(records, context);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while loading", e);
        }
    }

    /** Makes every record handed over durable, committing open frozen loads. */
    @Override
    public void flush(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        writer.writeAll();
        ledger.releaseAll();
        ledger.allTakenDurable();
    }

    /** The offsets up to which every record is on the target; never waits for the target (see {@link PostgresWriter#durableNow}). */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        writer.durableNow();
        return ledger.committable(currentOffsets);
    }

    /**
     * Partitions given to this task (at start or in a rebalance). With Kafka offset positions,
     * each resumes right after the last change the target has, which may be past what Kafka
     * Connect committed (a crash between the target's commit and Connect's).
     */
    @Override
    public void open(Collection<TopicPartition> partitions) {
        gate.opened(context, partitions);
        if (config.positionsByKafkaOffset() && !partitions.isEmpty()) {
            writer.resume(partitions, context);
        }
    }

    /**
     * Partitions taken away (a rebalance, or the task stopping). Every record of them put so far
     * is written first, with its offsets: the task that gets them next reads where the target is
     * and starts after it, so a row still in a batch here must not be left to go in later, after
     * that task has applied it again. Then what this task knew of them no longer holds.
     */
    @Override
    public void close(Collection<TopicPartition> partitions) {
        if (config.positionsByKafkaOffset() && !partitions.isEmpty()) {
            writer.writeAll();
        }
        gate.closed(partitions);
        ledger.forget(partitions);
        skips.forget(partitions);
        writer.forget(partitions);
    }

    /** The batch size in use and its tuning, for a progress display: snapshot COPYs, then streamed changes. */
    public String batchStatus() {
        return writer.batchStatus();
    }

    /** The snapshot COPY batch size and its tuning (for tests and the benchmark's convergence path). */
    public TunedBatchSize copyBatchSize() {
        return writer.copyBatchSize();
    }

    /** The streamed apply batch size and its tuning (for tests). */
    public TunedBatchSize applyBatchSize() {
        return writer.applyBatchSize();
    }

    /** Rows committed to the target so far. */
    public long rowsLoaded() {
        return writer.rowsLoaded();
    }

    /** Bytes of rows sent to the target so far, in PostgreSQL's binary format. */
    public long bytesLoaded() {
        return writer.bytesLoaded();
    }

    /** Streamed changes applied so far (after coalescing within batches, each counted once per change taken). */
    public long changesApplied() {
        return writer.changesApplied();
    }

    /** Records skipped because the target had them already. */
    public long changesSkipped() {
        return skips.count();
    }

    @Override
    public void stop() {
        if (deadLetters != null) {
            deadLetters.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (writer != null) {
            writer.close();
        }
        if (gate != null) {
            gate.close();
        }
    }
}
