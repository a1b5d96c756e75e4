package io.sluice.sink.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.opensearch.IndexDocuments;
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
            List<SinkRecord> rows = workload(source, node, prefix);
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
                sink.start(Pipes.sinkProps(node, "index.name.format", prefix + "-shuffled-" + seed + ".${table}", "bulk.in.flight", "4"));
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

    /**
     * On a Connect cluster each partition keeps its order, but one may be applied long after
     * another (a worker down, a rebalance), longer than OpenSearch keeps a delete's version
     * ({@code index.gc_deletes}, 0 here). A key change is keyed by the new key; the old key's
     * earlier writes are in its own partition. Applied a whole partition after another, those
     * writes bring the old document back once the key change's delete is forgotten — unless the
     * delete of the old key the source sends in the old key's partition comes after them, as it
     * does. Without those deletes the index keeps documents the table does not have: the check
     * can see the fault.
     */
    @Test
    void partitionsAppliedOneAfterAnotherEndAsTheTableWhateverOpenSearchForgets(OpenSearchNode node) throws Exception {
        TestDatabase source = TestDatabases.create(ShuffledReplayIT.class);
        String prefix = source.name().toLowerCase();
        try {
            List<SinkRecord> rows = workload(source, node, prefix);
            List<SinkRecord> movedAway = rows.stream().filter(r -> r.headers().lastWithName(EventHeaders.KEY_MOVED_AWAY) != null).toList();
            assertThat(movedAway).as("deletes of the old keys of key changes").hasSize(9);

            Set<String> inTable = new HashSet<>();
            try (Connection c = source.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM accounts")) {
                while (rs.next()) {
                    inTable.add(rs.getString(1));
                }
            }
            Set<String> withoutDeletes = partitionByPartition(node, prefix + "-nodeletes",
                    rows.stream().filter(r -> !movedAway.contains(r)).toList());
            withoutDeletes.removeAll(inTable);
            assertThat(withoutDeletes).as("old keys brought back without their deletes").isNotEmpty();

            partitionByPartition(node, prefix + "-partitions", rows);
            AccountsIndex.assertSame(source, node, prefix + "-partitions.accounts");
        } finally {
            TestDatabases.drop(source);
        }
    }

    /**
     * Writes the rows into a fresh index as three partitions keyed like Kafka's (by the record's
     * key), one partition whole after another, the index refreshed between them so it forgets
     * the versions of deleted documents; returns the ids of the documents the index ends with.
     */
    private static Set<String> partitionByPartition(OpenSearchNode node, String prefix, List<SinkRecord> rows) throws Exception {
        Map<Integer, List<SinkRecord>> partitions = new TreeMap<>();
        for (SinkRecord r : rows) {
            partitions.computeIfAbsent(Math.floorMod(((Struct) r.key()).getInt32("id"), 3), p -> new ArrayList<>()).add(r);
        }
        OpenSearchSinkTask sink = new OpenSearchSinkTask();
        sink.start(Pipes.sinkProps(node, "index.name.format", prefix + ".${table}",
                "index.settings", "{\"index.gc_deletes\": \"0s\", \"number_of_replicas\": 0}"));
        try {
            for (List<SinkRecord> partition : partitions.values()) {
                sink.put(partition);
                sink.flush(Map.of());
                IndexDocuments.count(node, prefix + ".accounts"); // a refresh: deleted documents' versions are dropped
                Thread.sleep(200);
            }
        } finally {
            sink.stop();
        }
        return new HashSet<>(IndexDocuments.all(node, prefix + ".accounts").keySet());
    }

    /**
     * The rows and changes of the workload, taken from the source once and written in order into
     * {@code <prefix>-ordered.accounts}, which ends equal to the table.
     */
    private static List<SinkRecord> workload(TestDatabase source, OpenSearchNode node, String prefix) throws Exception {
        source.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL, note text)",
                "INSERT INTO accounts SELECT g, g, 'n' || g FROM generate_series(1, 400) g");
        List<SinkRecord> rows = new ArrayList<>();
        try (SourceToSink<OpenSearchSinkTask> pipe = Pipes.open(new ConcurrentHashMap<>(), Pipes.sourceProps(source, "shuffle"),
                Pipes.sinkProps(node, "index.name.format", prefix + "-ordered.${table}"))) {
            List<SinkRecord> delivered = new ArrayList<>();
            pipe.watching(delivered::add);
            Pipes.pumpUntil(pipe, "accounts", -1, () -> {
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
            for (SinkRecord r : delivered) {
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
        return rows;
    }
}
