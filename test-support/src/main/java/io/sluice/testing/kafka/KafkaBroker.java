package io.sluice.testing.kafka;

import io.sluice.testing.ServiceOrigin;

/**
 * A running Kafka broker (KRaft), shared by all tests of one JVM: {@code SLUICE_TEST_KAFKA}
 * (bootstrap servers) when set, else a Testcontainers container when a Docker engine answers,
 * else a broker in this JVM from Kafka's own test kit.
 */
public interface KafkaBroker {

    String bootstrapServers();

    String origin();

    static KafkaBroker shared() {
        return Holder.BROKER;
    }

    /** Lazily chooses and starts the shared broker. */
    final class Holder {
        private static final KafkaBroker BROKER = choose();

        private Holder() {
        }

        private static KafkaBroker choose() {
            return ServiceOrigin.choose("SLUICE_TEST_KAFKA", servers -> new KafkaBroker() {
                @Override
                public String bootstrapServers() {
                    return servers;
                }

                @Override
                public String origin() {
                    return "SLUICE_TEST_KAFKA (" + servers + ")";
                }
            }, ContainerKafka::start, InProcessKafka::start);
        }
    }
}
