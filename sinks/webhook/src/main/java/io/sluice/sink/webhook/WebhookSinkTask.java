package io.sluice.sink.webhook;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import io.sluice.schemas.postgres.PgConnect;
import io.sluice.sink.core.barrier.BarrierGate;
import io.sluice.sink.core.barrier.ReadTopics;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.connector.RoutedSinkTask;
import io.sluice.sink.core.deadletter.DeadLetterConfig;
import io.sluice.sink.core.deadletter.DeadLetters;
import io.sluice.sink.core.metrics.MetricsConfig;
import io.sluice.sink.core.pgstate.BarrierTables;
import io.sluice.sink.core.pgstate.PostgresBarrierStore;
import io.sluice.sink.webhook.api.ApiToken;
import io.sluice.sink.webhook.api.WebhookApi;
import io.sluice.sink.webhook.delivery.Deliveries;
import io.sluice.sink.webhook.delivery.DeliveryLoop;
import io.sluice.sink.webhook.http.WebhookClient;
import io.sluice.sink.webhook.outbox.OutboxWriter;
import io.sluice.sink.webhook.state.PositionTable;
import io.sluice.sink.webhook.state.StateDatabase;
import io.sluice.sink.webhook.state.SubscriptionTable;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook sink as a Kafka Connect task: the sink core routes the records and keeps what is
 * durable; the {@link OutboxWriter} writes each change once into the outbox of the state
 * database, and Connect may commit past a record only when the outbox holds it. The task also
 * delivers: it runs the delivery loops of the subscriptions no other task holds ({@link Deliveries}).
 */
