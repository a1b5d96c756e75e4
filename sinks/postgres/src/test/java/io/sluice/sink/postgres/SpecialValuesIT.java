package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.kafka.ConnectorConfigs;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One row per special or boundary value of each type — infinities, NaN, -0, the first and last
 * dates and timestamps, 24:00, offsets of ±15:59, extreme intervals, empty strings, ranges and
 * arrays, arrays with lower bounds other than 1, NULLs inside arrays and composites, composites
 * whose every field is NULL (also composites over each of those types, and over a type read as
 * text), the invalid oid — goes through every way Sluice carries rows into
 * PostgreSQL: the snapshot decoded and as raw COPY tuples, streamed inserts, updates (key changes
 * too) and deletes, a keyless table whose rows are found by all their values, and a Kafka Connect
 * worker with Kafka's JSON converter in between. Every table must end as on the source, compared
 * by each row's text.
 */
@ExtendWith(PostgresExtension.class)
class SpecialValuesIT {

    private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;

    /** A column type and the SQL expressions of its special values. */
    record Kind(String table, String type, List<String> values) {
    }

    private static final List<String> SETUP = List.of(
            "CREATE EXTENSION IF NOT EXISTS hstore",
            "CREATE EXTENSION IF NOT EXISTS citext",
            "CREATE EXTENSION IF NOT EXISTS ltree",
            "CREATE TYPE mood AS ENUM ('sad', ' ', 'quo\"te')",
            "CREATE TYPE pair AS (x int, y text)",
            "CREATE TYPE tagged AS (tags int[], at timestamp, f float8)",
            // A field type read as text (point) makes the whole composite read as text.
            "CREATE TYPE address AS (street text, zip varchar(10), geo point)",
            "CREATE DOMAIN positive AS int CHECK (VALUE > 0)",
            "CREATE DOMAIN deadline AS timestamp",
            "CREATE TABLE sv_marker (id int PRIMARY KEY)",
            // No key: updates and deletes find rows by all their values.
            "CREATE TABLE sv_keyless (ts timestamp, f float8, r real, a int[], c pair, n numeric, d date)",
            "ALTER TABLE sv_keyless REPLICA IDENTITY FULL");

