package io.sluice.connector.postgres.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.sluice.connector.postgres.selection.TablePattern;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.mapping.MappingOptions;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(PostgresExtension.class)
class SnapshotRunIT {

    private static final int BIG_ROWS = 20_000;

    @BeforeAll
    static void data(TestDatabase db) throws Exception {
        db.execute(
                "CREATE TABLE big (id int PRIMARY KEY, payload text, n numeric)",
                "INSERT INTO big SELECT g, repeat(md5(g::text), 4), g * 1.5 FROM generate_series(1, " + BIG_ROWS + ") g",
                "CREATE TABLE empty_table (id int PRIMARY KEY)",
                "CREATE TABLE one_row (id int PRIMARY KEY, v text)",
                "INSERT INTO one_row VALUES (1, 'only')",
                "CREATE SCHEMA \"Odd Schema\"",
                "CREATE TABLE \"Odd Schema\".\"Mixed \"\"Case\"\" Table\" (\"Key\" int PRIMARY KEY, \"select\" text, \"ünï\" int)",
                "INSERT INTO \"Odd Schema\".\"Mixed \"\"Case\"\" Table\" VALUES (1, 'reserved', 7), (2, NULL, NULL)",
                "CREATE TABLE no_key (a int, b text)",
                "INSERT INTO no_key VALUES (1, 'x'), (1, 'x'), (2, NULL)",
                "CREATE TABLE events (id int, at date, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
                "CREATE TABLE events_2023 PARTITION OF events FOR VALUES FROM ('2023-01-01') TO ('2024-01-01')",
                "CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
                "INSERT INTO events SELECT g, DATE '2023-06-01' + (g % 400) FROM generate_series(1, 1000) g",
                "CREATE TABLE audit_log (id int PRIMARY KEY)",
                "INSERT INTO audit_log VALUES (1)");
    }

    private static SnapshotRun run(TestDatabase db, List<String> includes, List<String> excludes, long batchBytes,
                                   Map<Map<String, String>, Map<String, Object>> offsets) {
        PgEndpoint endpoint = new PgEndpoint(db.host(), db.port(), db.name(), db.user(), db.password(), "disable");
        SnapshotRun.Settings settings = new SnapshotRun.Settings("it",
                new TableSelector(includes.stream().map(TablePattern::parse).toList(), excludes.stream().map(TablePattern::parse).toList()),
                new TypeMapper(MappingOptions.DEFAULTS), batchBytes, 3, 4L << 20, null, false, List.of(), false,
                io.sluice.connector.postgres.selection.SubsetRoots.NONE);
        return new SnapshotRun(settings, () -> PgConnect.open(endpoint, "snapshot-it"), offsets::get);
    }

    /** Polls until the end-of-snapshot event; returns all records, the end event last. */
    static List<SourceRecord> drain(SnapshotRun run) throws Exception {
        List<SourceRecord> all = new ArrayList<>();
        while (all.isEmpty() || !Boolean.TRUE.equals(all.get(all.size() - 1).sourceOffset().get(SnapshotRun.COMPLETED))) {
            all.addAll(run.poll(1000, 200));
        }
        assertThat(run.poll(1000, 10)).isEmpty();
        return all;
    }

    private static Map<String, List<Struct>> rowsByTable(List<SourceRecord> records) {
        Map<String, List<Struct>> rows = new TreeMap<>();
        for (SourceRecord r : records) {
            Struct value = (Struct) r.value();
            if (Envelope.isEnvelope(r.valueSchema())) {
                assertThat(value.getString("op")).isEqualTo("r");
                assertThat(value.getStruct("source").getString("snapshot")).isEqualTo("true");
                rows.computeIfAbsent(r.topic(), t -> new ArrayList<>()).add(value.getStruct("after"));
            }
        }
        return rows;
    }

    @Test
    void readsEveryRowOfEverySelectedTableOnceInManyRanges(TestDatabase db) throws Exception {
        List<SourceRecord> records;
        try (SnapshotRun run = run(db, List.of("*.*"), List.of("public.audit_*"), 1L << 16, new HashMap<>())) {
            run.start();
            assertThat(run.progress().stream().filter(p -> p.plan().table().name().equals("big")).findFirst().orElseThrow()
                    .plan().rangeCount()).as("a 64 KB batch cuts the big table into many ranges").isGreaterThan(10);
            records = drain(run);
        }
        Map<String, List<Struct>> rows = rowsByTable(records);
        assertThat(rows.keySet()).containsExactlyInAnyOrder("it.public.big", "it.public.one_row",
                "it.Odd_Schema.Mixed__Case__Table", "it.public.no_key", "it.public.events_2023", "it.public.events_2024");

        Set<Integer> bigIds = new HashSet<>();
        for (Struct row : rows.get("it.public.big")) {
            assertThat(bigIds.add(row.getInt32("id"))).as("each row once").isTrue();
            assertThat(row.getString("n")).isEqualTo(new java.math.BigDecimal(row.getInt32("id")).multiply(new java.math.BigDecimal("1.5")).toPlainString());
        }
        assertThat(bigIds).hasSize(BIG_ROWS);
        assertThat(rows.get("it.public.events_2023").size() + rows.get("it.public.events_2024").size()).isEqualTo(1000);
        assertThat(rows.get("it.public.no_key")).hasSize(3);

        Struct odd = rows.get("it.Odd_Schema.Mixed__Case__Table").stream().filter(s -> s.getInt32("Key") == 1).findFirst().orElseThrow();
        assertThat(odd.getString("select")).isEqualTo("reserved");
        assertThat(odd.getInt32("ünï")).isEqualTo(7);

        SourceRecord end = records.get(records.size() - 1);
        assertThat(end.topic()).isEqualTo("it.schema-changes");
        assertThat(((Struct) end.value()).getStruct("source").getString("snapshot")).isEqualTo("last");
    }

