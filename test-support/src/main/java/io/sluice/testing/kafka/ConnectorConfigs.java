package io.sluice.testing.kafka;

import java.util.HashMap;
import java.util.Map;

import io.sluice.testing.postgres.TestDatabase;

/** Connector configurations as a Connect user writes them, for tests that create connectors through a worker. */
public final class ConnectorConfigs {

    private ConnectorConfigs() {
    }

    /**
     * Sluice's source connector on a test database, one task, topics created by the worker with
     * one partition, JSON with schemas; the map is the caller's to add to.
     */
    public static Map<String, String> source(TestDatabase database, String topicPrefix, String tables) {
        Map<String, String> config = new HashMap<>(database.sourceConnection());
        config.put("connector.class", "io.sluice.connector.postgres.PostgresSourceConnector");
        config.put("tasks.max", "1");
        config.put("topic.prefix", topicPrefix);
        config.put("table.include.list", tables);
        config.put("topic.creation.default.replication.factor", "1");
        config.put("topic.creation.default.partitions", "1");
        config.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        return config;
    }

    /**
     * The source writing ordering barriers into topics it creates with {@code partitions}
     * partitions, for a Sluice sink on a cluster.
     */
    public static Map<String, String> sourceWithBarriers(TestDatabase database, String topicPrefix, String tables, int partitions) {
        Map<String, String> config = source(database, topicPrefix, tables);
        config.put("topic.creation.default.partitions", String.valueOf(partitions));
        config.put("barriers.topic.partitions", String.valueOf(partitions));
        return config;
    }

    /**
     * The sink reading every topic of a source's prefix (its schema-change topic too), finding new
     * topics within a second rather than the consumer's default five minutes: topics appear as the
     * source first writes to them.
     */
    public static Map<String, String> sinkOfPrefix(TestDatabase target, String topicPrefix, int tasks) {
        Map<String, String> config = sink(target, tasks);
        config.put("topics.regex", java.util.regex.Pattern.quote(topicPrefix) + "\\..*");
        config.put("consumer.override.metadata.max.age.ms", "1000");
        return config;
    }

    /**
     * Sluice's PostgreSQL sink into a test database, JSON with schemas, changes applied as they
     * come; the caller adds {@code topics} or {@code topics.regex}.
     */
    public static Map<String, String> sink(TestDatabase target, int tasks) {
        Map<String, String> config = new HashMap<>();
        config.put("connector.class", "io.sluice.sink.postgres.PostgresSinkConnector");
        config.put("tasks.max", String.valueOf(tasks));
        config.put("connection.url", "postgres://" + target.host() + ":" + target.port() + "/" + target.name() + "?sslmode=disable");
        config.put("connection.username", target.user());
        config.put("connection.password", target.password());
        config.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        config.put("apply.max.delay.ms", "10");
        return config;
    }
}
