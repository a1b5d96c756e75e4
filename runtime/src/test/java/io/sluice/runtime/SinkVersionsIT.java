package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.testing.opensearch.IndexDocuments;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresServer;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.testing.webhook.TestReceiver;
import io.sluice.testing.webhook.TestReceiver.Received;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The sinks that are not PostgreSQL on every source version but the suite's own (14, 16, 17,
 * 18): {@code sluice run} into OpenSearch and into a webhook subscription takes the snapshot
 * of a table of special values (NaN and the infinities, -0, the extreme doubles, numeric's
 * infinities, BC and five-digit years, empty text, NULL inside arrays), streams a workload of
 * such rows, an {@code ADD COLUMN} mid-stream, a SIGKILL and a restart; at the end the index's
 * documents, and the payloads applied in order, equal the rows as docs/opensearch.md and
 * docs/webhooks.md say they are written.
 */
@ExtendWith(OpenSearchExtension.class)
class SinkVersionsIT {

    private static final Map<Integer, PostgresServer.Launched> SERVERS = new HashMap<>();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Edge values per column, as SQL literals; the workload draws from them. */
    private static final String[] DOUBLES = {"'NaN'", "'Infinity'", "'-Infinity'", "'-0'", "1.7976931348623157e308", "4.9e-324", "0.1", "NULL"};
    private static final String[] NUMERICS = {"'NaN'", "'Infinity'", "'-Infinity'", "1e-20", "12.50", "123456789012345678901234567890", "NULL"};
    private static final String[] DATES = {"'infinity'", "'-infinity'", "'0044-03-15 BC'", "'12345-01-01'", "'2024-05-01'", "'4713-01-01 BC'", "NULL"};
    private static final String[] TIMESTAMPS = {"'infinity'", "'-infinity'", "'2024-05-01 10:15:30.123456'", "'0044-03-15 10:00 BC'",
        "'12345-01-01 00:00'", "'1969-12-31 23:59:59.999999'", "NULL"};
    private static final String[] TEXTS = {"''", "'ünï 😀'", "E'tab\\there \"quote\" \\\\back'", "'{\"looks\": [\"like\", null]}'", "'null'", "NULL"};
    private static final String[] ARRAYS = {"'{}'", "'{1,NULL,3}'", "ARRAY[NULL]::int[]", "'{-2147483648,2147483647}'", "NULL"};

    private final Path work = Path.of(System.getProperty("sluice.test.workdir", "target/test-services"), "sink-versions-" + System.currentTimeMillis());

    static Stream<Arguments> runs() {
        List<Arguments> runs = new ArrayList<>();
        for (int version : new int[] {14, 16, 17, 18}) {
            runs.add(Arguments.of("opensearch", version));
            runs.add(Arguments.of("webhook", version));
        }
        return runs.stream();
    }

    @AfterAll
    static void stopServers() {
        SERVERS.values().forEach(PostgresServer.Launched::close);
    }

