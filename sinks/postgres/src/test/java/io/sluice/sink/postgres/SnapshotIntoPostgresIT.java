package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The source connector's snapshot, handed to the sink connector, reproduces every table: for
 * each, a checksum over its rows' text on the target equals the source's.
 */
@ExtendWith(PostgresExtension.class)
class SnapshotIntoPostgresIT {

    private static final List<String> SCHEMA = List.of(
            "CREATE EXTENSION IF NOT EXISTS hstore",
            "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
            "CREATE TYPE pair AS (x int, label text)",
            """
            CREATE TABLE all_types (id int PRIMARY KEY, i2 int2, i8 int8, f4 real, f8 float8, n numeric, n2 numeric(12,3),
              m money, t text, vc varchar(20), c char(5), b bool, by bytea, d date, tm time, ttz timetz, ts timestamp,
              tstz timestamptz, iv interval, u uuid, j json, jb jsonb, x xml, ip inet, cd cidr, mac macaddr, bt bit(8),
              vb varbit, tsv tsvector, pt point, bx box, r int4range, mr int4multirange, arr int[], tarr text[], matrix int[][],
              h hstore, e mood, comp pair, gen int GENERATED ALWAYS AS (id * 2) STORED)""",
            "CREATE TABLE with_identity (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text)",
            "CREATE SCHEMA \"Sales Data\"",
            "CREATE TABLE \"Sales Data\".\"Order \"\"Items\"\"\" (\"Id\" int PRIMARY KEY, \"select\" text, \"ünï\" numeric)",
            "CREATE TABLE no_key (a int, b text)",
            "CREATE TABLE events (id int, at date, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
            "CREATE TABLE events_2023 PARTITION OF events FOR VALUES FROM ('2023-01-01') TO ('2024-01-01')",
            "CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
            "CREATE TABLE empty_table (id int PRIMARY KEY)");

    private static final List<String> DATA = List.of("""
            INSERT INTO all_types (id, i2, i8, f4, f8, n, n2, m, t, vc, c, b, by, d, tm, ttz, ts, tstz, iv, u, j, jb, x, ip, cd, mac,
              bt, vb, tsv, pt, bx, r, mr, arr, tarr, matrix, h, e, comp)
            SELECT g,
              CASE WHEN g % 10 = 0 THEN NULL ELSE (g % 30000)::int2 END, g * 1000000007::int8, g / 3.0, g / 7.0,
              CASE WHEN g % 50 = 0 THEN 'NaN'::numeric ELSE g / 11.0 END, (g / 13.0)::numeric(12,3), (g * 1.25)::money,
              'row ' || g || ' "quoted" ' || chr(233) || E'\\ttab', left('v' || g, 20), 'c' || (g % 10), g % 2 = 0,
              decode(md5(g::text), 'hex'), DATE '2000-01-01' + g * 37, TIME '00:00' + g * INTERVAL '17 seconds',
              TIMETZ '10:00:00+05:30' + g * INTERVAL '1 minute', TIMESTAMP '1999-12-31 23:59:59.999999' + g * INTERVAL '1 hour 1 microsecond',
              TIMESTAMPTZ '0044-03-15 12:00:00+00 BC' + g * INTERVAL '1000 days', make_interval(0, g, 0, g, 0, 0, g / 1000.0),
              md5(g::text)::uuid, ('{"g": ' || g || ', "s": "x"}')::json, ('{"g": ' || g || ', "a": [1, 2]}')::jsonb,
              ('<r g="' || g || '">t</r>')::xml, ('10.' || (g % 256) || '.0.1/' || (8 + g % 24))::inet, '2001:db8::/32'::cidr,
              ('08:00:2b:01:02:' || lpad(to_hex(g % 256), 2, '0'))::macaddr, (g % 256)::bit(8), (g % 1000)::bit(10)::varbit,
              to_tsvector('simple', 'the quick brown fox ' || g), point(g, -g), box(point(0, 0), point(g, g)),
              int4range(g, g + 10), int4multirange(int4range(g, g + 1), int4range(g + 5, g + 9)),
              ARRAY[g, NULL, -g], ARRAY['a' || g, NULL, 'b "c"'], ARRAY[[g, g + 1], [g + 2, NULL]],
              hstore(ARRAY['k', 'q"'], ARRAY[g::text, NULL]), (ARRAY['sad', 'ok', 'happy'])[1 + g % 3]::mood, ROW(g, 'p' || g)::pair
            FROM generate_series(1, 700) g""",
            "INSERT INTO all_types (id) VALUES (100000)",
            "INSERT INTO with_identity (v) SELECT 'v' || g FROM generate_series(1, 50) g",
            "INSERT INTO \"Sales Data\".\"Order \"\"Items\"\"\" VALUES (1, 'reserved', 1.5), (2, NULL, NULL)",
            "INSERT INTO no_key VALUES (1, 'x'), (1, 'x'), (2, NULL)",
            "INSERT INTO events SELECT g, DATE '2023-06-01' + (g % 400) FROM generate_series(1, 1000) g",
            "CREATE TABLE big_values (id int PRIMARY KEY, blob text)",
            "INSERT INTO big_values SELECT g, repeat(md5(g::text), 1000 * g) FROM generate_series(1, 5) g");