    @Test
    void recordsAreKeyedByPrimaryKeyAndKeylessTablesHaveNoKey(TestDatabase db) throws Exception {
        List<SourceRecord> records;
        try (SnapshotRun run = run(db, List.of("public.one_row", "public.no_key"), List.of(), 1L << 20, new HashMap<>())) {
            run.start();
            records = drain(run);
        }
        for (SourceRecord r : records) {
            if (r.topic().equals("it.public.one_row")) {
                assertThat(((Struct) r.key()).getInt32("id")).isEqualTo(1);
            } else if (r.topic().equals("it.public.no_key")) {
                assertThat(r.key()).isNull();
                assertThat(r.keySchema()).isNull();
            }
        }
    }

    @Test
    void rowsWrittenAfterTheSnapshotStartedAreNotRead(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE moving (id int PRIMARY KEY)", "INSERT INTO moving SELECT generate_series(1, 500)");
        List<SourceRecord> records;
        try (SnapshotRun run = run(db, List.of("public.moving"), List.of(), 1L << 16, new HashMap<>())) {
            run.start();
            db.execute("INSERT INTO moving SELECT generate_series(501, 1000)", "DELETE FROM moving WHERE id <= 100",
                    "UPDATE moving SET id = -id WHERE id BETWEEN 101 AND 200");
            records = drain(run);
        }
        List<Integer> ids = rowsByTable(records).get("it.public.moving").stream().map(s -> s.getInt32("id")).sorted().toList();
        assertThat(ids).hasSize(500).first().isEqualTo(1);
        assertThat(ids.get(ids.size() - 1)).isEqualTo(500);
    }

    @Test
    void resumedSnapshotSkipsFinishedRangesAndReadsTheRest(TestDatabase db) throws Exception {
        Map<Map<String, String>, Map<String, Object>> committed = new HashMap<>();
        Set<Integer> firstRun = new HashSet<>();
        try (SnapshotRun run = run(db, List.of("public.big"), List.of(), 1L << 16, committed)) {
            run.start();
            // Consume about a third, committing offsets as Connect would, then stop.
            while (firstRun.size() < BIG_ROWS / 3) {
                for (SourceRecord r : run.poll(500, 200)) {
                    if (Envelope.isEnvelope(r.valueSchema())) {
                        firstRun.add(((Struct) r.value()).getStruct("after").getInt32("id"));
                    }
                    committed.put(cast(r.sourcePartition()), cast(r.sourceOffset()));
                }
            }
        }
        Map<String, Object> stored = committed.get(TableProgress.partition("it", "public.big"));
        FinishedRanges finished = FinishedRanges.decode((String) stored.get("done"));
        assertThat(finished.count()).as("some ranges finished in the first run").isPositive();

        List<SourceRecord> second;
        try (SnapshotRun run = run(db, List.of("public.big"), List.of(), 1L << 16, committed)) {
            run.start();
            second = drain(run);
        }
        Set<Integer> secondRun = new HashSet<>();
        rowsByTable(second).get("it.public.big").forEach(s -> secondRun.add(s.getInt32("id")));
        Set<Integer> union = new HashSet<>(firstRun);
        union.addAll(secondRun);
        assertThat(union).as("nothing lost across the restart").hasSize(BIG_ROWS);
        assertThat(secondRun.size()).as("finished ranges are not read again").isLessThan(BIG_ROWS);
        assertThat(firstRun.size() + secondRun.size() - BIG_ROWS).as("only rows of unfinished ranges are read twice")
                .isLessThan(BIG_ROWS / 3);
    }

    @Test
    void aPatternMatchingNothingNamesThePatternAndTheTables(TestDatabase db) {
        try (SnapshotRun run = run(db, List.of("sales.*"), List.of(), 1L << 20, new HashMap<>())) {
            assertThatThrownBy(run::start).isInstanceOf(ConnectException.class)
                    .hasMessageContaining("sales.*").hasMessageContaining(db.name()).hasMessageContaining("public.big");
        }
    }

    @Test
    void aSelectedParentSelectsItsPartitionsAndTheParentHoldsNoRows(TestDatabase db) throws Exception {
        try (SnapshotRun run = run(db, List.of("public.events"), List.of(), 1L << 20, new HashMap<>())) {
            run.start();
            assertThat(run.progress()).extracting(p -> p.plan().table().qualifiedName())
                    .containsExactlyInAnyOrder("public.events_2023", "public.events_2024");
            assertThat(run.progress()).allSatisfy(p -> assertThat(p.plan().table().root()).isEqualTo("public.events"));
            drain(run);
        }
    }

    @SuppressWarnings("unchecked")
    private static <K, V> Map<K, V> cast(Map<String, ?> map) {
        return (Map<K, V>) map;
    }

    @Test
    void countsMatchTheSource(TestDatabase db) throws Exception {
        List<SourceRecord> records;
        try (SnapshotRun run = run(db, List.of("public.big"), List.of(), 1L << 17, new HashMap<>())) {
            run.start();
            records = drain(run);
        }
        long sum = 0;
        for (Struct row : rowsByTable(records).get("it.public.big")) {
            sum += row.getInt32("id");
        }
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT sum(id) FROM big")) {
            rs.next();
            assertThat(sum).isEqualTo(rs.getLong(1));
        }
    }
}
