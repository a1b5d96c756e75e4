package io.sluice.testing.kafka;

import java.util.Properties;

import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One combined broker/controller KRaft node running inside the test JVM. */
final class InProcessKafka implements KafkaBroker {

    private static final Logger LOG = LoggerFactory.getLogger(InProcessKafka.class);

    private final EmbeddedKafkaCluster cluster;

    private InProcessKafka(EmbeddedKafkaCluster cluster) {
        this.cluster = cluster;
    }

    static InProcessKafka start() {
        Properties broker = new Properties();
        broker.put("auto.create.topics.enable", "true");
        EmbeddedKafkaCluster cluster = new EmbeddedKafkaCluster(1, broker);
        cluster.start();
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::stop, "stop-kafka"));
        LOG.info("Kafka (KRaft, in-process) started at {}", cluster.bootstrapServers());
        return new InProcessKafka(cluster);
    }

    @Override
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    @Override
    public String origin() {
        return "in-process KRaft broker";
    }
}
