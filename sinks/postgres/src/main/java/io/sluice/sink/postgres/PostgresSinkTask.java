package io.sluice.sink.postgres;

import java.util.Collection;
import java.util.Map;

import io.sluice.schemas.mapping.ColumnMismatch;
import io.sluice.sink.core.barrier.BarrierGate;
import io.sluice.sink.core.barrier.ReadTopics;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.connector.RoutedSinkTask;
import io.sluice.sink.core.connector.SendsInBackground;
import io.sluice.sink.core.deadletter.DeadLetterConfig;
import io.sluice.sink.core.deadletter.DeadLetters;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.pgstate.PostgresBarrierStore;
import io.sluice.sink.core.position.ReplaySkips;
import io.sluice.sink.core.routing.RecordRouter;
import io.sluice.sink.postgres.state.KafkaOffsets;
import io.sluice.sink.postgres.state.SinkTables;
import org.apache.kafka.common.TopicPartition;

/**
 * The PostgreSQL sink as a Kafka Connect task: the sink core routes the records ({@link RecordRouter}),
 * keeps what is durable ({@link OffsetLedger}), what the target has ({@link ReplaySkips}) and the
 * ordering barriers ({@link BarrierGate}); the {@link PostgresWriter} writes with binary COPY and
 * set-based transactions. {@link #flush} returns only when every record handed over is committed.
 */
public class PostgresSinkTask extends RoutedSinkTask implements SendsInBackground {

    private PostgresSinkConfig config;
    private PostgresWriter writer;

    @Override
    public void start(Map<String, String> props) {
        config = new PostgresSinkConfig(props);
        SinkTables state = new SinkTables(config.positionTable(), config.connectorName());
        KafkaOffsets offsets = config.positionsByKafkaOffset() ? state.kafkaOffsets() : null;
        PostgresBarrierStore barriers = new PostgresBarrierStore(config.endpoint(), state.barriers(), offsets == null ? null : (c, partition, offset) -> {
            offsets.ensure(c);
            offsets.settle(c, partition, offset);
        });
        gate = new BarrierGate(barriers, ReadTopics.of(props));
        writer = new PostgresWriter(config, state, offsets, ledger, skips, gate, barriers);
        deadLetters = new DeadLetters(DeadLetters.reporterOf(context), DeadLetterConfig.mismatchAction(config), ColumnMismatch.class::isInstance,
                System::currentTimeMillis);
        route(writer, gate, deadLetters, "loading", props);
        writer.copyBatchSize().register(metrics, "snapshot-copy");
        writer.applyBatchSize().register(metrics, "stream-apply");
    }


    @Override
    protected void beforePut() {
        writer.checkFailures();
    }

    /** Every record handed over is committed: open frozen loads too, so nothing is held. */
    @Override
    protected void allWritten() {
        ledger.releaseAll();
    }

    /**
     * Partitions given to this task (at start or in a rebalance). With Kafka offset positions,
     * each resumes right after the last change the target has, which may be past what Kafka
     * Connect committed (a crash between the target's commit and Connect's).
     */
    @Override
    protected void opened(Collection<TopicPartition> partitions) {
        if (config.positionsByKafkaOffset() && !partitions.isEmpty()) {
            resumeAfter(writer.resume(partitions));
        }
    }

    /**
     * Partitions taken away (a rebalance, or the task stopping). Every record of them put so far
     * is written first, with its offsets: the task that gets them next reads where the target is
     * and starts after it, so a row still in a batch here must not be left to go in later, after
     * that task has applied it again. Then what this task knew of them no longer holds.
     */
    @Override
    protected void closing(Collection<TopicPartition> partitions) {
        if (config.positionsByKafkaOffset() && !partitions.isEmpty()) {
            writer.writeAll();
        }
    }

    @Override
    protected void closed(Collection<TopicPartition> partitions) {
        writer.forget(partitions);
    }

    /** Streamed changes go in a target transaction of their own while more are put; snapshot rows are written and waited for. */
    @Override
    public boolean sendNow() {
        if (!writer.sendsInBackground()) {
            flush(Map.of());
            return true;
        }
        return writer.sendNow();
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
    protected void stopSink() {
        if (writer != null) {
            writer.close();
        }
    }
}