    @ParameterizedTest(name = "PostgreSQL {1} -> {0}")
    @MethodSource("runs")
    void specialValuesThroughDdlAndAKill(String sink, int version, OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(server(version), SinkVersionsIT.class);
        assertThat(source.server().majorVersion()).isEqualTo(version);
        String name = sink + "_v" + version;
        String secret = io.sluice.sink.webhook.signing.SigningSecret.generate(new SecureRandom());
        String prefix = source.name().toLowerCase() + ".";
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong transactions = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> workload(source, writing, transactions, failure), "workload");
        try (TestReceiver receiver = new TestReceiver(List.of(secret))) {
            schema(source);
            List<String> args = new ArrayList<>(List.of("run", "--source", SluiceRuns.url(source), "--name", name,
                    "--offsets", work.resolve(name + ".offsets").toString(), "--set", "source.status.update.interval.ms=200"));
            if (sink.equals("opensearch")) {
                args.addAll(List.of("--target", node.httpUrl(), "--set", "target.index.name.format=" + prefix + "${schema}.${table}"));
            } else {
                args.addAll(List.of("--target", "webhook", "--set", "target.api.listen=127.0.0.1:" + freePort(),
                        "--set", "target.api.token=sink-versions-it-token-0123456789", "--set", "target.delivery.allow.networks=127.0.0.1/32",
                        "--set", "target.subscriptions=specials", "--set", "target.subscription.specials.url=" + receiver.url(),
                        "--set", "target.subscription.specials.secrets=" + secret, "--set", "target.subscription.specials.tables=public.specials"));
            }
            String[] command = args.toArray(String[]::new);
            Sink target = sink.equals("opensearch") ? () -> documents(node, prefix + "public.specials") : () -> rebuilt(receiver);
            SluiceProcess sluice = SluiceProcess.start(work, StandbyPairs.userPath(), command);
            try {
                awaitEqual(sluice, source, target, "the snapshot");
                writer.start();
                StandbyPairs.await(sluice, () -> written(transactions, failure) >= 100, "the workload");
                source.execute("ALTER TABLE specials ADD COLUMN extra text",
                        "UPDATE specials SET extra = CASE WHEN id % 3 = 0 THEN '' ELSE 'e' || id END WHERE id % 2 = 0");
                long atDdl = transactions.get();
                StandbyPairs.await(sluice, () -> written(transactions, failure) >= atDdl + 100, "the workload after ADD COLUMN");
                sluice.kill();
                sluice.close();
                sluice = SluiceProcess.start(work, StandbyPairs.userPath(), command);
                long atKill = transactions.get();
                StandbyPairs.await(sluice, () -> written(transactions, failure) >= atKill + 100, "the workload after the restart");
                writing.set(false);
                writer.join();
                assertThat(failure.get()).as("the workload").isNull();
                awaitEqual(sluice, source, target, "every change, after the kill");
                if (sink.equals("webhook")) {
                    assertThat(receiver.received()).allMatch(Received::verified);
                }
                assertThat(sluice.terminate(60)).as(sluice.output()).isZero();
            } finally {
                sluice.close();
            }
        } finally {
            writing.set(false);
            if (writer.isAlive()) {
                writer.join();
            }
            TestDatabases.drop(source);
        }
    }

    /** The workload's transactions so far; its failure, as soon as it failed. */
    private static long written(AtomicLong transactions, AtomicReference<Throwable> failure) {
        if (failure.get() != null) {
            throw new AssertionError("The workload failed", failure.get());
        }
        return transactions.get();
    }

    private interface Sink {
        Map<String, String> rows() throws Exception;
    }

    private static void schema(TestDatabase source) throws Exception {
        source.execute(
                "CREATE TABLE specials (id int PRIMARY KEY, f8 float8, nu numeric, d date, ts timestamp, t text, ia int[])",
                // A date's or timestamp's value as both sinks write it: ISO 8601, 1 BC as year 0, years past 9999 signed.
                "CREATE FUNCTION iso_year(y int) RETURNS text IMMUTABLE LANGUAGE sql AS $$"
                        + " SELECT CASE WHEN y < 0 THEN '-' || lpad((-(y + 1))::text, 4, '0') WHEN y > 9999 THEN '+' || y::text"
                        + " ELSE lpad(y::text, 4, '0') END $$",
                "CREATE FUNCTION iso_date(d date) RETURNS text IMMUTABLE LANGUAGE sql AS $$ SELECT CASE WHEN NOT isfinite(d) THEN d::text"
                        + " ELSE iso_year(extract(year FROM d)::int) || to_char(d, '-MM-DD') END $$",
                "CREATE FUNCTION iso_ts(t timestamp) RETURNS text IMMUTABLE LANGUAGE sql AS $$ SELECT CASE WHEN NOT isfinite(t) THEN t::text"
                        + " ELSE iso_year(extract(year FROM t)::int) || to_char(t, '-MM-DD\"T\"HH24:MI:SS')"
                        + " || rtrim(rtrim(to_char(t, '.US'), '0'), '.') END $$");
        StringBuilder rows = new StringBuilder("INSERT INTO specials VALUES ");
        Random random = new Random(version(source));
        for (int id = 1; id <= 300; id++) {
            rows.append(id == 1 ? "" : ", ").append(row(id, random));
        }
        source.execute(rows.toString());
    }

    private static int version(TestDatabase source) {
        return source.server().majorVersion();
    }

    /** A row of edge values: the first rows go through every value of every column, the rest are drawn. */
    private static String row(int id, Random random) {
        return "(" + id + ", " + pick(DOUBLES, id, random) + ", " + pick(NUMERICS, id, random) + ", " + pick(DATES, id, random) + ", "
                + pick(TIMESTAMPS, id, random) + ", " + pick(TEXTS, id, random) + ", " + pick(ARRAYS, id, random) + ")";
    }

    private static String pick(String[] values, int id, Random random) {
        return id >= 1 && id <= values.length ? values[id - 1] : values[random.nextInt(values.length)];
    }

    /** Inserts, updates of every column and deletes of edge values, one small transaction after another. */
    private static void workload(TestDatabase db, AtomicBoolean writing, AtomicLong transactions, AtomicReference<Throwable> failure) {
        Random random = new Random(7);
        int next = 1000;
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            while (writing.get()) {
                int id = 1 + random.nextInt(next);
                switch (random.nextInt(4)) {
                    case 0, 1 -> s.execute("INSERT INTO specials (id, f8, nu, d, ts, t, ia) VALUES " + row(next++, random)
                            + " ON CONFLICT (id) DO NOTHING");
                    case 2 -> s.execute("UPDATE specials SET (f8, nu, d, ts, t, ia) = (SELECT f8::float8, nu::numeric, d::date, ts::timestamp, "
                            + "t::text, ia::int[] FROM (VALUES "
                            + row(0, random).replace("(0, ", "(") + ") v(f8, nu, d, ts, t, ia)) WHERE id = " + id);
                    default -> s.execute("DELETE FROM specials WHERE id = " + id);
                }
                transactions.incrementAndGet();
                Thread.sleep(5);
            }
        } catch (Throwable e) {
            failure.set(e);
        }
    }

    /** Each row as the sinks write it (see the class comment), NULL columns left out, canonical. */
    private static Map<String, String> rows(TestDatabase db) throws Exception {
        Map<String, String> rows = new TreeMap<>();
        boolean extra = db.queryLong("SELECT count(*) FROM pg_attribute WHERE attrelid = 'specials'::regclass AND attname = 'extra'") > 0;
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, jsonb_strip_nulls(jsonb_build_object('id', id,"
                     + " 'f8', CASE WHEN f8 IN ('NaN', 'Infinity', '-Infinity') THEN to_jsonb(f8::text) ELSE to_jsonb(f8) END,"
                     + " 'nu', to_jsonb(nu::text), 'd', to_jsonb(iso_date(d)), 'ts', to_jsonb(iso_ts(ts)), 't', to_jsonb(t), 'ia', to_jsonb(ia)"
                     + (extra ? ", 'extra', to_jsonb(extra)" : "") + "))::text, f8::text = '-0' FROM specials")) {
            while (rs.next()) {
                JsonNode row = JSON.readTree(rs.getString(2));
                if (rs.getBoolean(3)) {
                    // jsonb's numbers are numeric, which has no -0; the sinks keep the double's sign.
                    ((com.fasterxml.jackson.databind.node.ObjectNode) row).put("f8", -0.0d);
                }
                rows.put(rs.getString(1), canonical(row));
            }
        }
        return rows;
    }

    /** The JSON with fields sorted, null fields left out (not null array elements), every number as a double. */
    private static String canonical(JsonNode node) {
        if (node.isObject()) {
            TreeMap<String, String> fields = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                if (!f.getValue().isNull()) {
                    fields.put(f.getKey(), canonical(f.getValue()));
                }
            }
            return fields.toString();
        }
        if (node.isArray()) {
            List<String> elements = new ArrayList<>();
            node.forEach(e -> elements.add(canonical(e)));
            return elements.toString();
        }
        if (node.isNumber()) {
            return Double.toString(node.asDouble());
        }
        return node.isNull() ? "null" : JSON.valueToTree(node.asText()).toString();
    }

    private static Map<String, String> documents(OpenSearchNode node, String index) throws Exception {
        Map<String, String> docs = new TreeMap<>();
        for (JsonNode doc : IndexDocuments.all(node, index).values()) {
            docs.put(doc.path("id").asText(), canonical(doc));
        }
        return docs;
    }

    /** The receiver's payloads applied in order of arrival: what a subscriber rebuilds. */
    private static Map<String, String> rebuilt(TestReceiver receiver) {
        Map<String, String> table = new TreeMap<>();
        List<Received> accepted = new ArrayList<>(receiver.accepted());
        accepted.sort(Comparator.comparingLong(Received::arrivedMillis));
        for (Received r : accepted) {
            JsonNode body = r.json();
            if (body.path("operation").asText().equals("delete")) {
                table.remove(body.path("key").path("id").asText());
            } else if (body.path("after").isObject()) {
                table.put(body.path("after").path("id").asText(), canonical(body.path("after")));
            }
        }
        return table;
    }

    private static void awaitEqual(SluiceProcess sluice, TestDatabase source, Sink target, String what) throws Exception {
        Map<String, String> expected = rows(source);
        try {
            StandbyPairs.await(sluice, () -> target.rows().equals(expected), what);
        } catch (AssertionError e) {
            throw new AssertionError("Rows that differ: " + difference(expected, target.rows()), e);
        }
    }

    /** At most 10 keys whose values differ (or are missing on one side), for a readable failure. */
    private static Map<String, String> difference(Map<String, String> expected, Map<String, String> got) {
        Map<String, String> differ = new TreeMap<>();
        java.util.Set<String> keys = new java.util.TreeSet<>(expected.keySet());
        keys.addAll(got.keySet());
        for (String k : keys) {
            if (!Objects.equals(expected.get(k), got.get(k)) && differ.size() < 10) {
                differ.put(k, "expected " + expected.get(k) + ", got " + got.get(k));
            }
        }
        return differ;
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    private static PostgresServer server(int major) {
        return SERVERS.computeIfAbsent(major, m -> PostgresServer.launch("sinks-v" + m, m));
    }
}