    private static final List<String> TABLES = List.of("public.all_types", "public.with_identity", "\"Sales Data\".\"Order \"\"Items\"\"\"",
            "public.no_key", "public.events_2023", "public.events_2024", "public.empty_table", "public.big_values");

    private static TestDatabase target;

    @BeforeAll
    static void databases(TestDatabase source) throws Exception {
        source.execute(SCHEMA.toArray(String[]::new));
        source.execute(DATA.toArray(String[]::new));
        target = TestDatabases.create(SnapshotIntoPostgresIT.class);
        target.execute(SCHEMA.toArray(String[]::new));
        target.execute("CREATE TABLE big_values (id int PRIMARY KEY, blob text)");
    }

    @AfterAll
    static void dropTarget() throws Exception {
        if (target != null) {
            TestDatabases.drop(target);
        }
    }

    private static Map<String, String> sourceConfig(TestDatabase db) {
        Map<String, String> props = new HashMap<>();
        props.put("database.hostname", db.host());
        props.put("database.port", Integer.toString(db.port()));
        props.put("database.user", db.user());
        props.put("database.password", db.password());
        props.put("database.dbname", db.name());
        props.put("database.sslmode", "disable");
        props.put("topic.prefix", "src");
        props.put("snapshot.batch.bytes", "65536");
        return props;
    }

    private static Map<String, String> sinkConfig(TestDatabase db) {
        return Map.of("connection.url", "postgres://" + db.host() + ":" + db.port() + "/" + db.name() + "?sslmode=disable",
                "connection.username", db.user(), "connection.password", db.password(), "batch.max.bytes", "200000");
    }

    @Test
    void everyTableArrivesIdentical(TestDatabase source) throws Exception {
        PostgresSourceTask sourceTask = new PostgresSourceTask();
        sourceTask.initialize(emptyContext());
        sourceTask.start(sourceConfig(source));
        PostgresSinkTask sinkTask = new PostgresSinkTask();
        sinkTask.start(sinkConfig(target));
        long offset = 0;
        try {
            boolean done = false;
            while (!done) {
                List<SourceRecord> batch = sourceTask.poll();
                if (batch == null) {
                    continue;
                }
                List<SinkRecord> sinkRecords = new ArrayList<>();
                for (SourceRecord r : batch) {
                    sinkRecords.add(new SinkRecord(r.topic(), 0, r.keySchema(), r.key(), r.valueSchema(), r.value(), offset++));
                    done |= r.topic().equals("src.schema-changes");
                }
                sinkTask.put(sinkRecords);
            }
            sinkTask.flush(Map.of());
        } finally {
            sourceTask.stop();
            sinkTask.stop();
        }
        for (String table : TABLES) {
            assertThat(checksum(target, table)).as(table).isEqualTo(checksum(source, table));
        }
        assertThat(checksum(target, "public.all_types")).startsWith("701 ");
    }

    @Test
    void aMissingTargetTableIsNamed() {
        PostgresSinkTask sinkTask = new PostgresSinkTask();
        Map<String, String> config = new HashMap<>(sinkConfig(target));
        config.put("table.name.format", "elsewhere.${table}");
        sinkTask.start(config);
        try {
            Schema row = SchemaBuilder.struct().name("src.public.t.Value").optional().field("id", Schema.INT32_SCHEMA).build();
            Schema envelope = Envelope.schema("src.public.t", row);
            Struct value = Envelope.create(envelope, Operation.READ, null, new Struct(row).put("id", 1),
                    new SourceInfo("src", "db", "public", "t", 0, SourceInfo.Snapshot.TRUE, null, null, null), 0);
            assertThatThrownBy(() -> sinkTask.put(List.of(new SinkRecord("src.public.t", 0, null, null, envelope, value, 0))))
                    .isInstanceOf(ConnectException.class).hasMessageContaining("Target table elsewhere.t does not exist");
        } finally {
            sinkTask.stop();
        }
    }

    /** Row count and a hash over the sorted hashes of every row's text: equal multisets of rows give equal checksums. */
    static String checksum(TestDatabase db, String table) throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) || ' ' || coalesce(md5(string_agg(h, '' ORDER BY h)), '-') "
                     + "FROM (SELECT md5(t::text) AS h FROM " + table + " t) rows")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static SourceTaskContext emptyContext() {
        return new SourceTaskContext() {
            @Override
            public Map<String, String> configs() {
                return Map.of();
            }

            @Override
            public OffsetStorageReader offsetStorageReader() {
                return new OffsetStorageReader() {
                    @Override
                    public <T> Map<String, Object> offset(Map<String, T> partition) {
                        return null;
                    }

                    @Override
                    public <T> Map<Map<String, T>, Map<String, Object>> offsets(java.util.Collection<Map<String, T>> partitions) {
                        return Map.of();
                    }
                };
            }

            @Override
            public PluginMetrics pluginMetrics() {
                return null;
            }
        };
    }
}
