package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;

/**
 * The PostgreSQL sink on a real Kafka Connect worker, fed change events through Kafka topics
 * with the JSON converter. Its tasks read many topic partitions in no common order, so the
 * target keeps the Kafka offset after the last change of each partition, in the transaction of
 * the changes: a change older (by source position) than one already applied from another topic
 * is still applied, and records Connect delivers again (its committed offsets behind the
 * target's, as after a crash between the two commits) are not applied twice. A record it cannot
 * apply goes to the dead-letter queue with the reason in its headers, and the rest go on.
 */
@ExtendWith(PostgresExtension.class)
class SinkOnConnectIT {

    private static final String CONNECTOR = "sink-on-connect";
    private static final String A = "shop.public.a";
    private static final String B = "shop.public.b";
    private static final Schema ROW_A = row("shop.public.a.Value");
    private static final Schema ROW_B = row("shop.public.b.Value");
    private static final JsonConverter JSON = new JsonConverter();

    private static ConnectCluster cluster;

    @BeforeAll
    static void start() {
        JSON.configure(Map.of("schemas.enable", "true", "converter.type", "value"));
        cluster = ConnectCluster.start("sink-on-connect", 1);
        cluster.embedded().kafka().createTopic(A, 2);
        cluster.embedded().kafka().createTopic(B, 2);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void changesOfManyPartitionsAreAppliedOnceEachWhateverTheirOrder(TestDatabase target) throws Exception {
        target.execute("CREATE TABLE public.a (id int PRIMARY KEY, v text)", "CREATE TABLE public.b (id int PRIMARY KEY, v text)");
        produce(A, ROW_A, 0, 1, "a1", 300);
        Map<String, String> config = sinkConfig(target, A + "," + B);
        config.put("tasks.max", "2");
        cluster.embedded().configureConnector(CONNECTOR, config);
        awaitValue(target, "a", 1, "a1");

        // Older by source position than what is applied, from another topic: applied all the same.
        produce(B, ROW_B, 1, 1, "b1", 200);
        awaitValue(target, "b", 1, "b1");
        assertThat(offsetsOnTarget(target)).containsEntry(new TopicPartition(A, 0), 1L).containsEntry(new TopicPartition(B, 1), 1L);

        // Connect's committed offsets moved back to the start, as after a crash between the target's commit and Connect's:
        // the tasks resume where the target is, so the change is not applied again over the row's later state.
        cluster.embedded().stopConnector(CONNECTOR);
        awaitStopped();
        cluster.embedded().alterSinkConnectorOffset(CONNECTOR, new TopicPartition(A, 0), 0L);
        cluster.embedded().alterSinkConnectorOffset(CONNECTOR, new TopicPartition(B, 1), 0L);
        target.execute("UPDATE public.a SET v = 'changed on the target' WHERE id = 1", "UPDATE public.b SET v = 'changed on the target' WHERE id = 1");
        cluster.embedded().resumeConnector(CONNECTOR);
        produce(A, ROW_A, 0, 2, "a2", 400);
        produce(B, ROW_B, 1, 2, "b2", 410);
        awaitValue(target, "a", 2, "a2");
        awaitValue(target, "b", 2, "b2");
        assertThat(value(target, "a", 1)).isEqualTo("changed on the target");
        assertThat(value(target, "b", 1)).isEqualTo("changed on the target");
        assertThat(offsetsOnTarget(target)).containsEntry(new TopicPartition(A, 0), 2L).containsEntry(new TopicPartition(B, 1), 2L);
        cluster.embedded().deleteConnector(CONNECTOR);
    }

    @Test
    void changesASourceSendsAgainAreSkippedByTheirSourcePosition(TestDatabase target) throws Exception {
        // A table without a key: an insert applied twice would show as two rows.
        String topic = "again.public.k";
        cluster.embedded().kafka().createTopic(topic, 1);
        target.execute("CREATE TABLE public.k (id int, v text)");
        Schema row = row("again.public.k.Value");
        produce(topic, row, 0, 1, "first", 700);
        produce(topic, row, 0, 2, "second", 800);
        // A source that restarted before Connect committed its offsets (at least once) sends them again, then goes on.
        produce(topic, row, 0, 1, "first", 700);
        produce(topic, row, 0, 2, "second", 800);
        produce(topic, row, 0, 3, "third", 900);
        Map<String, String> config = sinkConfig(target, topic);
        cluster.embedded().configureConnector("sink-again", config);
        awaitValue(target, "k", 3, "third");
        assertThat(target.queryLong("SELECT count(*) FROM public.k")).isEqualTo(3);

        // Known after a restart too: the position is on the target with the offsets.
        cluster.embedded().restartConnectorAndTasks("sink-again", false, true, false);
        produce(topic, row, 0, 3, "third", 900);
        produce(topic, row, 0, 4, "fourth", 1000);
        awaitValue(target, "k", 4, "fourth");
        assertThat(target.queryLong("SELECT count(*) FROM public.k")).isEqualTo(4);
        assertThat(target.queryText("SELECT source_lsn::text || ' ' || source_event FROM sluice.kafka_offsets WHERE connector = 'sink-again'"))
                .isEqualTo(io.sluice.schemas.postgres.Lsn.format(1000) + " 1");
        cluster.embedded().deleteConnector("sink-again");
    }

    @Test
    void aRecordTheSinkCannotApplyGoesToTheDeadLetterQueueWithTheReason(TestDatabase target) throws Exception {
        String topic = "dlq.public.c";
        String deadLetters = "sluice-dead-letters";
        cluster.embedded().kafka().createTopic(topic, 1);
        // Qualified: the sink made a schema named like the test user (sluice), which comes first on the search path.
        target.execute("CREATE TABLE public.c (id int PRIMARY KEY, v text)");
        Schema row = row("dlq.public.c.Value");
        cluster.embedded().kafka().produce(topic, 0, null, "{\"schema\":{\"type\":\"string\"},\"payload\":\"not a change event\"}");
        produce(topic, row, 0, 1, "c1", 500);
        Map<String, String> config = sinkConfig(target, topic);
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", deadLetters);
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        cluster.embedded().configureConnector("sink-dlq", config);
        awaitValue(target, "c", 1, "c1");
        var dead = cluster.embedded().kafka().consume(1, 60_000, deadLetters);
        assertThat(dead.count()).isEqualTo(1);
        var record = dead.iterator().next();
        assertThat(new String(record.value(), StandardCharsets.UTF_8)).contains("not a change event");
        var reason = record.headers().lastHeader("__connect.errors.exception.message");
        assertThat(reason).as("the reason in the headers").isNotNull();
        assertThat(new String(reason.value(), StandardCharsets.UTF_8)).contains(topic).contains("no struct value");
        assertThat(new String(record.headers().lastHeader("__connect.errors.topic").value(), StandardCharsets.UTF_8)).isEqualTo(topic);
        cluster.embedded().deleteConnector("sink-dlq");
    }

    /** The sink on the test database, reading JSON with schemas, applying changes as they come. */
    private static Map<String, String> sinkConfig(TestDatabase target, String topics) {
        Map<String, String> config = new HashMap<>();
        config.put("connector.class", PostgresSinkConnector.class.getName());
        config.put("topics", topics);
        config.put("connection.url", "postgres://" + target.host() + ":" + target.port() + "/" + target.name() + "?sslmode=disable");
        config.put("connection.username", target.user());
        config.put("connection.password", target.password());
        config.put("key.converter", JsonConverter.class.getName());
        config.put("value.converter", JsonConverter.class.getName());
        config.put("apply.max.delay.ms", "10");
        return config;
    }

    private static Schema row(String name) {
        return SchemaBuilder.struct().name(name).optional().field("id", Schema.INT32_SCHEMA).field("v", Schema.OPTIONAL_STRING_SCHEMA).build();
    }

    /** An insert of one row, committed at {@code lsn}, into one partition of a table's topic. */
    private static void produce(String topic, Schema rowSchema, int partition, int id, String v, long lsn) {
        String table = topic.substring(topic.lastIndexOf('.') + 1);
        Schema envelopeSchema = Envelope.schema(topic, rowSchema);
        SourceInfo source = new SourceInfo("shop", "shop", "public", table, 1_700_000_000_000_000L, SourceInfo.Snapshot.FALSE, lsn, lsn, null);
        Struct value = Envelope.create(envelopeSchema, Operation.CREATE, null, new Struct(rowSchema).put("id", id).put("v", v), source,
                1_700_000_000_000_000L);
        value.put(Envelope.TRANSACTION, Envelope.transaction(lsn, lsn, 1, 1));
        Schema keySchema = SchemaBuilder.struct().name(topic + ".Key").field("id", Schema.INT32_SCHEMA).build();
        String key = new String(JSON.fromConnectData(topic, keySchema, new Struct(keySchema).put("id", id)), StandardCharsets.UTF_8);
        cluster.embedded().kafka().produce(topic, partition, key,
                new String(JSON.fromConnectData(topic, envelopeSchema, value), StandardCharsets.UTF_8));
    }

    private static void awaitValue(TestDatabase target, String table, int id, String expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!Objects.equals(value(target, table, id), expected)) {
            assertThat(System.nanoTime()).as("%s.%d = %s on the target within 60 s", table, id, expected).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    private static void awaitStopped() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!"STOPPED".equals(cluster.embedded().connectorStatus(CONNECTOR).connector().state())) {
            assertThat(System.nanoTime()).as("the connector stopped within 60 s").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    private static String value(TestDatabase target, String table, int id) throws Exception {
        try (Connection c = target.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT v FROM public." + table + " WHERE id = " + id)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private static Map<TopicPartition, Long> offsetsOnTarget(TestDatabase target) throws Exception {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        try (Connection c = target.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT topic, kafka_partition, next_offset FROM sluice.kafka_offsets WHERE connector = '"
                     + CONNECTOR + "'")) {
            while (rs.next()) {
                offsets.put(new TopicPartition(rs.getString(1), rs.getInt(2)), rs.getLong(3));
            }
        }
        return offsets;
    }
}