    static final List<Kind> KINDS = List.of(
            kind("date", "date", "'infinity'", "'-infinity'", "'4714-11-24 BC'", "'5874897-12-31'", "'0001-01-01 BC'", "'2000-01-01'"),
            kind("timestamp", "timestamp", "'infinity'", "'-infinity'", "'4714-11-24 00:00:00 BC'", "'294276-12-31 23:59:59.999999'",
                    "'292277-01-01 00:00:00'", "'1970-01-01 00:00:00'", timestamp(Long.MAX_VALUE - PG_EPOCH_MICROS),
                    timestamp(Long.MAX_VALUE - PG_EPOCH_MICROS + 1), timestamp(9_223_372_036_825_200_000L - PG_EPOCH_MICROS),
                    timestamp(-9_223_372_036_832_400_000L - PG_EPOCH_MICROS)),
            kind("timestamptz", "timestamptz", "'infinity'", "'-infinity'", "'4714-11-24 00:00:00+00 BC'",
                    "'294276-12-31 23:59:59.999999+00'", "'2000-01-01 00:00:00+15:59'", "'1970-01-01 00:00:00-15:59:59'"),
            kind("time", "time", "'24:00:00'", "'00:00:00'", "'23:59:59.999999'"),
            kind("timetz", "timetz", "'24:00:00+15:59'", "'00:00:00-15:59:59'", "'12:34:56.789+00'"),
            kind("interval", "interval", "'178956970 years 7 mons'", "'-178956970 years -8 mons'", "'2147483647 days'",
                    "'-2147483648 days'", "'2562047788:00:54.775807'", "'-2562047788:00:54.775807'", "'0'", "'1 mon -1 days 1 second'"),
            kind("numeric", "numeric", "'NaN'", "'Infinity'", "'-Infinity'", "'0'", "'-0.000'", "'1e-1000'", "'9.99e999'", "'123.4500'"),
            kind("real", "real", "'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "'1.4e-45'", "'3.4028235e38'", "'1.1'"),
            kind("double", "double precision", "'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "'4.9e-324'", "'1.7976931348623157e308'"),
            kind("ints", "bigint", "-9223372036854775808", "9223372036854775807", "0"),
            kind("text", "text", "''", "'NULL'", "E'q\"uote\\\\back\\ttab'", "'😀 ünï'", "'{}'", "'(,)'"),
            kind("bpchar", "char(5)", "''", "'ab'", "'abcde'"),
            kind("onechar", "\"char\"", "''", "'a'", "'\\377'"),
            kind("bytea", "bytea", "'\\x'", "'\\x00ff'"),
            kind("json", "json", "'null'", "'\"\"'", "'{\"a\":1,\"a\":2}'", "'  [1, 2 ] '"),
            kind("jsonb", "jsonb", "'null'", "'{}'", "'[]'", "'\"\\u00e9\"'"),
            kind("xml", "xml", "''", "'<a/>'"),
            kind("bits", "varbit", "''", "'1'", "'0000000000'"),
            kind("inet", "inet", "'::/0'", "'0.0.0.0/0'", "'::ffff:1.2.3.4'", "'255.255.255.255'"),
            kind("money", "money", "'-92233720368547758.08'", "'92233720368547758.07'", "'0'"),
            kind("oid", "oid", "0", "4294967295"),
            kind("xid8", "xid8", "'0'", "'9223372036854775808'", "'18446744073709551615'"),
            kind("lsn", "pg_lsn", "'0/0'", "'FFFFFFFF/FFFFFFFF'"),
            kind("tid", "tid", "'(0,0)'", "'(4294967295,65535)'"),
            kind("point", "point", "'(NaN,Infinity)'", "'(-0,0)'", "'(-Infinity,1e-300)'"),
            kind("tsvector", "tsvector", "''", "'a:1A'"),
            kind("regclass", "regclass", "0", "'pg_class'"),
            kind("regtype", "regtype", "0", "'integer'"),
            kind("int4range", "int4range", "'empty'", "'(,)'", "'[1,)'", "'[-2147483648,2147483647)'"),
            kind("numrange", "numrange", "'[-Infinity,Infinity]'", "'empty'", "'(,)'", "'(NaN,NaN]'"),
            kind("daterange", "daterange", "'[-infinity,infinity)'", "'empty'", "'[\"4714-11-24 BC\",5874897-12-31)'"),
            kind("tsrange", "tsrange", "'[-infinity,infinity]'", "'[\"4714-11-24 00:00:00 BC\",\"294276-12-31 23:59:59.999999\"]'",
                    "'empty'"),
            kind("tstzrange", "tstzrange", "'[-infinity,infinity)'", "'(,\"294276-12-31 23:59:59.999999+00\"]'"),
            kind("multirange", "int4multirange", "'{}'", "'{[1,3),[5,7)}'", "'{(,)}'"),
            kind("datemultirange", "datemultirange", "'{[-infinity,infinity)}'", "'{}'"),
            kind("hstore", "hstore", "''", "'\"a\"=>NULL'", "'\"\"=>\"\"'"),
            kind("citext", "citext", "''", "'MiXeD'"),
            kind("ltree", "ltree", "''", "'a.b.c'"),
            kind("mood", "mood", "'sad'", "' '", "'quo\"te'"),
            kind("positive", "positive", "1", "2147483647"),
            kind("deadline", "deadline", "'infinity'", "'294276-12-31 23:59:59.999999'", "'-infinity'"),
            kind("pair", "pair", "ROW(NULL, NULL)", "ROW(NULL, '')", "ROW(0, '(,)')"),
            kind("tagged", "tagged", "ROW(NULL, NULL, NULL)", "ROW('[0:1]={1,2}', 'infinity', 'NaN')",
                    "ROW('{}', '294276-12-31 23:59:59.999999', '-0')"),
            kind("address", "address", "ROW(NULL, NULL, NULL)", "ROW('', '', '(NaN,Infinity)')", "ROW(NULL, '(,)', '(-0,0)')"));

    /** A table of one column per kind, named after its table: a composite of the kind's type and an array of it. */
    private static final String ROWS = "sv_rows";
    /** How many rows {@link #ROWS} gets per fill: every value of every kind in each of the five composite forms. */
    private static final int ROW_COUNT = 5 * KINDS.stream().mapToInt(k -> k.values().size()).max().orElseThrow();

    private static Kind kind(String table, String type, String... values) {
        return new Kind("sv_" + table, type, List.of(values));
    }

    /** The literal of a timestamp given as PostgreSQL's microseconds since 2000 (its Unix-epoch number may not fit 64 bits). */
    private static String timestamp(long pgMicros) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(pgMicros, 1_000_000L) + PG_EPOCH_MICROS / 1_000_000L,
                (int) Math.floorMod(pgMicros, 1_000_000L) * 1000, ZoneOffset.UTC);
        return String.format("'%d-%02d-%02d %02d:%02d:%02d.%06d'", t.getYear(), t.getMonthValue(), t.getDayOfMonth(), t.getHour(),
                t.getMinute(), t.getSecond(), t.getNano() / 1000);
    }