public class WebhookSinkTask extends RoutedSinkTask {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookSinkTask.class);

    private final LongSupplier clock;
    private StateDatabase state;
    private WebhookClient client;
    private Deliveries deliveries;
    private WebhookApi api;
    private PositionTable positions;
    private OutboxWriter writer;
    private TunedBatchSize batchSize;
    private BackfillRequests backfills;
    private boolean byKafkaOffset;

    public WebhookSinkTask() {
        this(System::currentTimeMillis);
    }

    /** With the clock deliveries read (milliseconds), for tests. */
    public WebhookSinkTask(LongSupplier clock) {
        this.clock = clock;
    }

    @Override
    public void start(Map<String, String> props) {
        WebhookSinkConfig config = new WebhookSinkConfig(props);
        List<String> errors = new ArrayList<>();
        List<SubscriptionSpec> declared = WebhookSinkConfig.subscriptions(props, errors);
        errors.addAll(config.crossKeyErrors());
        if (!errors.isEmpty()) {
            throw new ConnectException("The webhook sink's configuration has errors: " + String.join("; ", errors));
        }
        state = config.state();
        byKafkaOffset = config.positionsByKafkaOffset();
        state.create();
        declare(declared);
        batchSize = new TunedBatchSize("webhook outbox", config.tuning(), config.outboxBytes());
        client = new WebhookClient(config.guard(), config.maxConnections(), config.connectTimeoutMillis());
        deliveries = new Deliveries(state, client, config.retention(), clock, MetricsConfig.targetName(props));
        deliveries.watch(new WebhookBackfills(state, backfills)::seen);
        deliveries.start();
        String connector = props.getOrDefault("name", "sluice");
        BarrierGate gate = new BarrierGate(new PostgresBarrierStore(state.endpoint(), new BarrierTables(state.schema(), connector), null),
                ReadTopics.of(props));
        positions = new PositionTable(state, connector);
        resumePositions(null);
        writer = new OutboxWriter(state, ledger, skips, positions, gate, batchSize, config.outboxDelayMillis(), config.stateRetryTimeoutMillis(),
                deliveries::appended, byKafkaOffset);
        route(writer, gate, new DeadLetters(DeadLetters.reporterOf(context), DeadLetterConfig.MismatchAction.FAIL, e -> false,
                System::currentTimeMillis), "writing the webhook outbox", props);
        batchSize.register(metrics, "outbox");
        startApi(config);
        LOG.info("Webhook sink writing its outbox to schema {} of {}; {} subscription(s) declared in the configuration", state.schema(),
                state.endpoint().display(), declared.size());
    }

    /**
     * Loads the newest positions the outbox holds, of the given partitions (null: all of the
     * connector's), so that changes a restarted source sends again are not written twice; and,
     * with Kafka offsets kept, where the outbox is in each given partition, so that records Kafka
     * hands out again are skipped and the consumer goes on after them.
     */
    private void resumePositions(Collection<TopicPartition> partitions) {
        Map<TopicPartition, Long> held = Map.of();
        try (Connection c = state.open("positions")) {
            if (byKafkaOffset && partitions != null) {
                held = positions.readOffsets(c, partitions);
            }
            positions.read(c).forEach((partition, position) -> {
                if (partitions == null || partitions.contains(partition)) {
                    skips.resume(partition, null, null, position);
                }
            });
        } catch (SQLException e) {
            throw PgConnect.explain(e, state.endpoint());
        }
        if (!held.isEmpty()) {
            resumeAfter(held);
            LOG.info("Resuming {} partition(s) after the records the outbox holds: {}", held.size(), held);
        }
    }

    /** Partitions given to this task: another task may have written their changes since this one last had them. */
    @Override
    protected void opened(Collection<TopicPartition> partitions) {
        if (!partitions.isEmpty()) {
            resumePositions(partitions);
        }
    }

    /**
     * Partitions taken away (a rebalance, or the task stopping): every record of them put so far
     * goes into the outbox first, with its offsets, since the task that gets them next starts
     * where the outbox is; a batch still in flight here would else come in after that task wrote
     * its records again.
     */
    @Override
    protected void closing(Collection<TopicPartition> partitions) throws InterruptedException {
        if (byKafkaOffset && !partitions.isEmpty() && writer != null) {
            writer.writeAll();
        }
    }

    /** Serves the subscription API when asked to; a port another task of this worker holds is left to it. */
    private void startApi(WebhookSinkConfig config) {
        java.net.InetSocketAddress listen = config.apiListen();
        if (listen == null) {
            return;
        }
        try {
            api = new WebhookApi(listen, new ApiToken(config.apiToken()), state, client, config.guard(), deliveries::refresh);
        } catch (java.net.BindException e) {
            LOG.info("The subscription API's address {} is taken (by another task of this worker, or another process); this task "
                    + "serves no API", config.getString(WebhookSinkConfig.API_LISTEN));
        } catch (java.io.IOException e) {
            throw new ConnectException("Cannot serve the subscription API on " + config.getString(WebhookSinkConfig.API_LISTEN) + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * How to ask the source for subscriptions' backfills, given before {@link #start} by a
     * runtime that holds the source; without one (a Connect cluster) a backfill waits for an
     * {@code INSERT} into the source's signal table, and says so.
     */
    public void backfillsThrough(BackfillRequests requests) {
        this.backfills = requests;
    }

    /** Where the subscription API of this task listens; null when it serves none. */
    public String apiAddress() {
        return api == null ? null : api.address();
    }

    /** Makes or updates the subscriptions the configuration declares, and deletes those it no longer does. */
    private void declare(List<SubscriptionSpec> declared) {
        SubscriptionTable table = new SubscriptionTable(state);
        try (Connection c = state.open("subscriptions")) {
            for (SubscriptionSpec spec : declared) {
                if (table.put(c, spec, "config")) {
                    LOG.info("Made {}: it gets the changes written from now on", spec);
                }
            }
            for (String gone : table.deleteUndeclared(c, declared.stream().map(SubscriptionSpec::name).toList())) {
                LOG.warn("Deleted webhook subscription {}: the configuration no longer declares it", gone);
            }
        } catch (SQLException e) {
            throw PgConnect.explain(e, state.endpoint());
        }
    }

    /** Bytes of changes written to the outbox so far. */
    public long bytesWritten() {
        return writer == null ? 0 : writer.bytesWritten();
    }

    /** Changes written to the outbox so far. */
    public long changesWritten() {
        return writer == null ? 0 : writer.written();
    }

    /** Per subscription delivered here: changes delivered, failed for good, and its place in the outbox. */
    public Map<String, long[]> deliveryCounts() {
        Map<String, long[]> counts = new LinkedHashMap<>();
        if (deliveries != null) {
            for (Map.Entry<String, DeliveryLoop> e : deliveries.loops().entrySet()) {
                DeliveryLoop q = e.getValue();
                counts.put(e.getKey(), new long[] {q.delivered(), q.failed(), q.position()});
            }
        }
        return counts;
    }

    @Override
    protected void stopSink() {
        if (api != null) {
            api.close();
        }
        if (writer != null) {
            writer.close();
        }
        if (deliveries != null) {
            deliveries.close();
        }
        if (client != null) {
            client.close();
        }
    }
}
