package io.sluice.sink.core.connector;

import java.util.Collection;
import java.util.Map;

import io.sluice.metrics.JmxBridge;
import io.sluice.schemas.SluiceVersion;
import io.sluice.sink.core.barrier.BarrierGate;
import io.sluice.sink.core.deadletter.DeadLetters;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.metrics.AppliedChanges;
import io.sluice.sink.core.metrics.MetricsConfig;
import io.sluice.sink.core.metrics.SinkMetrics;
import io.sluice.sink.core.position.ReplaySkips;
import io.sluice.sink.core.routing.RecordRouter;
import io.sluice.sink.core.routing.SinkWriter;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * A Sluice sink task: what Kafka Connect calls, done the same way for every sink. The sink makes
 * its {@link SinkWriter} in {@link #start} and hands it over with {@link #route}; records then go
 * through the {@link RecordRouter}, {@code flush} waits for every write, {@code preCommit}
 * reports only what the {@link OffsetLedger} knows is durable, and partitions opened and closed
 * reach the barriers, the ledger and the skips. A sink adds to that through the hooks.
 */
public abstract class RoutedSinkTask extends SinkTask {

    protected final OffsetLedger ledger = new OffsetLedger();
    protected final ReplaySkips skips = new ReplaySkips();
    protected BarrierGate gate;
    protected DeadLetters deadLetters;
    protected SinkMetrics metrics;
    /** Counts changes once durable, for the process's metrics. */
    protected AppliedChanges applied;
    private SinkWriter writer;
    private RecordRouter router;
    private String doing = "writing";

    @Override
    public String version() {
        return SluiceVersion.get();
    }

    /**
     * Puts the core to work for the sink's writer; called at the end of {@link #start}. Makes the
     * task's metrics, where the dead letters count.
     *
     * @param doing what the task does, for messages ("loading", "indexing")
     */
    protected final void route(SinkWriter writer, BarrierGate gate, DeadLetters deadLetters, String doing) {
        route(writer, gate, deadLetters, doing, "sink");
    }

    /**
     * As {@link #route(SinkWriter, BarrierGate, DeadLetters, String)}, with the task's metrics
     * labelled with the target's name.
     *
     * @param props the task's configuration: its {@code name} (the connector's; in {@code sluice run} the pipeline's) names the target
     */
    protected final void route(SinkWriter writer, BarrierGate gate, DeadLetters deadLetters, String doing, Map<String, String> props) {
        route(writer, gate, deadLetters, doing, MetricsConfig.targetName(props));
    }

    private void route(SinkWriter writer, BarrierGate gate, DeadLetters deadLetters, String doing, String target) {
        this.writer = writer;
        this.gate = gate;
        this.deadLetters = deadLetters;
        this.doing = doing;
        this.metrics = SinkMetrics.of(context, target);
        JmxBridge.ensureStarted(); // a Connect worker serves no metrics of ours: its JMX shows them
        this.applied = new AppliedChanges(target, System::currentTimeMillis);
        ledger.onDurable(applied::durable);
        this.router = new RecordRouter(writer, ledger, skips, gate, deadLetters, applied);
        deadLetters.register(metrics);
    }

    /** Before each {@code put}: a sink raises here what failed in its background work. */
    protected void beforePut() {
    }

    /** After every write is durable at a flush, before the ledger marks all taken durable. */
    protected void allWritten() {
    }

    /** Partitions given to the task, after the barriers know them. */
    protected void opened(Collection<TopicPartition> partitions) {
    }

    /** Partitions being taken away, before the barriers, the ledger and the skips forget them. */
    protected void closing(Collection<TopicPartition> partitions) throws InterruptedException {
    }

    /**
     * Partitions whose records the target holds up to these offsets (each the offset after the
     * last record it holds), as it recorded them with its writes: the records below are skipped,
     * count as durable (so Connect commits past them even if none comes again), and the consumer
     * goes on from there, which may be past what Connect committed (a crash between the target's
     * commit and Connect's).
     */
    protected final void resumeAfter(Map<TopicPartition, Long> held) {
        held.forEach((tp, next) -> {
            skips.resume(tp, next, null, null);
            if (next > 0) {
                ledger.durableAt(tp, next - 1);
            }
        });
        if (!held.isEmpty() && context != null) {
            context.offset(held);
        }
    }

    /** Partitions taken away, after the core forgot them. */
    protected void closed(Collection<TopicPartition> partitions) {
    }

    /** Stops the sink's own parts (writer, clients); the core's are closed after. */
    protected void stopSink() {
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        beforePut();
        try {
            router.put(records, context);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while " + doing, e);
        }
    }

    /** Returns when every record handed over is durable (or skipped, or dead-lettered). */
    @Override
    public void flush(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        try {
            writer.writeAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while " + doing, e);
        }
        allWritten();
        ledger.allTakenDurable();
    }

    /** The offsets before which every record is durable; never waits for the target (see {@link SinkWriter#durableNow}). */
    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        writer.durableNow();
        return ledger.committable(currentOffsets);
    }

    @Override
    public void open(Collection<TopicPartition> partitions) {
        gate.opened(context, partitions);
        opened(partitions);
    }

    @Override
    public void close(Collection<TopicPartition> partitions) {
        try {
            closing(partitions);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectException("Interrupted while " + doing, e);
        }
        gate.closed(partitions);
        ledger.forget(partitions);
        skips.forget(partitions);
        applied.forget(partitions);
        closed(partitions);
    }

    @Override
    public final void stop() {
        try {
            stopSink();
        } finally {
            if (deadLetters != null) {
                deadLetters.close();
            }
            if (applied != null) {
                applied.close();
            }
            if (metrics != null) {
                metrics.close();
            }
            if (gate != null) {
                gate.close();
            }
        }
    }
}
