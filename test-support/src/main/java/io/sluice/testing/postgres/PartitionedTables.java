package io.sluice.testing.postgres;

import java.util.ArrayList;
import java.util.List;

/** Partitioned tables as users have them, for tests of how partitions reach the sinks. */
public final class PartitionedTables {

    private PartitionedTables() {
    }

    /**
     * {@code events (id int, at date, amount numeric, note text, PRIMARY KEY (id, at))} with twelve
     * monthly partitions of 2024, 100 rows each (row g in month 1 + (g - 1) / 100, amount g * 1.5,
     * note 'n' || g). Every {@code attachedEvery}-th partition is made apart with its columns in
     * another order and then attached, as partitions often are, so its rows are not in the
     * root's column order.
     */
    public static void monthly(TestDatabase db, int attachedEvery) throws Exception {
        List<String> ddl = new ArrayList<>(List.of(
                "CREATE TABLE events (id int NOT NULL, at date NOT NULL, amount numeric, note text, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)"));
        for (int m = 1; m <= 12; m++) {
            String from = String.format("2024-%02d-01", m);
            String to = m == 12 ? "2025-01-01" : String.format("2024-%02d-01", m + 1);
            if (m % attachedEvery == 0) {
                ddl.add("CREATE TABLE events_" + m + " (note text, amount numeric, at date NOT NULL, id int NOT NULL)");
                ddl.add("ALTER TABLE events ATTACH PARTITION events_" + m + " FOR VALUES FROM ('" + from + "') TO ('" + to + "')");
            } else {
                ddl.add("CREATE TABLE events_" + m + " PARTITION OF events FOR VALUES FROM ('" + from + "') TO ('" + to + "')");
            }
        }
        ddl.add("INSERT INTO events SELECT g, DATE '2024-01-01' + ((g - 1) / 100) * INTERVAL '1 month' + ((g - 1) % 28) * INTERVAL '1 day', "
                + "g * 1.5, 'n' || g FROM generate_series(1, 1200) g");
        db.execute(ddl.toArray(String[]::new));
    }

    /** {@code name (id int, at date, PRIMARY KEY (id, at))} in two halves of 2024, {@code name_a} and {@code name_b}, with 300 rows in both. */
    public static void halves(TestDatabase db, String name) throws Exception {
        db.execute("CREATE TABLE " + name + " (id int, at date, PRIMARY KEY (id, at)) PARTITION BY RANGE (at)",
                "CREATE TABLE " + name + "_a PARTITION OF " + name + " FOR VALUES FROM ('2024-01-01') TO ('2024-07-01')",
                "CREATE TABLE " + name + "_b PARTITION OF " + name + " FOR VALUES FROM ('2024-07-01') TO ('2025-01-01')",
                "INSERT INTO " + name + " SELECT g, DATE '2024-01-01' + g FROM generate_series(1, 300) g");
    }
}
