package io.sluice.connector.postgres.resync;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * A re-sync's walk over a table in chunks, against a real server: whatever the keys (text with
 * upper and lower case, blanks, quotes, backslashes and characters beyond ASCII, the empty
 * string; integers down to the smallest and up to the largest; composite keys) and whatever the
 * chunk size and row filter, the chunks read every row the filter takes exactly once, in the
 * server's order of the key, each starting after the last key of the one before (given back as
 * text, as the signal table keeps it), and the last one says it reached the end.
 */
class ChunkWalkIT {

    private static TestDatabase db;

    @BeforeContainer
    static void start() throws Exception {
        db = TestDatabases.create(ChunkWalkIT.class);
        db.execute("CREATE TABLE walk (k1 text, k2 bigint, v text, PRIMARY KEY (k1, k2))");
    }

    @AfterContainer
    static void stop() throws Exception {
        TestDatabases.drop(db);
    }

    record Key(String k1, long k2) {
    }

    @Provide
    Arbitrary<List<Key>> keys() {
        Arbitrary<String> text = Arbitraries.oneOf(
                Arbitraries.of("", " ", "a", "A", "b", "B", "a b", "'", "\"", "\\", "é", "E", "ß", "z", "Z", "日本", "a\tb", "0", "10", "9"),
                Arbitraries.strings().withChars("aAbB é'\"\\,(){}").ofMaxLength(4));
        Arbitrary<Long> number = Arbitraries.oneOf(Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 1L, 10L, 9L),
                Arbitraries.longs().between(-1000, 1000));
        Arbitrary<Key> key = net.jqwik.api.Combinators.combine(text, number).as(Key::new);
        return key.list().uniqueElements().ofMaxSize(60);
    }

    @Property(tries = 60)
    void everyRowOnceInKeyOrder(@ForAll("keys") List<Key> keys, @ForAll @IntRange(min = 1, max = 7) int chunkRows,
                                @ForAll boolean filtered) throws Exception {
        String filter = filtered ? "k2 % 3 <> 0" : null;
        try (Connection c = db.connect()) {
            c.createStatement().execute("TRUNCATE walk");
            insert(c, keys);
            List<String> expected = new ArrayList<>();
            try (ResultSet rs = c.createStatement().executeQuery("SELECT k1, k2::text AS t2, v FROM walk" + (filter == null ? "" : " WHERE " + filter)
                    + " ORDER BY k1, k2")) {
                while (rs.next()) {
                    expected.add(rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3));
                }
            }
            ChunkRead.Shape shape = new ChunkRead.Shape("public.walk", true, List.of("k1", "k2", "v"), new int[] {0, 1},
                    List.of("text", "bigint"), filter);
            List<String> read = new ArrayList<>();
            String[] after = null;
            for (int chunks = 0; ; chunks++) {
                assertThat(chunks).as("chunks read").isLessThanOrEqualTo(expected.size() / chunkRows + 1);
                ChunkRead.Chunk chunk = ChunkRead.read(c, shape, after, chunkRows, "walk");
                assertThat(chunk.rows().size()).isLessThanOrEqualTo(chunkRows);
                chunk.rows().forEach(r -> read.add(r[0] + "|" + r[1] + "|" + r[2]));
                if (chunk.complete()) {
                    break;
                }
                String[] last = chunk.lastKey(shape);
                assertThat(last).isNotNull();
                after = Arrays.copyOf(last, last.length);
            }
            assertThat(read).isEqualTo(expected);
            assertThat(c.getAutoCommit()).as("the connection is left as it was").isTrue();
        }
    }

    /**
     * A repair's keys, written into the signal table as text and read back (a two-dimensional
     * array: quotes, braces, commas, backslashes and blanks in it), find exactly the rows with
     * those keys that the filter takes, and none of the keys asked for that the table lacks.
     */
    @Property(tries = 60)
    void keysThroughTheSignalTableFindTheirRows(@ForAll("keys") List<Key> keys, @ForAll("keys") List<Key> absent,
                                                 @ForAll boolean filtered) throws Exception {
        String filter = filtered ? "k2 % 3 <> 0" : null;
        SignalTable signals = new SignalTable("walk_signals.requests");
        try (Connection c = db.connect()) {
            c.createStatement().execute("TRUNCATE walk");
            assertThat(signals.ensure(c)).isEmpty();
            insert(c, keys);
            List<Key> asked = new ArrayList<>(keys.subList(0, keys.size() / 2));
            absent.stream().filter(k -> !keys.contains(k)).forEach(asked::add);
            String[][] texts = asked.stream().map(k -> new String[] {k.k1(), Long.toString(k.k2())}).toArray(String[][]::new);
            long id = signals.request(c, "walk", "public.walk", null, texts);
            SignalTable.Request request = signals.get(c, id).orElseThrow();
            assertThat(request.keys()).isDeepEqualTo(texts);

            ChunkRead.Shape shape = new ChunkRead.Shape("public.walk", true, List.of("k1", "k2", "v"), new int[] {0, 1},
                    List.of("text", "bigint"), filter);
            ChunkRead.Chunk chunk = ChunkRead.readKeys(c, shape, Arrays.asList(request.keys()), true, "walk");
            java.util.Set<String> found = new java.util.HashSet<>();
            chunk.rows().forEach(r -> found.add(r[0] + "|" + r[1]));
            java.util.Set<String> expected = new java.util.HashSet<>();
            for (Key k : keys.subList(0, keys.size() / 2)) {
                if (!filtered || k.k2() % 3 != 0) {
                    expected.add(k.k1() + "|" + k.k2());
                }
            }
            assertThat(found).isEqualTo(expected);
            assertThat(chunk.rows()).hasSize(expected.size());
            assertThat(chunk.complete()).isTrue();
            c.createStatement().execute("TRUNCATE walk_signals.requests");
        }
    }

    private static void insert(Connection c, List<Key> keys) throws Exception {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO walk VALUES (?, ?, ?)")) {
            for (Key k : keys) {
                insert.setString(1, k.k1());
                insert.setLong(2, k.k2());
                insert.setString(3, k.k1() + "/" + k.k2());
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }
}
