package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * DDL on the source while it streams: each change reaches the target in its place among the
 * rows (rows written before it in the old shape, after it in the new one, also inside one
 * transaction), tables created under the include list are streamed from their first row,
 * excluded ones never appear, tables that join the selection with rows (created as a query's
 * result, renamed into it) are copied into the stream, and schema changes and copies streamed
 * again after a crash are not applied twice. Checked by ordered checksums, and by comparing columns and indexes in the catalogs.
 */
@ExtendWith(PostgresExtension.class)
class StreamDdlIT {

    @Test
    void schemaChangesApplyInOrderWithTheRows() throws Exception {
        onTwoDatabases(StreamDdlIT::run);
    }

    @Test
    void constraintsEnumLabelsConversionsAndPartitions() throws Exception {
        onTwoDatabases((source, target) -> runMore(source, target, false));
    }

    /**
     * The same with partitions published through their root, as a Kafka Connect cluster does by default: the rows carry
     * the root's name, and the partitions' own changes (created, detached, attached, dropped) still keep the target's tree.
     */
    @Test
    void partitionsPublishedThroughTheirRootKeepTheTargetsTree() throws Exception {
        onTwoDatabases((source, target) -> runMore(source, target, true));
    }

    @Test
    void domainsTypesViewsFunctionsAndTriggers() throws Exception {
        onTwoDatabases(StreamDdlIT::runObjects);
    }

    @FunctionalInterface
    private interface Scenario {
        void run(TestDatabase source, TestDatabase target) throws Exception;
    }

