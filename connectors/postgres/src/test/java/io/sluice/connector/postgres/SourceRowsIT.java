package io.sluice.connector.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Rows read by key, as verify reads the rows the stream touched: any number of keys (more
 * values than a statement may have parameters), keys with no row, keys whose text needs the
 * column's declared type to match (numeric scale, char padding), and the row filter.
 */
@ExtendWith(PostgresExtension.class)
class SourceRowsIT {

    private static final int ROWS = 40_000;

    @Test
    void rowsOfAnyNumberOfKeysAreReadAsTheFilterTakesThem() throws Exception {
        TestDatabase db = TestDatabases.create(SourceRowsIT.class);
        try {
            db.execute("CREATE TABLE pairs (n numeric(10, 2), tag char(4), label text, PRIMARY KEY (n, tag))",
                    "INSERT INTO pairs SELECT g, CASE WHEN g % 2 = 0 THEN 'a,\"' ELSE 'b' END, 'row ' || g FROM generate_series(1, " + ROWS + ") g");
            Map<String, String> props = db.sourceConnection();
            props.put("topic.prefix", "rows");
            PostgresSourceConfig config = new PostgresSourceConfig(props);
            // Every row's key as the stream sends it (numeric with its scale, char padded), and as many keys with no row.
            List<String[]> keys = new ArrayList<>();
            for (int g = 1; g <= ROWS; g++) {
                keys.add(new String[] {g + ".00", g % 2 == 0 ? "a,\" " : "b   "});
                keys.add(new String[] {g + ".00", "none"});
            }
            try (Connection c = db.connect()) {
                SourceRows all = SourceRows.of(config, c, "public", "pairs", List.of("n", "tag", "label"), null);
                assertThat(all.key()).containsExactly("n", "tag");
                Set<String> read = new HashSet<>();
                all.byKeys(c, keys, texts -> assertThat(read.add(String.join("|", texts))).as("read once: %s", texts[0]).isTrue());
                assertThat(read).hasSize(ROWS).contains("2.00|a,\" |row 2", "40000.00|a,\" |row 40000", "1.00|b   |row 1");

                SourceRows filtered = SourceRows.of(config, c, "public", "pairs", List.of("n", "tag", "label"), "n <= 10");
                List<String> taken = new ArrayList<>();
                filtered.byKeys(c, keys, texts -> taken.add(texts[0]));
                assertThat(taken).containsExactlyInAnyOrder("1.00", "2.00", "3.00", "4.00", "5.00", "6.00", "7.00", "8.00", "9.00", "10.00");

                List<String> none = new ArrayList<>();
                all.byKeys(c, List.of(), texts -> none.add(texts[0]));
                assertThat(none).isEmpty();
            }
        } finally {
            TestDatabases.drop(db);
        }
    }
}
