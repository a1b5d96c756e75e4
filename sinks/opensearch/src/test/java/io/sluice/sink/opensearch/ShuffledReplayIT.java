package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.testing.opensearch.OpenSearchExtension;
import io.sluice.testing.opensearch.OpenSearchNode;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The same snapshot rows and changes written in any order end the same: versions from the source
 * position, not arrival, decide. The rows and changes of a workload (many updates of one row in
 * one transaction, key changes, deletes, rows deleted and inserted again under the same key) are
 * taken from the source once, written in order into one index, then shuffled — a tenth of them
 * twice, in puts of random sizes with flushes between — into fresh sink tasks, one index each.
 * Every index ends equal to the table. (Only row events are shuffled: the snapshot's start and end
 * and schema changes are ordered by barriers, and a TRUNCATE deletes what the index holds when it
 * comes, so it goes in order with the writes before it, as every task keeps it.)
 */
@ExtendWith({PostgresExtension.class, OpenSearchExtension.class})
class ShuffledReplayIT {

    @Test
    void theSameRowsAndChangesInAnyOrderEndAsTheTable(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(ShuffledReplayIT.class);
        String prefix = source.name().toLowerCase();
        try {
            source.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL, note text)",
                    "INSERT INTO accounts SELECT g, g, 'n' || g FROM generate_series(1, 400) g");
            List<SinkRecord> rows = new ArrayList<>();
            try (SourceToIndex pipe = new SourceToIndex(new ConcurrentHashMap<>(), SourceToIndex.sourceProps(source, "shuffle"),
                    SourceToIndex.sinkProps(node, "index.name.format", prefix + "-ordered.${table}"))) {
                pipe.pumpUntil("accounts", -1, () -> {
                    source.execute("UPDATE accounts SET balance = balance + 1 WHERE id % 3 = 0",
                            "BEGIN", "UPDATE accounts SET balance = 10 WHERE id = 5", "UPDATE accounts SET balance = 20 WHERE id = 5",
                            "UPDATE accounts SET note = 'last' WHERE id = 5", "COMMIT",
                            "UPDATE accounts SET id = id + 100000 WHERE id % 50 = 0",
                            "DELETE FROM accounts WHERE id % 7 = 0",
                            "INSERT INTO accounts SELECT g, -g, 'again' FROM generate_series(7, 400, 7) g",
                            "DELETE FROM accounts WHERE id % 49 = 0",
                            "BEGIN", "DELETE FROM accounts WHERE id = 11", "INSERT INTO accounts VALUES (11, 1111, 'same transaction')",
                            "UPDATE accounts SET id = 100011 WHERE id = 11", "COMMIT",
                            "UPDATE accounts SET balance = balance * 2, note = note || '!' WHERE id % 5 = 1");
                    for (int i = 0; i < 20; i++) {
                        source.execute("UPDATE accounts SET balance = balance + " + i + " WHERE id % 20 = " + i);
                    }
                    source.execute("INSERT INTO accounts VALUES (-1, 0, 'end')");
                });
                pipe.commit();
                for (SinkRecord r : pipe.delivered()) {
                    if (Envelope.isEnvelope(r.valueSchema()) && !"t".equals(((Struct) r.value()).getString(Envelope.OP))) {
                        rows.add(r);
                    }
                }
            }
            AccountsIndex.assertSame(source, node, prefix + "-ordered.accounts");
            assertThat(rows.size()).as("row events taken from the source").isGreaterThan(1000);
            assertThat(rows.stream().filter(r -> r.headers().lastWithName(EventHeaders.UNCHANGED_TOAST) != null
                    && !String.valueOf(r.headers().lastWithName(EventHeaders.UNCHANGED_TOAST).value()).isEmpty()).count())
                    .as("changes leaving a TOASTed value out (they need the stored document, so they go in order)").isZero();

            for (long seed : new long[] {1, 2, 3}) {
                Random random = new Random(seed);
                List<SinkRecord> shuffled = new ArrayList<>(rows);
                for (SinkRecord r : rows) {
                    if (random.nextInt(10) == 0) {
                        shuffled.add(r);
                    }
                }
                Collections.shuffle(shuffled, random);
                String index = prefix + "-shuffled-" + seed + ".accounts";
                OpenSearchSinkTask sink = new OpenSearchSinkTask();
                sink.start(SourceToIndex.sinkProps(node, "index.name.format", prefix + "-shuffled-" + seed + ".${table}", "bulk.in.flight", "4"));
                try {
                    int at = 0;
                    while (at < shuffled.size()) {
                        int n = Math.min(shuffled.size() - at, 1 + random.nextInt(200));
                        sink.put(shuffled.subList(at, at + n));
                        at += n;
                        if (random.nextInt(4) == 0) {
                            sink.flush(Map.of());
                        }
                    }
                    sink.flush(Map.of());
                    assertThat(sink.olderThanStored()).as("writes refused as older than what the index had").isGreaterThan(100);
                } finally {
                    sink.stop();
                }
                AccountsIndex.assertSame(source, node, index);
            }
        } finally {
            TestDatabases.drop(source);
        }
    }
}