    /** Types and tables, on the source only: the snapshot makes them on the target. */
    static void create(TestDatabase db) throws Exception {
        List<String> ddl = new ArrayList<>(SETUP);
        StringBuilder rows = new StringBuilder("CREATE TABLE " + ROWS + " (id int PRIMARY KEY");
        for (Kind k : KINDS) {
            ddl.add("CREATE TABLE " + k.table() + " (id int PRIMARY KEY, v " + k.type() + ", a " + k.type() + "[], m " + k.type() + "[][])");
            ddl.add("CREATE TYPE " + rowType(k) + " AS (v " + k.type() + ", a " + k.type() + "[])");
            rows.append(", ").append(k.table()).append(' ').append(rowType(k));
        }
        ddl.add(rows.append(')').toString());
        db.execute(ddl.toArray(String[]::new));
    }

    /** The composite type over a kind's type: a value of it and an array of it. */
    private static String rowType(Kind k) {
        return k.table() + "_row";
    }

    /**
     * A composite over the kind's type in one of five forms, by {@code form}: every field NULL (a
     * value of its own, though SQL's {@code IS NULL} calls it null), the value and an array of it,
     * the value alone, an empty array alone, and the NULL composite.
     */
    private static String composite(Kind k, int value, int form) {
        List<String> v = k.values();
        String one = "(" + v.get(value % v.size()) + ")::" + k.type();
        String next = "(" + v.get((value + 1) % v.size()) + ")::" + k.type();
        return switch (form % 5) {
            case 0 -> "ROW(NULL, NULL)::" + rowType(k);
            case 1 -> "ROW(" + one + ", ARRAY[" + one + ", NULL, " + next + "])::" + rowType(k);
            case 2 -> "ROW(" + one + ", NULL)::" + rowType(k);
            case 3 -> "ROW(NULL, '{}')::" + rowType(k);
            default -> "NULL::" + rowType(k);
        };
    }

