package io.sluice.connector.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.kafka.ConnectorConfigs;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;

/**
 * The source connector with exactly-once delivery required, on workers with exactly-once source
 * support enabled (KIP-618): Connect accepts it, and a committed reader of the topic sees the
 * snapshot and the streamed rows once each, also across a restart of the connector and its task
 * between two bursts of changes.
 */
@ExtendWith(PostgresExtension.class)
class ExactlyOnceOnConnectIT {

    private static final String TOPIC = "eos.public.items";

    @Test
    void everyRowReachesTheTopicOnceWithExactlyOnceRequired() throws Exception {
        TestDatabase source = TestDatabases.create(ExactlyOnceOnConnectIT.class);
        source.execute("CREATE TABLE items (id int PRIMARY KEY, v text)",
                "INSERT INTO items SELECT g, 'row ' || g FROM generate_series(1, 500) g");
        Map<String, String> config = ConnectorConfigs.source(source, "eos", "public.items");
        config.put("name", "eos-source");
        config.put("snapshot.schema", "none");
        config.put("ddl.capture", "false");
        config.put("exactly.once.support", "required");

        try (ConnectCluster connect = ConnectCluster.startExactlyOnce("eos-connect", 1);
             KafkaConsumer<byte[], byte[]> reader = connect.embedded().kafka().createConsumerAndSubscribeTo(
                     Map.of("isolation.level", "read_committed", "auto.offset.reset", "earliest", "group.id", "eos-reader"), TOPIC)) {
            var validated = connect.embedded().validateConnectorConfig("PostgresSourceConnector", config);
            assertThat(validated.values().stream().flatMap(v -> v.configValue().errors().stream().map(e -> v.configValue().name() + ": " + e)))
                    .as("exactly.once.support=required is accepted").isEmpty();
            connect.embedded().configureConnector("eos-source", config);
            Map<Integer, Integer> seen = new TreeMap<>();
            readUntil(reader, seen, 500);

            source.execute("INSERT INTO items SELECT g, 'row ' || g FROM generate_series(501, 520) g");
            readUntil(reader, seen, 520);
            connect.embedded().restartConnectorAndTasks("eos-source", false, true, false);
            source.execute("INSERT INTO items SELECT g, 'row ' || g FROM generate_series(521, 540) g");
            readUntil(reader, seen, 540);
            // Whatever a restart would send twice would come now.
            reader.poll(Duration.ofSeconds(5)).forEach(r -> count(r, seen));
            assertThat(seen).hasSize(540).allSatisfy((id, times) -> assertThat(times).as("row %d", id).isEqualTo(1));
            connect.embedded().deleteConnector("eos-source");
        }
    }

    private static void readUntil(KafkaConsumer<byte[], byte[]> reader, Map<Integer, Integer> seen, int rows) {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (seen.size() < rows) {
            assertThat(System.nanoTime()).as("%d rows read within 120 s, %d so far", rows, seen.size()).isLessThan(deadline);
            reader.poll(Duration.ofMillis(500)).forEach(r -> count(r, seen));
        }
    }

    private static final JsonConverter VALUES = new JsonConverter();

    static {
        VALUES.configure(Map.of("schemas.enable", "true"), false);
    }

    private static void count(ConsumerRecord<byte[], byte[]> r, Map<Integer, Integer> seen) {
        if (r.value() == null) {
            return;
        }
        Object value = VALUES.toConnectData(r.topic(), r.value()).value();
        if (value instanceof Struct envelope && envelope.schema().field("after") != null && envelope.getStruct("after") != null) {
            seen.merge(envelope.getStruct("after").getInt32("id"), 1, Integer::sum);
        }
    }
}
