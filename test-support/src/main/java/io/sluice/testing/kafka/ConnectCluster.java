package io.sluice.testing.kafka;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A distributed Kafka Connect cluster in this JVM: Kafka's own {@link EmbeddedConnectCluster},
 * with its own KRaft brokers and real workers serving the REST API. Workers load plugins from
 * the test class path. Close it when the test is done.
 */
public final class ConnectCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectCluster.class);

    private final EmbeddedConnectCluster cluster;

    private ConnectCluster(EmbeddedConnectCluster cluster) {
        this.cluster = cluster;
    }

    public static ConnectCluster start(String name, int workers) {
        return start(name, workers, Map.of());
    }

    public static ConnectCluster start(String name, int workers, Map<String, String> workerProperties) {
        return start(name, workers, workerProperties, Map.of());
    }

    /**
     * Workers with exactly-once source support enabled (KIP-618), on a broker whose transaction
     * log fits its one node.
     */
    public static ConnectCluster startExactlyOnce(String name, int workers) {
        return startExactlyOnce(name, workers, Map.of());
    }

    /** As {@link #startExactlyOnce(String, int)}, with more worker settings. */
    public static ConnectCluster startExactlyOnce(String name, int workers, Map<String, String> workerProperties) {
        Map<String, String> props = new HashMap<>(workerProperties);
        props.put("exactly.once.source.support", "enabled");
        return start(name, workers, props, Map.of("transaction.state.log.replication.factor", "1", "transaction.state.log.min.isr", "1"));
    }

    private static ConnectCluster start(String name, int workers, Map<String, String> workerProperties, Map<String, String> brokerProperties) {
        Map<String, String> props = new HashMap<>();
        props.put("offset.flush.interval.ms", "1000");
        props.putAll(workerProperties);
        java.util.Properties broker = new java.util.Properties();
        broker.putAll(brokerProperties);
        EmbeddedConnectCluster cluster = new EmbeddedConnectCluster.Builder()
                .name(name)
                .numWorkers(workers)
                .numBrokers(1)
                .workerProps(props)
                .brokerProps(broker)
                .build();
        cluster.start();
        LOG.info("Kafka Connect cluster {} started with {} workers, brokers at {}", name, workers, cluster.kafka().bootstrapServers());
        return new ConnectCluster(cluster);
    }

    /** The worker that runs most of the connector's tasks (a worker to stop, in tests of a failing worker). */
    public org.apache.kafka.connect.util.clusters.WorkerHandle busiestWorker(String connector) {
        Map<String, Long> tasks = cluster.connectorStatus(connector).tasks().stream()
                .collect(java.util.stream.Collectors.groupingBy(org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo.TaskState::workerId,
                        java.util.stream.Collectors.counting()));
        String busiest = tasks.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        return cluster.workers().stream()
                .filter(w -> busiest.equals(w.url().getHost() + ":" + w.url().getPort()) || busiest.endsWith(":" + w.url().getPort()))
                .min(java.util.Comparator.comparing(w -> w.url().toString())).orElseThrow();
    }

    /**
     * Whether the connector has {@code tasks} tasks, all running, none on the worker whose
     * address ended in {@code gone} (":port"; a stopped worker's handle forgets its address).
     */
    public boolean allTasksRunningElsewhere(String connector, int tasks, String gone) {
        var states = cluster.connectorStatus(connector).tasks();
        return states.size() == tasks && states.stream().allMatch(t -> t.state().equals("RUNNING") && !t.workerId().endsWith(gone));
    }

    /** Kafka's own handle, for REST calls, worker control and assertions. */
    public EmbeddedConnectCluster embedded() {
        return cluster;
    }

    /** The REST URL of one worker for a resource, such as {@code connector-plugins}. */
    public String restUrl(String resource) {
        return cluster.endpointForResource(resource);
    }

    public String bootstrapServers() {
        return cluster.kafka().bootstrapServers();
    }

    /** Records written to a topic so far (its partitions' end offsets); none when the topic was never created. */
    public long recordsIn(String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
            if (!admin.listTopics().names().get().contains(topic)) {
                return 0;
            }
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()
                    .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            return admin.listOffsets(latest).all().get().values().stream().mapToLong(o -> o.offset()).sum();
        }
    }

    @Override
    public void close() {
        cluster.stop();
    }
}
