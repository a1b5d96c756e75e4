package io.sluice.connector.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.offsets.ServerPartition;
import io.sluice.connector.postgres.ddl.DdlCapture;
import io.sluice.connector.postgres.snapshot.SnapshotRun;
import io.sluice.testing.Ports;
import io.sluice.testing.kafka.ConfigErrors;
import io.sluice.testing.kafka.SourceTaskContexts;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(PostgresExtension.class)
class PostgresSourceConnectorIT {

    @BeforeAll
    static void data(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE items (id int PRIMARY KEY, name text)", "INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 300) g");
    }

    private static Map<String, String> config(TestDatabase db) {
        Map<String, String> props = db.sourceConnection();
        props.put("topic.prefix", "shop");
        props.put("snapshot.mode", "initial_only");
        props.put("table.include.list", "public.*");
        return props;
    }

    private static Map<String, List<String>> errors(Config config) {
        return ConfigErrors.byKey(config);
    }

    @Test
    void validConfigurationValidatesClean(TestDatabase db) {
        assertThat(errors(new PostgresSourceConnector().validate(config(db)))).isEmpty();
    }

    @Test
    void allMalformedKeysAreReportedAtOnce(TestDatabase db) {
        Map<String, String> props = config(db);
        props.remove("database.hostname");
        props.put("database.port", "99999");
        props.put("topic.prefix", "bad prefix!");
        props.put("table.include.list", "no_schema_here");
        props.put("numeric.mapping", "approximate");
        assertThat(errors(new PostgresSourceConnector().validate(props)).keySet()).containsExactlyInAnyOrder(
                "database.hostname", "database.port", "topic.prefix", "table.include.list", "numeric.mapping");
    }

    @Test
    void wrongPasswordNamesTheUser(TestDatabase db) {
        Map<String, String> props = config(db);
        props.put("database.password", "not-the-password");
        assertThat(errors(new PostgresSourceConnector().validate(props)).get("database.hostname"))
                .singleElement().asString().contains("rejected the password of user " + db.user());
    }

    @Test
    void missingDatabaseIsNamed(TestDatabase db) {
        Map<String, String> props = config(db);
        props.put("database.dbname", "no_such_db");
        assertThat(errors(new PostgresSourceConnector().validate(props)).get("database.hostname"))
                .singleElement().asString().contains("Database no_such_db does not exist");
    }

    @Test
    void unreachableServerNamesHostAndPort(TestDatabase db) {
        Map<String, String> props = config(db);
        int closed = Ports.freeLoopbackPort();
        props.put("database.port", Integer.toString(closed));
        assertThat(errors(new PostgresSourceConnector().validate(props)).get("database.hostname"))
                .singleElement().asString().contains("Cannot reach PostgreSQL at " + db.host() + ":" + closed);
    }

    @Test
    void patternsMatchingNothingAreReportedOnTheIncludeList(TestDatabase db) {
        Map<String, String> props = config(db);
        props.put("table.include.list", "warehouse.*");
        assertThat(errors(new PostgresSourceConnector().validate(props)).get("table.include.list"))
                .singleElement().asString().contains("warehouse.*").contains("public.items");
    }

    @Test
    void tablesTheUserCannotReadAreNamedWithTheGrantThatFixesIt(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE secret (id int)", "CREATE ROLE reader_no_secret LOGIN PASSWORD 'pw'",
                "GRANT SELECT ON items TO reader_no_secret");
        try {
            Map<String, String> props = config(db);
            props.put("database.user", "reader_no_secret");
            props.put("database.password", "pw");
            assertThat(errors(new PostgresSourceConnector().validate(props)).get("table.include.list")).singleElement().asString()
                    .contains("reader_no_secret lacks SELECT on 1 selected table(s)").contains("public.secret")
                    .contains("GRANT SELECT ON public.secret TO reader_no_secret").contains("table.exclude.list");
            props.put("table.exclude.list", "public.secret");
            assertThat(errors(new PostgresSourceConnector().validate(props))).isEmpty();
        } finally {
            db.execute("DROP TABLE secret", "REVOKE ALL ON items FROM reader_no_secret", "DROP ROLE reader_no_secret");
        }
    }

    @Test
    void streamingWithoutTheReplicationAttributeSaysWhichGrantFixesIt(TestDatabase db) throws Exception {
        db.execute("CREATE ROLE reader_no_replication LOGIN PASSWORD 'pw'", "GRANT SELECT ON items TO reader_no_replication");
        try {
            Map<String, String> props = config(db);
            props.put("database.user", "reader_no_replication");
            props.put("database.password", "pw");
            props.put("snapshot.mode", "initial");
            assertThat(errors(new PostgresSourceConnector().validate(props)).get("snapshot.mode")).singleElement().asString()
                    .contains("reader_no_replication may not stream changes").contains("ALTER ROLE reader_no_replication REPLICATION");
            props.put("snapshot.mode", "initial_only");
            assertThat(errors(new PostgresSourceConnector().validate(props))).isEmpty();
        } finally {
            db.execute("REVOKE ALL ON items FROM reader_no_replication", "DROP ROLE reader_no_replication");
        }
    }

    @Test
    void streamingAsAUserWhoMayNotInstallDdlCaptureNamesTheStatementThatDoes(TestDatabase db) throws Exception {
        db.execute("DROP EVENT TRIGGER IF EXISTS sluice_ddl_command_end", "DROP EVENT TRIGGER IF EXISTS sluice_sql_drop",
                "DROP SCHEMA IF EXISTS sluice_capture CASCADE", "CREATE ROLE ddl_replicator LOGIN REPLICATION PASSWORD 'pw'",
                "GRANT SELECT ON items TO ddl_replicator");
        try {
            Map<String, String> props = config(db);
            props.put("database.user", "ddl_replicator");
            props.put("database.password", "pw");
            props.put("snapshot.mode", "initial");
            assertThat(errors(new PostgresSourceConnector().validate(props))).containsOnlyKeys("ddl.capture");
            assertThat(errors(new PostgresSourceConnector().validate(props)).get("ddl.capture")).singleElement().asString()
                    .contains("ddl_replicator may not install them").contains("psql -d " + db.name() + " -v ON_ERROR_STOP=1 -f "
                            + "<plugin directory>/doc/sluice-ddl-capture.sql").contains("ddl.capture=false");
            props.put("ddl.capture", "false");
            assertThat(errors(new PostgresSourceConnector().validate(props))).as("streaming without, as the user chose").isEmpty();
            props.put("ddl.capture", "true");
            try (Connection superuser = db.connect()) {
                DdlCapture.install(superuser);
            }
            assertThat(errors(new PostgresSourceConnector().validate(props))).as("installed by a superuser").isEmpty();
        } finally {
            db.execute("REVOKE ALL ON items FROM ddl_replicator", "DROP ROLE ddl_replicator");
        }
    }

    @Test
    void aConfigProviderPlaceholderTheWorkerDidNotResolveIsNamedAsSuch(TestDatabase db) {
        Map<String, String> props = config(db);
        props.put("database.password", "${file:/etc/connect/secrets.properties:source.password}");
        props.put("transforms.anonymize.secret", "${env:ANONYMIZE_SECRET}");
        Map<String, List<String>> errors = errors(new PostgresSourceConnector().validate(props));
        assertThat(errors).containsOnlyKeys("database.password", "transforms.anonymize.secret");
        assertThat(errors.get("database.password")).singleElement().asString()
                .contains("${file:/etc/connect/secrets.properties:source.password} was not resolved")
                .contains("config.providers=file")
                .contains("config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider")
                .doesNotContain("password authentication");
        assertThat(errors.get("transforms.anonymize.secret")).singleElement().asString()
                .contains("config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider");
    }

    @Test
    void aSlotNamePostgresWouldRefuseIsReported(TestDatabase db) {
        Map<String, String> props = config(db);
        props.put("slot.name", "Has-Capitals");
        assertThat(errors(new PostgresSourceConnector().validate(props)).get("slot.name")).singleElement().asString()
                .contains("lower-case letters, digits and underscores");
    }

    @Test
    void taskSnapshotsThroughTheConnectApiAndThenIdles(TestDatabase db) throws Exception {
        PostgresSourceConnector connector = new PostgresSourceConnector();
        connector.start(config(db));
        List<Map<String, String>> taskConfigs = connector.taskConfigs(4);
        assertThat(taskConfigs).hasSize(1);

        PostgresSourceTask task = new PostgresSourceTask();
        task.initialize(SourceTaskContexts.withOffsets(Map.of()));
        task.start(taskConfigs.get(0));
        List<SourceRecord> records = new ArrayList<>();
        try {
            while (records.isEmpty() || !Boolean.TRUE.equals(records.get(records.size() - 1).sourceOffset().get(SnapshotRun.COMPLETED))) {
                List<SourceRecord> batch = task.poll();
                if (batch != null) {
                    records.addAll(batch);
                }
            }
            assertThat(task.poll()).isNull();
        } finally {
            task.stop();
            connector.stop();
        }
        // The pre-data schema, 300 rows, the table's own post-data (its key, built from an index),
        // then the rest of the post-data schema that ends the snapshot.
        assertThat(records).hasSize(303);
        assertThat(records.get(0).topic()).isEqualTo("shop.schema-changes");
        String preData = ((org.apache.kafka.connect.data.Struct) records.get(0).value()).getString("ddl");
        assertThat(preData).contains("CREATE TABLE public.items").doesNotContain("\\restrict");
        assertThat(records.subList(1, 301)).allSatisfy(r -> assertThat(r.topic()).isEqualTo("shop.public.items"));
        org.apache.kafka.connect.data.Struct tableDone = (org.apache.kafka.connect.data.Struct) records.get(301).value();
        assertThat(records.get(301).topic()).isEqualTo("shop.schema-changes");
        assertThat(tableDone.getStruct("source").getString("snapshot")).isEqualTo("last_in_data_collection");
        assertThat(tableDone.getStruct("source").getString("table")).isEqualTo("items");
        assertThat(tableDone.getString("ddl"))
                .contains("CREATE UNIQUE INDEX items_pkey ON public.items USING btree (id);")
                .contains("ADD CONSTRAINT \"items_pkey\" PRIMARY KEY USING INDEX \"items_pkey\";");
        String postData = ((org.apache.kafka.connect.data.Struct) records.get(302).value()).getString("ddl");
        assertThat(postData).doesNotContain("items_pkey");
    }

    @Test
    void taskWhoseSnapshotCompletedBeforeReadsNothing(TestDatabase db) throws Exception {
        PostgresSourceTask task = new PostgresSourceTask();
        task.initialize(SourceTaskContexts.withOffsets(Map.of(ServerPartition.of("shop"), Map.<String, Object>of(SnapshotRun.COMPLETED, true))));
        task.start(config(db));
        try {
            assertThat(task.poll()).isNull();
        } finally {
            task.stop();
        }
    }

    @Test
    void taskStartFailsWithTheExplanation(TestDatabase db) {
        Map<String, String> props = config(db);
        props.put("database.dbname", "no_such_db");
        PostgresSourceTask task = new PostgresSourceTask();
        task.initialize(SourceTaskContexts.withOffsets(Map.of()));
        assertThatThrownBy(() -> task.start(props)).isInstanceOf(ConnectException.class).hasMessageContaining("no_such_db");
    }
}
