package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sluice.schemas.converter.BinaryConverter;
import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.kafka.ConnectorConfigs;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.runtime.rest.entities.ConnectorStateInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A new user's pipeline on one worker with Connect's default offset flush interval (a minute),
 * the source read by a user that is not a superuser, so its DDL is not captured, and the sink
 * with a dead-letter queue as docs/connect.md sets it. Columns added on the source mid-stream
 * reach the target with the first rows that carry them, and no good change goes to the
 * dead-letter queue; a change the target cannot take stops the sink's task with the reason,
 * unless the user chose to divert such changes, and then they are counted. A single row
 * written at idle reaches the target within a second (median of five), whatever the flush interval. A sink set to
 * another converter than the source wrote with stops, or, tolerating errors, says so at WARN.
 */
@ExtendWith(PostgresExtension.class)
class SchemaDriftOnConnectIT {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaDriftOnConnectIT.class);
    private static final String SOURCE_USER = "drift_source";

    private static ConnectCluster connect;

    @BeforeAll
    static void start() {
        // Connect's own default, which the other tests shorten: the sink must not depend on it.
        connect = ConnectCluster.start("schema-drift", 1, Map.of("offset.flush.interval.ms", "60000"));
    }

    @AfterAll
    static void stop() {
        if (connect != null) {
            connect.close();
        }
    }

    @Test
    void columnsAddedWithoutDdlCaptureArriveAndASingleRowAtIdleWithinASecond() throws Exception {
        TestDatabases.withSourceAndTarget(SchemaDriftOnConnectIT.class, (source, target) -> {
            sourceTables(source, "CREATE TABLE orders (id int PRIMARY KEY, amount int NOT NULL, note varchar(20))",
                    "INSERT INTO orders SELECT g, g * 10, 'order ' || g FROM generate_series(1, 500) g",
                    "CREATE TABLE items (id int PRIMARY KEY, name text)",
                    "INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 200) g");
            createPipeline("drift", source, target, Map.of());
            target.awaitChecksumOf(source, "public.orders", Duration.ofSeconds(120));
            target.awaitChecksumOf(source, "public.items", Duration.ofSeconds(60));

            // Idle for longer than the apply delay, then one row at a time.
            List<Long> millis = new ArrayList<>();
            for (int id = 1001; id <= 1005; id++) {
                Thread.sleep(2000);
                long start = System.nanoTime();
                source.execute("INSERT INTO items VALUES (" + id + ", 'single')");
                awaitCount(target, "items WHERE id = " + id, 1, Duration.ofSeconds(90));
                millis.add((System.nanoTime() - start) / 1_000_000);
            }
            LOG.info("Commit on the source to visible on the target, one row at idle: {} ms", millis);
            // The median holds the promise; each single row is only held far below the flush interval it must not wait
            // for, since one sample on a shared two-core machine can lose a second to the scheduler alone.
            List<Long> sorted = millis.stream().sorted().toList();
            assertThat(sorted.get(sorted.size() / 2)).as("median ms from the source's commit to the row on the target, of %s", millis)
                    .isLessThan(1000);
            assertThat(millis).as("ms from the source's commit to the row on the target").allSatisfy(ms -> assertThat(ms).isLessThan(10_000));

            source.execute("ALTER TABLE orders ADD COLUMN status text NOT NULL DEFAULT 'new'",
                    "ALTER TABLE items ADD COLUMN touched_at timestamptz, ADD COLUMN tags varchar(10)[], ADD COLUMN price numeric(8,2)",
                    "UPDATE orders SET status = 'paid', amount = amount + 1 WHERE id <= 100",
                    "INSERT INTO orders (id, amount) VALUES (501, 5)",
                    "UPDATE items SET touched_at = '2026-11-25 12:00:00+01', tags = '{a,NULL,b}', price = 12.5 WHERE id <= 50",
                    "INSERT INTO items VALUES (2001, 'new', '-infinity', '{}', 'NaN')",
                    "INSERT INTO orders VALUES (502, 7, 'last', 'shipped')");
            String changedOrders = "(SELECT id, amount, note, status FROM public.orders WHERE id <= 100 OR id > 500)";
            target.awaitChecksumOf(source, changedOrders, Duration.ofSeconds(120));
            target.awaitChecksumOf(source, "public.items", Duration.ofSeconds(60));
            assertThat(target.queryText(columns("orders"))).isEqualTo("id integer NO,amount integer NO,note character varying(20) YES,"
                    + "status text YES");
            assertThat(target.queryText(columns("items"))).isEqualTo("id integer NO,name text YES,touched_at timestamp with time zone YES,"
                    + "tags text[] YES,price numeric(8,2) YES");
            assertThat(target.queryLong("SELECT count(*) FROM orders WHERE status IS NULL"))
                    .as("rows the source did not change since: no default is known without DDL capture").isEqualTo(400);
            assertThat(connect.recordsIn("drift-dead-letters")).as("records in the dead-letter queue").isZero();
            assertRunning("drift-sink");
            deletePipeline("drift");
        });
    }

    @Test
    void aChangeTheTargetCannotTakeStopsTheTaskUnlessTheUserChoseToDivertIt() throws Exception {
        TestDatabases.withSourceAndTarget(SchemaDriftOnConnectIT.class, (source, target) -> {
            sourceTables(source, "CREATE TABLE orders (id int PRIMARY KEY, amount int NOT NULL)",
                    "INSERT INTO orders SELECT g, g FROM generate_series(1, 10) g");
            createPipeline("mismatch", source, target, Map.of());
            target.awaitChecksumOf(source, "public.orders", Duration.ofSeconds(120));

            // Text that still reads as a number goes in; the next does not fit the target's integer column.
            source.execute("ALTER TABLE orders ALTER COLUMN amount TYPE text", "UPDATE orders SET amount = '42' WHERE id = 1",
                    "UPDATE orders SET amount = 'lots' WHERE id = 2", "UPDATE orders SET amount = '43' WHERE id = 3");
            awaitTaskState("mismatch-sink", "FAILED");
            String trace = connect.embedded().connectorStatus("mismatch-sink").tasks().get(0).trace();
            assertThat(trace).contains("public.orders").contains("amount").contains("lots").contains("schema.mismatch.action=dead_letter");
            assertThat(target.queryLong("SELECT amount FROM orders WHERE id = 1")).isEqualTo(42);
            assertThat(target.queryLong("SELECT amount FROM orders WHERE id = 3")).as("nothing after the change it stopped at")
                    .isEqualTo(3);
            assertThat(connect.recordsIn("mismatch-dead-letters")).isZero();

            Map<String, String> divert = sinkConfig("mismatch", target);
            divert.put("schema.mismatch.action", "dead_letter");
            connect.embedded().configureConnector("mismatch-sink", divert);
            connect.embedded().restartConnectorAndTasks("mismatch-sink", false, true, false);
            awaitCount(target, "orders WHERE id = 3 AND amount = 43", 1, Duration.ofSeconds(60));
            assertThat(connect.recordsIn("mismatch-dead-letters")).isEqualTo(1);
            assertThat(target.queryLong("SELECT amount FROM orders WHERE id = 2")).isEqualTo(2);
            assertRunning("mismatch-sink");
            assertThat(deadLetterMetric("mismatch-sink")).as("metric dead-letter-records").isEqualTo(1);
            deletePipeline("mismatch");
        });
    }

    @Test
    void aSinkReadingWithAnotherConverterThanTheSourceWroteWithSaysSoInsteadOfDivertingQuietly() throws Exception {
        TestDatabases.withSourceAndTarget(SchemaDriftOnConnectIT.class, (source, target) -> {
            sourceTables(source, "CREATE TABLE orders (id int PRIMARY KEY, amount int NOT NULL)",
                    "INSERT INTO orders SELECT g, g FROM generate_series(1, 10) g");
            ListAppender<ILoggingEvent> said = new ListAppender<>();
            said.start();
            ch.qos.logback.classic.Logger converterLog = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(BinaryConverter.class);
            converterLog.addAppender(said);
            try {
                // The source writes JSON (ConnectorConfigs' default); the sink reads with Sluice's binary converter.
                Map<String, String> sink = sinkConfig("wrongconv", target);
                sink.put("key.converter", BinaryConverter.class.getName());
                sink.put("value.converter", BinaryConverter.class.getName());
                sink.put("errors.tolerance", "none");
                createSource("wrongconv", source, Map.of());
                connect.embedded().configureConnector("wrongconv-sink", sink);
                awaitTaskState("wrongconv-sink", "FAILED");
                String trace = connect.embedded().connectorStatus("wrongconv-sink").tasks().get(0).trace();
                assertThat(trace).contains("wrongconv.").contains("looks like JSON").contains("value.converter");

                // With errors.tolerance=all Connect diverts them to the queue; the converter says so at WARN, naming the topic.
                sink.put("errors.tolerance", "all");
                connect.embedded().configureConnector("wrongconv-sink", sink);
                connect.embedded().restartConnectorAndTasks("wrongconv-sink", false, true, false);
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (connect.recordsIn("wrongconv-dead-letters") == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                assertThat(connect.recordsIn("wrongconv-dead-letters")).as("records in the dead-letter queue").isPositive();
                assertThat(said.list).filteredOn(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage)
                        .anySatisfy(m -> assertThat(m).contains("wrongconv.").contains("looks like JSON").contains("dead-letter queue"));
                deletePipeline("wrongconv");
            } finally {
                converterLog.detachAppender(said);
            }
        });
    }

    /** Tables owned by the source user, who may replicate and create a publication for them, and nothing more. */
    private static void sourceTables(TestDatabase source, String... statements) throws Exception {
        source.execute("DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + SOURCE_USER + "') THEN CREATE ROLE "
                + SOURCE_USER + " LOGIN REPLICATION PASSWORD 'pw'; END IF; END$$", "GRANT CREATE ON DATABASE " + source.name() + " TO "
                + SOURCE_USER);
        source.execute(statements);
        for (String table : List.of("orders", "items")) {
            source.execute("DO $$BEGIN IF to_regclass('public." + table + "') IS NOT NULL THEN ALTER TABLE public." + table + " OWNER TO "
                    + SOURCE_USER + "; END IF; END$$");
        }
    }

    private static void createPipeline(String name, TestDatabase source, TestDatabase target, Map<String, String> extra) {
        createSource(name, source, extra);
        connect.embedded().configureConnector(name + "-sink", sinkConfig(name, target));
    }

    private static void createSource(String name, TestDatabase source, Map<String, String> extra) {
        Map<String, String> config = ConnectorConfigs.sourceWithBarriers(source, name, "public.*", 1);
        config.put("database.user", SOURCE_USER);
        config.put("database.password", "pw");
        config.put("slot.name", name + "_slot");
        config.put("ddl.capture", "false");
        config.putAll(extra);
        connect.embedded().configureConnector(name + "-source", config);
    }

    private static Map<String, String> sinkConfig(String name, TestDatabase target) {
        Map<String, String> config = ConnectorConfigs.sinkOfPrefix(target, name, 1);
        config.remove("apply.max.delay.ms"); // its default, as a user has it
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", name + "-dead-letters");
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        return config;
    }

    private static void deletePipeline(String name) {
        connect.embedded().deleteConnector(name + "-sink");
        connect.embedded().deleteConnector(name + "-source");
    }

    private static String columns(String table) {
        return "SELECT string_agg(column_name || ' ' || data_type || CASE WHEN data_type = 'character varying' THEN '(' "
                + "|| character_maximum_length || ')' WHEN data_type = 'numeric' THEN '(' || numeric_precision || ',' || numeric_scale "
                + "|| ')' WHEN data_type = 'ARRAY' THEN '' ELSE '' END || ' ' || is_nullable, ',' ORDER BY ordinal_position) "
                + "FROM (SELECT c.column_name, CASE WHEN c.data_type = 'ARRAY' THEN format_type(a.atttypid, a.atttypmod) ELSE c.data_type "
                + "END AS data_type, c.character_maximum_length, c.numeric_precision, c.numeric_scale, c.is_nullable, c.ordinal_position "
                + "FROM information_schema.columns c JOIN pg_attribute a ON a.attrelid = ('public.' || c.table_name)::regclass "
                + "AND a.attname = c.column_name WHERE c.table_schema = 'public' AND c.table_name = '" + table + "') c";
    }

    /** The sink task's dead-letter-records plugin metric, as JMX shows it. */
    private static long deadLetterMetric(String connector) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> names = server.queryNames(new ObjectName("kafka.connect:type=plugins,connector=" + connector + ",*"), null);
        List<Long> values = new ArrayList<>();
        for (ObjectName name : names) {
            try {
                values.add(((Number) server.getAttribute(name, "dead-letter-records")).longValue());
            } catch (javax.management.AttributeNotFoundException e) {
                // another metric group of the task
            }
        }
        assertThat(values).as("the metric among %s", names.stream().map(ObjectName::toString).collect(Collectors.joining(", ")))
                .hasSize(1);
        return values.get(0);
    }

    private static void assertRunning(String connector) {
        ConnectorStateInfo status = connect.embedded().connectorStatus(connector);
        assertThat(status.connector().state()).isEqualTo("RUNNING");
        assertThat(status.tasks()).allSatisfy(t -> assertThat(t.state()).as("task %d: %s", t.id(), t.trace()).isEqualTo("RUNNING"));
    }

    private static void awaitTaskState(String connector, String state) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (true) {
            List<ConnectorStateInfo.TaskState> tasks;
            try {
                tasks = connect.embedded().connectorStatus(connector).tasks();
            } catch (org.apache.kafka.connect.runtime.rest.errors.ConnectRestException e) {
                tasks = List.of(); // just created: no status yet
            }
            if (!tasks.isEmpty() && tasks.stream().allMatch(t -> t.state().equals(state))) {
                return;
            }
            assertThat(System.nanoTime()).as("the tasks of %s %s within 90 s: %s", connector, state, tasks).isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    private static void awaitCount(TestDatabase db, String from, long expected, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            long count;
            try {
                count = db.queryLong("SELECT count(*) FROM " + from);
            } catch (java.sql.SQLException e) {
                count = -1;
            }
            if (count == expected) {
                return;
            }
            assertThat(System.nanoTime()).as("%d rows of %s within %s", expected, from, within).isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
