package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.connector.postgres.SourceRows;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Rows read from a table as text (for a re-sync, a table's copy into the stream, verify) must be
 * the rows the stream sends: the same values after decoding, for every type whose {@code ::text}
 * cast is not its output function's text (char(n) loses its padding, booleans are spelled out,
 * inet gains its netmask) and for composites, arrays holding NULL, infinities and empty values.
 */
@ExtendWith(PostgresExtension.class)
class RowsAsSentIT {

    @Test
    void rowsReadAsTextEqualTheStreamedRows() throws Exception {
        TestDatabase db = TestDatabases.create(RowsAsSentIT.class);
        try {
            db.execute("CREATE TYPE pair AS (a int, b text)",
                    "CREATE TABLE kinds (id int PRIMARY KEY, c char(6), b boolean, i inet, n cidr, p pair, num numeric(12, 3), "
                            + "ts timestamptz, d date, arr text[], ints int[], raw bytea, iv interval, j jsonb, e text, f float8, "
                            + "padded char(3)[])");
            Map<Map<String, String>, Map<String, Object>> stored = new ConcurrentHashMap<>();
            PostgresSourceTask task = SourceTasks.start(db, stored, "topic.prefix", "sent", "snapshot.mode", "never");
            try {
                db.execute("INSERT INTO kinds VALUES "
                        + "(1, 'ab', true, '10.0.0.1', '10.0.0.0/8', ROW(1, 'x'), 1.500, 'infinity', '-infinity', ARRAY['a', NULL, ''], "
                        + "ARRAY[1, NULL], '\\x00ff', '1 day 2 hours', '{\"k\": [1, null]}', '', 'NaN', ARRAY['a', NULL]::char(3)[]), "
                        + "(2, '', false, '::1/128', '2001:db8::/32', ROW(NULL, NULL), -0.001, '0001-01-01 00:00:00+00 BC', '5874897-12-31', "
                        + "'{}', '{}', '', '-178000000 years', 'null', ' ', '-Infinity', '{}'), "
                        + "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
                        + "(4, 'abcdef', true, '192.168.1.1/24', '192.168.0.0/16', ROW(0, ''), 99999999.999, '2024-02-29 23:59:59.999999+14', "
                        + "'2000-01-01', ARRAY[NULL]::text[], ARRAY[-2147483648, 2147483647], '\\x', '0', '[]', repeat('é', 10), 1e308, "
                        + "ARRAY['  x', 'x  ']::char(3)[])");
                Map<Integer, Struct> streamed = new HashMap<>();
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (streamed.size() < 4) {
                    assertThat(System.nanoTime()).as("4 streamed rows within 60 s").isLessThan(deadline);
                    for (SourceRecord r : SourceTasks.poll(task)) {
                        if (r.value() instanceof Struct v && Envelope.isEnvelope(r.valueSchema())) {
                            Struct after = v.getStruct(Envelope.AFTER);
                            streamed.put(after.getInt32("id"), after);
                        }
                    }
                }
                Map<String, String> props = db.sourceConnection();
                props.put("topic.prefix", "sent");
                PostgresSourceConfig config = new PostgresSourceConfig(props);
                Map<Integer, Struct> read = new HashMap<>();
                try (Connection c = db.connect()) {
                    List<String> columns = streamed.get(1).schema().fields().stream().map(org.apache.kafka.connect.data.Field::name).toList();
                    SourceRows rows = SourceRows.of(config, c, "public", "kinds", columns, null);
                    rows.each(c, (key, value, texts) -> read.put(value.getInt32("id"), value));
                }
                for (int id : streamed.keySet()) {
                    assertThat(read.get(id)).as("row %d read as text", id).isEqualTo(streamed.get(id));
                }
            } finally {
                task.stop();
            }
        } finally {
            TestDatabases.drop(db);
        }
    }
}
