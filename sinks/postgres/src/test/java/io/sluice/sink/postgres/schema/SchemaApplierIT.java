package io.sluice.sink.postgres.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.sink.postgres.state.SnapshotRecords;
import io.sluice.sink.postgres.state.SnapshotClaims;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pre-data schema goes to the target as one string (one round trip for all its objects):
 * every object is created and claimed; when one fails, nothing is left behind and the error
 * names that object and its statement; the check for tables already there finds them all in
 * one query, in the order of the load.
 */
@ExtendWith(PostgresExtension.class)
class SchemaApplierIT {

    private static final String PREAMBLE = """
            SET statement_timeout = 0;
            SET client_encoding = 'UTF8';
            SELECT pg_catalog.set_config('search_path', '', false);

            """;

    private TestDatabase target;
    private SchemaApplier applier;
    private final SnapshotClaims claims = new SnapshotClaims("sluice");

    @BeforeEach
    void start() throws Exception {
        target = TestDatabases.create(SchemaApplierIT.class);
        applier = new SchemaApplier(PgEndpoint.parse(target.url()), 2, "64MB", true);
    }

    @AfterEach
    void stop() throws Exception {
        applier.close();
        TestDatabases.drop(target);
    }

    @Test
    void createsEveryObjectAndClaimsTheTables() throws Exception {
        List<String[]> tables = tables(30);
        assertThat(applier.applyPreData(script(tables, -1), tables, ExistingTables.FAIL, claims, "src")).isTrue();

        assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'app'")).isEqualTo(30);
        assertThat(target.queryLong("SELECT count(*) FROM pg_type WHERE typname = 'mood'")).isEqualTo(1);
        assertThat(target.queryText("SELECT array_length(tables, 1) FROM sluice.snapshot_claims WHERE source = 'src'")).isEqualTo("30");
        // The preamble's search_path held for every statement: the tables are where their qualified names say.
        assertThat(target.queryText("SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                + "WHERE attrelid = 'app.t17'::regclass AND attname = 'feeling'")).isEqualTo("app.mood");
    }

    @Test
    void theStartIsRecordedWithTheTablesItCreatesAndNotWithoutThem() throws Exception {
        SnapshotRecords records = new SnapshotRecords("sluice");
        List<String[]> tables = tables(3);
        SchemaApplier.SnapshotMark mark = new SchemaApplier.SnapshotMark("src", "shop", 1_700_000_000_000_000L,
                List.of("\"app\".\"t0\"", "\"app\".\"t1\"", "\"app\".\"t2\""), List.of("\"app\".\"t0\"", "\"app\".\"t1\"", "\"app\".\"t2\""));
        assertThatThrownBy(() -> applier.applyPreData(script(tables, 1), tables, ExistingTables.FAIL, claims, "src", records, mark))
                .isInstanceOf(ConnectException.class);
        assertThat(target.queryLong("SELECT count(*) FROM pg_namespace WHERE nspname IN ('app', 'sluice')")).as("nothing recorded").isZero();

        assertThat(applier.applyPreData(script(tables, -1), tables, ExistingTables.FAIL, claims, "src", records, mark)).isTrue();
        assertThat(target.queryText("SELECT source_database || ' ' || array_length(target_tables, 1) || ' ' || (finished_at IS NULL) "
                + "FROM sluice.snapshots WHERE source = 'src' AND started_at IS NOT NULL")).isEqualTo("shop 3 true");
        assertThat(target.queryText("SELECT array_length(tables, 1) FROM sluice.snapshot_claims WHERE source = 'src'")).isEqualTo("3");
        try (java.sql.Connection c = target.connect()) {
            assertThat(records.read(c, "src")).hasValueSatisfying(s -> {
                assertThat(s.takenAt().toInstant().getEpochSecond()).isEqualTo(1_700_000_000L);
                assertThat(s.finished()).isFalse();
            });
        }
    }

    @Test
    void theFinishReleasesTheClaimAndTheLastClaimTakesItsTable() throws Exception {
        SnapshotRecords records = new SnapshotRecords("sluice");
        List<String[]> first = List.<String[]>of(new String[] {"app", "a"});
        List<String[]> second = List.<String[]>of(new String[] {"app", "b"});
        SchemaApplier.SnapshotMark one = new SchemaApplier.SnapshotMark("it's one", "shop", 1_700_000_000_000_000L, List.of("\"app\".\"a\""),
                List.of("\"app\".\"a\""));
        SchemaApplier.SnapshotMark two = new SchemaApplier.SnapshotMark("two", "shop", 1_700_000_000_000_000L, List.of("\"app\".\"b\""),
                List.of("\"app\".\"b\""));
        applier.applyPreData(PREAMBLE + entry("SCHEMA", "app", "-", "CREATE SCHEMA app;") + entry("TABLE", "a", "app",
                "CREATE TABLE app.a (id int);"), first, ExistingTables.FAIL, claims, "it's one", records, one);
        applier.applyPreData(PREAMBLE + entry("TABLE", "b", "app", "CREATE TABLE app.b (id int);"), second, ExistingTables.FAIL,
                claims, "two", records, two);

        applier.snapshotFinished(claims, records, one);
        assertThat(target.queryText("SELECT string_agg(source, ',') FROM sluice.snapshot_claims")).as("the other claim stays").isEqualTo("two");
        assertThat(target.queryText("SELECT string_agg(source, ',' ORDER BY source) FROM sluice.snapshots WHERE finished_at IS NOT NULL"))
                .isEqualTo("it's one");

        applier.snapshotFinished(claims, records, two);
        assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'sluice' AND tablename = 'snapshot_claims'"))
                .as("the last claim took its table").isZero();
        assertThat(target.queryLong("SELECT count(*) FROM sluice.snapshots WHERE finished_at IS NOT NULL")).isEqualTo(2);

        // Without the table (tables loaded that were there before: nothing claimed), the finish records and releases nothing.
        applier.snapshotFinished(claims, records, one);
        assertThat(target.queryLong("SELECT count(*) FROM sluice.snapshots WHERE finished_at IS NOT NULL")).isEqualTo(2);
    }

    @Test
    void aFailingObjectLeavesNothingAndIsNamed() throws Exception {
        List<String[]> tables = tables(12);
        assertThatThrownBy(() -> applier.applyPreData(script(tables, 7), tables, ExistingTables.FAIL, claims, "src"))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("Creating TABLE t7 (schema app)")
                .hasMessageContaining("no_such_type");

        assertThat(target.queryLong("SELECT count(*) FROM pg_namespace WHERE nspname IN ('app', 'sluice')")).isZero();
    }

    @Test
    void tablesAlreadyThereAreFoundAllAtOnceInLoadOrder() throws Exception {
        target.execute("CREATE SCHEMA app", "CREATE TABLE app.t9 (id int)", "CREATE TABLE app.t2 (id int)", "CREATE TABLE app.t5 (id int)");
        List<String[]> tables = tables(10);

        assertThatThrownBy(() -> applier.applyPreData(script(tables, -1), tables, ExistingTables.FAIL, claims, "src"))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("already has 3 of the tables to load: \"app\".\"t2\", \"app\".\"t5\", \"app\".\"t9\"");
        assertThatThrownBy(() -> applier.applyPreData(script(tables, -1), tables, ExistingTables.APPEND, claims, "src"))
                .hasMessageContaining("has 3 of the 10 tables to load");
        assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'app'")).isEqualTo(3);
    }

    @Test
    void releasingTheLastClaimDropsTheClaimsTable() throws Exception {
        List<String[]> first = List.<String[]>of(new String[] {"app", "a"});
        List<String[]> second = List.<String[]>of(new String[] {"app", "b"});
        applier.applyPreData(PREAMBLE + entry("SCHEMA", "app", "-", "CREATE SCHEMA app;")
                + entry("TABLE", "a", "app", "CREATE TABLE app.a (id int);"), first, ExistingTables.FAIL, claims, "one");
        applier.applyPreData(PREAMBLE + entry("TABLE", "b", "app", "CREATE TABLE app.b (id int);"), second, ExistingTables.FAIL,
                claims, "two");

        SnapshotRecords records = new SnapshotRecords("sluice");
        applier.snapshotFinished(claims, records, mark("one", "a"));
        assertThat(target.queryText("SELECT string_agg(source, ',') FROM sluice.snapshot_claims")).isEqualTo("two");
        applier.snapshotFinished(claims, records, mark("two", "b"));
        assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'sluice' AND tablename = 'snapshot_claims'")).isZero();
        applier.snapshotFinished(claims, records, mark("two", "b")); // nothing left to release
        // What stays is the record of both finished snapshots, with their tables.
        assertThat(target.queryText("SELECT string_agg(source || ' ' || array_to_string(target_tables, ';') || ' ' || (finished_at IS NOT NULL), "
                + "', ' ORDER BY source) FROM sluice.snapshots")).isEqualTo("one \"app\".\"a\" true, two \"app\".\"b\" true");
    }

    @Test
    void foreignKeysEndAsTheSourceHadThemAndOneTheRowsBreakIsNamed() throws Exception {
        target.execute("CREATE SCHEMA app",
                "CREATE TABLE app.accounts (id int PRIMARY KEY)",
                "INSERT INTO app.accounts SELECT generate_series(1, 1000)",
                "CREATE TABLE app.orders (id int PRIMARY KEY, account int, \"Referee\" int)",
                "INSERT INTO app.orders SELECT g, g, g % 10 + 1 FROM generate_series(1, 500) g",
                "CREATE TABLE app.events (id int, at date) PARTITION BY RANGE (at)",
                "CREATE TABLE app.events_1 PARTITION OF app.events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
                "INSERT INTO app.events SELECT g, DATE '2024-01-01' + g % 300 FROM generate_series(1, 200) g",
                "CREATE TABLE app.notes (id int, account int)",
                "INSERT INTO app.notes VALUES (1, 5000)");
        String keys = PREAMBLE
                + entry("FK CONSTRAINT", "orders orders_account_fkey", "app",
                        "ALTER TABLE ONLY app.orders\n    ADD CONSTRAINT orders_account_fkey FOREIGN KEY (account) REFERENCES app.accounts(id);")
                + entry("FK CONSTRAINT", "orders \"Refers to \"\"an\"\" account\"", "app", "ALTER TABLE ONLY app.orders\n    ADD CONSTRAINT "
                        + "\"Refers to \"\"an\"\" account\" FOREIGN KEY (\"Referee\") REFERENCES app.accounts(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED;")
                + entry("FK CONSTRAINT", "events events_account", "app",
                        "ALTER TABLE app.events\n    ADD CONSTRAINT events_account FOREIGN KEY (id) REFERENCES app.accounts(id);")
                + entry("FK CONSTRAINT", "notes notes_account", "app",
                        "ALTER TABLE ONLY app.notes\n    ADD CONSTRAINT notes_account FOREIGN KEY (account) REFERENCES app.accounts(id) NOT VALID;");

        applier.applyPostData(keys, List.of(), false);

        assertThat(target.queryText("SELECT string_agg(conrelid::regclass::text || ' ' || conname || ' ' || convalidated || ' ' "
                + "|| pg_get_constraintdef(oid), '; ' ORDER BY conrelid::regclass::text, conname) FROM pg_constraint WHERE contype = 'f'"))
                .isEqualTo("app.events events_account true FOREIGN KEY (id) REFERENCES app.accounts(id); "
                        + "app.events_1 events_account true FOREIGN KEY (id) REFERENCES app.accounts(id); "
                        + "app.notes notes_account false FOREIGN KEY (account) REFERENCES app.accounts(id) NOT VALID; "
                        + "app.orders Refers to \"an\" account true FOREIGN KEY (\"Referee\") REFERENCES app.accounts(id) ON DELETE CASCADE "
                        + "DEFERRABLE INITIALLY DEFERRED; "
                        + "app.orders orders_account_fkey true FOREIGN KEY (account) REFERENCES app.accounts(id)");

        // Loaded again into the keys that are there (table.exists=truncate): kept, and checked.
        applier.applyPostData(keys, List.of(), true);
        assertThat(target.queryLong("SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND convalidated")).isEqualTo(4);

        assertThatThrownBy(() -> applier.applyPostData(PREAMBLE + entry("FK CONSTRAINT", "notes notes_strict", "app",
                "ALTER TABLE ONLY app.notes\n    ADD CONSTRAINT notes_strict FOREIGN KEY (account) REFERENCES app.accounts(id);"), List.of(), false))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("FK CONSTRAINT notes notes_strict (schema app)")
                .hasMessageContaining("violates foreign key constraint \"notes_strict\"");
    }

    private static SchemaApplier.SnapshotMark mark(String source, String table) {
        return new SchemaApplier.SnapshotMark(source, "src", 1_700_000_000_000_000L, List.of("\"app\".\"" + table + "\""),
                List.of("\"app\".\"" + table + "\""));
    }

    private static List<String[]> tables(int count) {
        List<String[]> tables = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tables.add(new String[] {"app", "t" + i});
        }
        return tables;
    }

    /** A pg_dump-like script: a schema, an enum and the tables; {@code broken} names a table whose type does not exist. */
    private static String script(List<String[]> tables, int broken) {
        StringBuilder script = new StringBuilder(PREAMBLE);
        script.append(entry("SCHEMA", "app", "-", "CREATE SCHEMA app;"));
        script.append(entry("TYPE", "mood", "app", "CREATE TYPE app.mood AS ENUM ('calm', 'busy');"));
        for (int i = 0; i < tables.size(); i++) {
            String type = i == broken ? "app.no_such_type" : "app.mood";
            script.append(entry("TABLE", tables.get(i)[1], "app", "CREATE TABLE app." + tables.get(i)[1]
                    + " (\n    id bigint NOT NULL,\n    feeling " + type + "\n);"));
        }
        return script.toString();
    }

    private static String entry(String type, String name, String schema, String sql) {
        return "--\n-- Name: " + name + "; Type: " + type + "; Schema: " + schema + "; Owner: -\n--\n\n" + sql + "\n\n\n";
    }
}
