package io.sluice.testing.kafka;

import org.testcontainers.kafka.KafkaContainer;

/** Apache Kafka's own image in a Testcontainers container, for machines with a Docker engine. */
final class ContainerKafka implements KafkaBroker {

    static final String IMAGE = "apache/kafka:4.1.1";

    private final KafkaContainer container;

    private ContainerKafka(KafkaContainer container) {
        this.container = container;
    }

    @SuppressWarnings("resource") // stopped by Testcontainers' reaper when the JVM exits
    static ContainerKafka start() {
        KafkaContainer container = new KafkaContainer(IMAGE);
        container.start();
        return new ContainerKafka(container);
    }

    @Override
    public String bootstrapServers() {
        return container.getBootstrapServers();
    }

    @Override
    public String origin() {
        return "Testcontainers " + IMAGE;
    }
}