    /** One row per value, ids from {@code first}: each value alone, in arrays of several shapes and bounds, and in 2-D arrays. */
    static void fill(TestDatabase db, int first) throws Exception {
        List<String> inserts = new ArrayList<>();
        for (Kind k : KINDS) {
            List<String> v = k.values();
            for (int i = 0; i < v.size(); i++) {
                String type = k.type();
                String value = "(" + v.get(i) + ")::" + type;
                String next = "(" + v.get((i + 1) % v.size()) + ")::" + type;
                String array = switch (i % 5) {
                    case 0 -> "ARRAY[" + value + ", NULL, " + next + "]";
                    case 1 -> "'{}'::" + type + "[]";
                    case 2 -> "('[0:2]=' || ARRAY[" + value + ", NULL, " + next + "]::text)::" + type + "[]";
                    case 3 -> "('[-2147483648:-2147483648]=' || ARRAY[" + value + "]::text)::" + type + "[]";
                    default -> "ARRAY[NULL]::" + type + "[]";
                };
                String matrix = switch (i % 3) {
                    case 0 -> "ARRAY[[" + value + ", NULL], [NULL, " + next + "]]";
                    case 1 -> "('[-3:-2][2147483645:2147483646]=' || ARRAY[[" + value + ", " + value + "], [" + next + ", NULL]]::text)::"
                            + type + "[]";
                    default -> "NULL";
                };
                inserts.add("INSERT INTO " + k.table() + " VALUES (" + (first + i) + ", " + value + ", " + array + ", " + matrix + ")");
            }
        }
        inserts.add("INSERT INTO sv_keyless VALUES ('infinity', 'NaN', '-0', '[0:1]={1,NULL}', ROW(NULL, NULL), 'NaN', '-infinity'), "
                + "('294276-12-31 23:59:59.999999', '-0', 'Infinity', '{}', ROW(NULL, ''), '-Infinity', '5874897-12-31'), "
                + "('-infinity', '-Infinity', 'NaN', NULL, NULL, '0', '4714-11-24 BC'), "
                + "('infinity', 'NaN', '-0', '[0:1]={1,NULL}', ROW(NULL, NULL), 'NaN', '-infinity')");
        for (int r = 0; r < ROW_COUNT; r++) {
            StringBuilder row = new StringBuilder("INSERT INTO " + ROWS + " VALUES (" + (first + r));
            for (int k = 0; k < KINDS.size(); k++) {
                // The forms rotate across the kinds, so every row holds all five and every kind each form.
                row.append(", ").append(composite(KINDS.get(k), r / 5, r + k));
            }
            inserts.add(row.append(')').toString());
        }
        db.execute(inserts.toArray(String[]::new));
    }

    /** Streamed changes of every kind over rows holding the special values; then the marker that ends them. */
    static void change(TestDatabase db) throws Exception {
        fill(db, 1000);
        List<String> changes = new ArrayList<>();
        for (Kind k : KINDS) {
            int last = 1000 + k.values().size() - 1;
            // Every streamed row takes its neighbour's values: both images hold special values.
            changes.add("UPDATE " + k.table() + " t SET v = s.v, a = s.a, m = s.m FROM " + k.table() + " s WHERE t.id >= 1000 AND s.id = "
                    + "CASE WHEN t.id = " + last + " THEN 1000 ELSE t.id + 1 END");
            changes.add("UPDATE " + k.table() + " SET id = id + 5000 WHERE id IN (0, 1001)");
            changes.add("DELETE FROM " + k.table() + " WHERE id % 3 = 2");
        }
        StringBuilder rotate = new StringBuilder("UPDATE " + ROWS + " t SET ");
        for (int k = 0; k < KINDS.size(); k++) {
            String column = KINDS.get(k).table();
            rotate.append(k == 0 ? "" : ", ").append(column).append(" = s.").append(column);
        }
        changes.add(rotate + " FROM " + ROWS + " s WHERE t.id >= 1000 AND s.id = CASE WHEN t.id = " + (1000 + ROW_COUNT - 1)
                + " THEN 1000 ELSE t.id + 1 END");
        changes.add("UPDATE " + ROWS + " SET id = id + 5000 WHERE id IN (0, 1001)");
        changes.add("DELETE FROM " + ROWS + " WHERE id % 3 = 2");
        changes.add("UPDATE sv_keyless SET n = '1' WHERE ts = '294276-12-31 23:59:59.999999'");
        changes.add("DELETE FROM sv_keyless WHERE ctid = (SELECT ctid FROM sv_keyless WHERE d = '-infinity' LIMIT 1)");
        changes.add("UPDATE sv_keyless SET a = '[5:5]={9}' WHERE d = '4714-11-24 BC'");
        changes.add("INSERT INTO sv_marker VALUES (-1)");
        db.execute(changes.toArray(String[]::new));
    }

    static List<String> tables() {
        List<String> tables = new ArrayList<>(KINDS.stream().map(Kind::table).toList());
        tables.add("sv_keyless");
        tables.add(ROWS);
        return tables;
    }

    /** Every row's text, in a stable order: what must be equal on both sides. */
    static String rows(TestDatabase db, String table) throws Exception {
        return db.queryText("SELECT coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '') FROM " + table + " t");
    }