    private static void onTwoDatabases(Scenario scenario) throws Exception {
        TestDatabase source = TestDatabases.create(StreamDdlIT.class);
        TestDatabase target = TestDatabases.create(StreamDdlIT.class);
        try {
            scenario.run(source, target);
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static void run(TestDatabase source, TestDatabase target) throws Exception {
        source.execute("CREATE TABLE items (id int PRIMARY KEY, name text, qty int)",
                "INSERT INTO items SELECT g, 'item ' || g, g FROM generate_series(1, 100) g",
                "CREATE TABLE notes (id int PRIMARY KEY, body text)",
                "INSERT INTO notes VALUES (1, 'one'), (2, 'two')",
                "CREATE TABLE log (at int, line text)");
        long skipped = streamInTwoRuns(source, target, Map.of("topic.prefix", "ddl", "table.exclude.list", "public.skip_*"), List.of(
                    "ALTER TABLE items ADD COLUMN color text DEFAULT 'red'",
                    "INSERT INTO items VALUES (101, 'new', 1, 'blue')",
                    "UPDATE items SET color = 'green' WHERE id <= 10",
                    // Rows before and after a rename in one transaction.
                    "BEGIN; INSERT INTO items (id, name, qty) VALUES (102, 'x', 2); ALTER TABLE items RENAME COLUMN name TO title; "
                            + "INSERT INTO items (id, title, qty, color) VALUES (103, 'y', 3, 'pink'); COMMIT",
                    "ALTER TABLE items ALTER COLUMN qty TYPE bigint",
                    "UPDATE items SET qty = qty * 10000000000 WHERE id = 5",
                    "ALTER TABLE items DROP COLUMN color",
                    "UPDATE items SET qty = 1 WHERE id = 6",
                    "CREATE INDEX items_title ON items (title)",
                    "CREATE UNIQUE INDEX items_id_qty ON items (id, qty)",
                    "ALTER INDEX items_title RENAME TO items_title_idx",
                    // A new table, streamed from its creating transaction on.
                    "BEGIN; CREATE TABLE fresh (k text PRIMARY KEY, v int NOT NULL DEFAULT 0); INSERT INTO fresh VALUES ('a', 1); COMMIT",
                    "INSERT INTO fresh SELECT 'k' || g, g FROM generate_series(1, 50) g",
                    "UPDATE fresh SET v = v + 1",
                    "CREATE TABLE skip_me (id int PRIMARY KEY)",
                    "INSERT INTO skip_me VALUES (1)",
                    // Tables that join the selection with rows the stream never carried: copied into the stream.
                    "BEGIN; CREATE TABLE made AS SELECT g AS id, 'v' || g AS v FROM generate_series(1, 500) g; "
                            + "INSERT INTO made VALUES (501, 'same transaction'); COMMIT",
                    "INSERT INTO made VALUES (502, 'after')",
                    "ALTER TABLE made ADD PRIMARY KEY (id)",
                    "UPDATE made SET v = 'changed' WHERE id <= 10",
                    "CREATE TABLE skip_old AS SELECT g AS id, md5(g::text) AS h FROM generate_series(1, 300) g",
                    "ALTER TABLE skip_old RENAME TO joined",
                    "INSERT INTO joined VALUES (301, 'after the rename')",
                    "INSERT INTO log VALUES (-1, 'end of part one')"), List.of(
                    "DROP INDEX items_id_qty",
                    "ALTER TABLE notes RENAME TO memos",
                    "INSERT INTO memos VALUES (3, 'three')",
                    "ALTER TABLE memos ADD COLUMN extra int NOT NULL DEFAULT 7",
                    "UPDATE memos SET extra = 8 WHERE id = 1",
                    "CREATE TABLE doomed (id int PRIMARY KEY)",
                    "INSERT INTO doomed VALUES (1)",
                    "DROP TABLE doomed",
                    "ALTER TABLE fresh DROP CONSTRAINT fresh_pkey",
                    "ALTER TABLE fresh ADD CONSTRAINT fresh_pkey PRIMARY KEY (k, v)",
                    "INSERT INTO fresh VALUES ('a', 100)",
                    "INSERT INTO log VALUES (-2, 'end')"));
        assertThat(skipped).as("changes streamed again and skipped").isPositive();
        for (String table : List.of("items", "memos", "fresh", "log", "made", "joined")) {
            assertThat(target.checksum(table)).as(table).isEqualTo(source.checksum(table));
        }
        for (String table : List.of("items", "memos", "fresh")) {
            assertThat(target.queryText(columns(table))).as("columns of " + table).isEqualTo(source.queryText(columns(table)));
            assertThat(target.queryText(indexes(table))).as("indexes of " + table).isEqualTo(source.queryText(indexes(table)));
        }
        assertThat(target.queryLong("SELECT count(*) FROM pg_class WHERE relname IN ('skip_me', 'doomed', 'notes')"))
                .as("excluded, dropped and renamed tables").isZero();
    }

    private static void runMore(TestDatabase source, TestDatabase target, boolean viaRoot) throws Exception {
        source.execute("CREATE TYPE mood AS ENUM ('sad', 'ok')",
                "CREATE TABLE people (id int PRIMARY KEY, m mood, score text)",
                "INSERT INTO people SELECT g, CASE WHEN g % 2 = 0 THEN 'sad' ELSE 'ok' END::mood, 'score ' || g FROM generate_series(1, 100) g",
                "CREATE TABLE shops (id int PRIMARY KEY, name text)",
                "INSERT INTO shops VALUES (1, 'a'), (2, 'b')",
                "CREATE TABLE stock (id int PRIMARY KEY, shop int, qty int)",
                "INSERT INTO stock SELECT g, 1 + g % 2, g FROM generate_series(1, 50) g",
                "CREATE TABLE events (id int, at int, v text, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
                "CREATE TABLE events_a PARTITION OF events FOR VALUES FROM (0) TO (100)",
                "CREATE TABLE events_b PARTITION OF events FOR VALUES FROM (100) TO (200)",
                "INSERT INTO events SELECT g, g % 200, 'e' || g FROM generate_series(1, 400) g",
                "CREATE TABLE log (at int, line text)");
        streamInTwoRuns(source, target, Map.of("topic.prefix", "more", "publish.via.partition.root", String.valueOf(viaRoot)), List.of(
                    // Labels added anywhere in the order, then used; a label renamed.
                    "ALTER TYPE mood ADD VALUE 'happy'",
                    "ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'",
                    "INSERT INTO people VALUES (101, 'happy', 'x'), (102, 'meh', 'y')",
                    "ALTER TYPE mood RENAME VALUE 'sad' TO 'blue'",
                    "UPDATE people SET m = 'blue' WHERE id = 1",
                    // A conversion only the source can make: the rows are copied again.
                    "ALTER TABLE people ALTER COLUMN score TYPE int USING length(score)",
                    "UPDATE people SET score = score + 1000 WHERE id <= 5",
                    "INSERT INTO people VALUES (103, 'ok', 7)",
                    // Check and foreign-key constraints added, validated, renamed and dropped; a new table with both.
                    "ALTER TABLE stock ADD CONSTRAINT qty_positive CHECK (qty > 0)",
                    "ALTER TABLE stock ADD CONSTRAINT stock_shop FOREIGN KEY (shop) REFERENCES shops (id) ON DELETE CASCADE",
                    "INSERT INTO stock VALUES (51, 2, 5)",
                    "ALTER TABLE stock ADD CONSTRAINT qty_small CHECK (qty < 1000) NOT VALID",
                    "ALTER TABLE stock VALIDATE CONSTRAINT qty_small",
                    "ALTER TABLE stock RENAME CONSTRAINT qty_positive TO qty_above_zero",
                    "BEGIN; CREATE TABLE orders (id int PRIMARY KEY, stock int REFERENCES stock (id), n int CHECK (n > 0)); "
                            + "INSERT INTO orders VALUES (1, 1, 1), (2, 51, 3); COMMIT",
                    "ALTER TABLE stock DROP CONSTRAINT qty_small",
                    "INSERT INTO log VALUES (-1, 'end of part one')"), List.of(
                    "CREATE TABLE events_c PARTITION OF events FOR VALUES FROM (200) TO (300)",
                    "INSERT INTO events VALUES (1000, 250, 'in c')",
                    "UPDATE events SET at = 150 WHERE id = 1", // from events_a to events_b
                    "ALTER TABLE events DETACH PARTITION events_b",
                    "INSERT INTO events_b VALUES (2000, 120, 'while detached')",
                    "ALTER TABLE events ATTACH PARTITION events_b FOR VALUES FROM (100) TO (200)",
                    "ALTER TABLE events ADD COLUMN extra int DEFAULT 0",
                    "INSERT INTO events VALUES (3000, 10, 'with extra', 5)",
                    "ALTER TABLE events ALTER COLUMN v TYPE int USING length(v)",
                    "UPDATE events SET v = v + 100 WHERE id <= 3",
                    "DROP TABLE events_c",
                    "INSERT INTO log VALUES (-2, 'end')"));
        for (String table : List.of("people", "shops", "stock", "orders", "events", "events_a", "events_b", "log")) {
            assertThat(target.checksum(table)).as(table).isEqualTo(source.checksum(table));
        }
        for (String table : List.of("people", "stock", "orders", "events", "events_a", "events_b")) {
            assertThat(target.queryText(columns(table))).as("columns of " + table).isEqualTo(source.queryText(columns(table)));
        }
        String labels = "SELECT string_agg(enumlabel, ',' ORDER BY enumsortorder) FROM pg_enum WHERE enumtypid = 'public.mood'::regtype";
        assertThat(target.queryText(labels)).isEqualTo(source.queryText(labels)).isEqualTo("blue,meh,ok,happy");
        String constraints = "SELECT string_agg(conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid), '; ' "
                + "ORDER BY conrelid::regclass::text, conname) FROM pg_constraint WHERE contype IN ('c', 'f') "
                + "AND connamespace = 'public'::regnamespace";
        assertThat(target.queryText(constraints)).isEqualTo(source.queryText(constraints)).contains("qty_above_zero", "orders_stock_fkey");
        String partitions = "SELECT string_agg(c.oid::regclass || ' of ' || i.inhparent::regclass || ' ' || pg_get_expr(c.relpartbound, c.oid), "
                + "'; ' ORDER BY c.oid::regclass::text) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid";
        assertThat(target.queryText(partitions)).isEqualTo(source.queryText(partitions));
    }

    private static void runObjects(TestDatabase source, TestDatabase target) throws Exception {
        source.execute("CREATE TABLE items (id int PRIMARY KEY, name text, qty int)",
                "INSERT INTO items SELECT g, 'item ' || g, g FROM generate_series(1, 20) g",
                "CREATE VIEW item_names AS SELECT name FROM items",
                "CREATE TABLE log (at int, line text)");
        streamInTwoRuns(source, target, Map.of("topic.prefix", "obj"), List.of(
                    // A domain and a composite type, then a table that uses both, in one transaction with its first row.
                    "CREATE DOMAIN price AS numeric(10,2) CHECK (VALUE >= 0)",
                    "CREATE TYPE address AS (street text, zip text)",
                    "BEGIN; CREATE TABLE orders (id int PRIMARY KEY, total price, ship address); "
                            + "INSERT INTO orders VALUES (1, 9.99, ROW('Main St', '1000')); COMMIT",
                    "CREATE VIEW big_orders AS SELECT id, total FROM orders WHERE total > 5",
                    "CREATE OR REPLACE VIEW big_orders AS SELECT id, total, (ship).zip AS zip FROM orders WHERE total > 5",
                    "CREATE OR REPLACE VIEW item_names AS SELECT name, qty FROM items",
                    "CREATE FUNCTION stamp() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN NEW.total := NEW.total + 0; RETURN NEW; END$$",
                    "CREATE TRIGGER orders_stamp BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION stamp()",
                    "ALTER DOMAIN price ADD CONSTRAINT price_small CHECK (VALUE < 100000) NOT VALID",
                    "ALTER TYPE address ADD ATTRIBUTE country text",
                    "INSERT INTO orders VALUES (2, 20, ROW('Side St', '2000', 'CH'))",
                    "INSERT INTO log VALUES (-1, 'end of part one')"), List.of(
                    "ALTER VIEW big_orders RENAME TO large_orders",
                    "CREATE OR REPLACE FUNCTION stamp() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$",
                    "ALTER TRIGGER orders_stamp ON orders RENAME TO orders_touch",
                    "ALTER TYPE address RENAME ATTRIBUTE zip TO postcode",
                    // Values of the changed type after the change: pgoutput sends no new description of the table that uses it.
                    "INSERT INTO orders VALUES (4, 40, ROW('Far Rd', '9999', 'FR'))",
                    "UPDATE orders SET ship = ROW('Main St', '1001', 'CH') WHERE id = 1",
                    "ALTER DOMAIN price DROP CONSTRAINT price_check",
                    "CREATE VIEW doomed AS SELECT 1 AS x",
                    "DROP VIEW doomed",
                    "INSERT INTO orders VALUES (3, 30, NULL)",
                    "INSERT INTO log VALUES (-2, 'end')"));
        for (String table : List.of("items", "orders", "log")) {
            assertThat(target.checksum(table)).as(table).isEqualTo(source.checksum(table));
        }
        for (String listing : List.of(
                "SELECT string_agg(viewname || ': ' || definition, '; ' ORDER BY viewname) FROM pg_views WHERE schemaname = 'public'",
                "SELECT string_agg(conname || ' ' || pg_get_constraintdef(oid) || ' ' || convalidated, '; ' ORDER BY conname) "
                        + "FROM pg_constraint WHERE contypid = 'public.price'::regtype",
                "SELECT format_type(typbasetype, typtypmod) FROM pg_type WHERE oid = 'public.price'::regtype",
                "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum) FROM pg_attribute "
                        + "WHERE attrelid = (SELECT typrelid FROM pg_type WHERE oid = 'public.address'::regtype) AND attnum > 0 AND NOT attisdropped",
                "SELECT pg_get_functiondef('public.stamp()'::regprocedure)",
                "SELECT string_agg(pg_get_triggerdef(oid), '; ' ORDER BY tgname) FROM pg_trigger WHERE NOT tgisinternal")) {
            assertThat(target.queryText(listing)).as(listing).isEqualTo(source.queryText(listing)).isNotNull();
        }
        assertThat(target.queryText("SELECT string_agg(viewname, ',' ORDER BY viewname) FROM pg_views WHERE schemaname = 'public'"))
                .isEqualTo("item_names,large_orders");
    }

    /**
     * Streams {@code partOne} (ending with log row -1), crashes after the target committed but
     * before the offsets were stored, then streams {@code partTwo} (ending with log row -2) in
     * a second run, which gets all of part one again.
     *
     * @return the changes the second run skipped as already applied
     */
    private static long streamInTwoRuns(TestDatabase source, TestDatabase target, Map<String, String> settings, List<String> partOne,
                                        List<String> partTwo) throws Exception {
        Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
        Map<String, String> sourceProps = source.sourceConnection();
        sourceProps.putAll(settings);
        sourceProps.put("status.update.interval.ms", "200");
        Map<String, String> sinkProps = Pipes.sinkProps(target);
        try (SourceToSink<PostgresSinkTask> pipe = Pipes.open(stored, sourceProps, sinkProps)) {
            source.execute("INSERT INTO log VALUES (0, 'streaming')");
            pumpUntil(pipe, 0);
            pipe.commit();
            source.execute(partOne.toArray(String[]::new));
            pumpUntil(pipe, -1);
            pipe.flushWithoutStoring();
        }
        try (SourceToSink<PostgresSinkTask> pipe = Pipes.open(stored, sourceProps, sinkProps)) {
            source.execute(partTwo.toArray(String[]::new));
            pumpUntil(pipe, -2);
            pipe.commit();
            return pipe.sink().changesSkipped();
        }
    }

    private static String columns(String table) {
        return "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod) || CASE WHEN attnotnull THEN ' not null' ELSE '' END, ', ' "
                + "ORDER BY attnum) FROM pg_attribute WHERE attrelid = 'public." + table + "'::regclass AND attnum > 0 AND NOT attisdropped";
    }

    private static String indexes(String table) {
        return "SELECT string_agg(pg_get_indexdef(indexrelid), '; ' ORDER BY indexrelid::regclass::text) FROM pg_index "
                + "WHERE indrelid = 'public." + table + "'::regclass";
    }

    /** Pumps until the log row with {@code at = marker} came through; checks schema events came with their transaction block. */
    private static void pumpUntil(SourceToSink<PostgresSinkTask> pipe, int marker) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (SourceRecord r : pipe.pump()) {
                if (SchemaChangeEvents.VALUE_SCHEMA.name().equals(r.valueSchema().name())) {
                    Struct value = (Struct) r.value();
                    if ("false".equals(value.getStruct(Envelope.SOURCE).getString("snapshot"))) {
                        assertThat(value.getStruct(Envelope.TRANSACTION)).as("transaction block of " + value.getString("ddl")).isNotNull();
                    }
                }
                if (r.topic().endsWith(".public.log") && Envelope.isEnvelope(r.valueSchema())) {
                    Struct after = ((Struct) r.value()).getStruct(Envelope.AFTER);
                    if (after != null && Integer.valueOf(marker).equals(after.get("at"))) {
                        return;
                    }
                }
            }
        }
        throw new AssertionError("log row " + marker + " did not come through in two minutes");
    }
}
