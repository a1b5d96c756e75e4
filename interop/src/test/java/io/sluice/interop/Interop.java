package io.sluice.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import io.sluice.testing.postgres.TestDatabase;

/** What the interoperability tests share: their customers table (made, loaded, changed, compared) and connector configs. */
final class Interop {

    static final String CUSTOMERS = "CREATE TABLE public.customers (id int PRIMARY KEY, name text NOT NULL, balance numeric(12,2), "
            + "active boolean, created timestamptz, note text)";

    private Interop() {
    }

    /** The table with 1,000 rows, some notes NULL. */
    static void loadCustomers(TestDatabase source) throws SQLException {
        source.execute(CUSTOMERS, "INSERT INTO customers SELECT g, 'Customer ' || g, g * 1.25, g % 2 = 0, "
                + "timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute', CASE WHEN g % 7 = 0 THEN NULL ELSE 'note ' || g END "
                + "FROM generate_series(1, 1000) g");
    }

    /** Inserts, updates (of the key's neighbours and of several columns at once) and deletes, 1,017 rows after. */
    static void changeCustomers(TestDatabase source) throws SQLException {
        source.execute("INSERT INTO customers SELECT g, 'Customer ' || g, g * 1.25, true, now(), 'streamed' FROM generate_series(1001, 1020) g",
                "UPDATE customers SET balance = balance + 1, note = 'updated' WHERE id % 100 = 0",
                "UPDATE customers SET name = 'Renamed ' || id, active = NOT active WHERE id BETWEEN 10 AND 14",
                "DELETE FROM customers WHERE id IN (3, 500, 1005)");
    }

    /** A connector of this class with one task, reading or writing JSON with schemas; the map is the caller's to add to. */
    static java.util.Map<String, String> jsonConnector(String connectorClass) {
        java.util.Map<String, String> config = new java.util.HashMap<>();
        config.put("connector.class", connectorClass);
        config.put("tasks.max", "1");
        config.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        return config;
    }

    /** Waits until the target's rows of {@code table} are the source's, value by value in key order. */
    static void awaitEqual(TestDatabase source, TestDatabase target, String table) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        String expected = summary(source, table);
        String actual = null;
        while (System.nanoTime() < deadline) {
            actual = summary(target, table);
            if (expected.equals(actual)) {
                return;
            }
            Thread.sleep(250);
        }
        assertThat(actual).as("the target's rows of %s, as the source's, within 120 s", table).isEqualTo(expected);
    }

    /** Row count and a digest of every value in key order; timestamps by their instant, whatever type the target gave them. */
    static String summary(TestDatabase db, String table) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT count(*), md5(coalesce(string_agg(concat_ws('|', id, name, balance::text, active, "
                    + "extract(epoch FROM created)::numeric::text, note), E'\\n' ORDER BY id), '')) FROM " + table)) {
                rs.next();
                return rs.getLong(1) + "|" + rs.getString(2);
            }
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) {
                return "no table yet";
            }
            throw e;
        }
    }
}