    static void assertSameRows(TestDatabase source, TestDatabase target) throws Exception {
        for (String table : tables()) {
            assertThat(rows(target, table)).as(table).isEqualTo(rows(source, table));
        }
    }

    @ParameterizedTest(name = "snapshot.raw.tuples={0}")
    @ValueSource(booleans = {false, true})
    void everySpecialValueArrivesThroughTheSnapshotAndTheStream(boolean raw) throws Exception {
        TestDatabase source = TestDatabases.create(SpecialValuesIT.class);
        TestDatabase target = TestDatabases.create(SpecialValuesIT.class);
        try {
            create(source);
            fill(source, 0);
            Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
            Map<String, String> sourceProps = source.sourceConnection();
            sourceProps.put("topic.prefix", "sv");
            sourceProps.put("snapshot.mode", "initial");
            sourceProps.put("snapshot.raw.tuples", Boolean.toString(raw));
            sourceProps.put("status.update.interval.ms", "200");
            try (SourceToSink<PostgresSinkTask> pipe = Pipes.open(stored, sourceProps, Pipes.sinkProps(target))) {
                // Streamed after the snapshot, whose slot the pipe made: once it is through, so is the snapshot.
                source.execute("INSERT INTO sv_marker VALUES (-2)");
                pumpUntilMarker(pipe, -2);
                pipe.commit();
                assertSameRows(source, target);

                change(source);
                pumpUntilMarker(pipe, -1);
                pipe.commit();
                assertSameRows(source, target);
            }
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /** Through a worker with Kafka's JSON converter (special values ride in value notes) and with Sluice's binary one (exact). */
    @ParameterizedTest
    @ValueSource(strings = {"org.apache.kafka.connect.json.JsonConverter", "io.sluice.schemas.converter.BinaryConverter"})
    void everySpecialValueArrivesThroughKafka(String converter) throws Exception {
        TestDatabase source = TestDatabases.create(SpecialValuesIT.class);
        TestDatabase target = TestDatabases.create(SpecialValuesIT.class);
        try (ConnectCluster connect = ConnectCluster.start("special-values", 1)) {
            create(source);
            fill(source, 0);
            Map<String, String> sourceConfig = ConnectorConfigs.sourceWithBarriers(source, "sv", "*.*", 1);
            sourceConfig.put("slot.name", "special_values_slot");
            Map<String, String> sinkConfig = ConnectorConfigs.sinkOfPrefix(target, "sv", 1);
            for (Map<String, String> config : List.of(sourceConfig, sinkConfig)) {
                config.put("key.converter", converter);
                config.put("value.converter", converter);
            }
            connect.embedded().configureConnector("sv-source", sourceConfig);
            connect.embedded().configureConnector("sv-sink", sinkConfig);
            for (String table : tables()) {
                target.awaitSameAs(source, "SELECT coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '') FROM " + table + " t",
                        Duration.ofSeconds(180), table + " after the snapshot");
            }
            change(source);
            for (String table : tables()) {
                target.awaitSameAs(source, "SELECT coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '') FROM " + table + " t",
                        Duration.ofSeconds(120), table + " after the changes");
            }
            var status = connect.embedded().connectorStatus("sv-sink");
            assertThat(status.tasks()).allSatisfy(task -> assertThat(task.state()).as(task.trace()).isEqualTo("RUNNING"));
            connect.embedded().deleteConnector("sv-source");
            connect.embedded().deleteConnector("sv-sink");
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    /** Pumps until the marker row with this id has come through. */
    private static void pumpUntilMarker(SourceToSink<PostgresSinkTask> pipe, int marker) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (System.nanoTime() < deadline) {
            for (SourceRecord r : pipe.pump()) {
                if (r.topic().endsWith(".sv_marker") && Envelope.isEnvelope(r.valueSchema())) {
                    Struct after = ((Struct) r.value()).getStruct(Envelope.AFTER);
                    if (after != null && Integer.valueOf(marker).equals(after.get("id"))) {
                        return;
                    }
                }
            }
        }
        throw new AssertionError("marker " + marker + " did not come through in three minutes");
    }
}
