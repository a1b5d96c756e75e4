package io.sluice.sink.postgres.apply;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.batch.TunedBatchSize;
import io.sluice.sink.core.ledger.OffsetLedger;
import io.sluice.sink.core.position.ReplaySkips;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.postgres.connections.ReplicaRole;
import io.sluice.sink.postgres.schema.MissingColumns;
import io.sluice.sink.postgres.schema.TargetTables;
import io.sluice.sink.postgres.state.AppliedPositions;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The PostgreSQL sink's change path (gathering, coalescing per key, sealing, writing), against
 * a real target and a model of the source's table. Invariant: whatever changes the source makes
 * — inserts, updates (of the key too, with unchanged TOASTed values that PostgreSQL does not
 * send), deletes, truncates, on a keyed table and on a keyless one (REPLICA IDENTITY FULL) — and
 * wherever batches are cut (at the batch size, inside and between source transactions, or when
 * the source has handed out all it had), the target ends with exactly the source's rows.
 */
class ChangeCoalescingIT {

    private static final Schema KEYED = SchemaBuilder.struct().name("src.app.k.Value").optional()
            .field("id", Schema.INT32_SCHEMA).field("v", Schema.OPTIONAL_STRING_SCHEMA).field("big", Schema.OPTIONAL_STRING_SCHEMA).build();
    private static final Schema KEYLESS = SchemaBuilder.struct().name("src.app.n.Value").optional()
            .field("a", Schema.OPTIONAL_INT32_SCHEMA).field("b", Schema.OPTIONAL_STRING_SCHEMA).build();
    private static final Schema KEYED_ENVELOPE = Envelope.schema("src.app.k", KEYED);
    private static final Schema KEYLESS_ENVELOPE = Envelope.schema("src.app.n", KEYLESS);
    private static final AtomicInteger TRIES = new AtomicInteger();

    private static TestDatabase target;
    private static PgEndpoint endpoint;

    /** What the source does next; {@code key}, {@code other} and {@code text} are read against the model's state. */
    enum Kind { INSERT, UPDATE, UPDATE_KEY, UPDATE_KEEPING_TOAST, MOVE_KEEPING_TOAST, DELETE, TRUNCATE, COMMIT, DRAINED,
        ROW_IN, ROW_CHANGED, ROW_OUT }

    record Step(Kind kind, int key, int other, String text) {
    }

    @BeforeContainer
    static void start() throws Exception {
        target = TestDatabases.create(ChangeCoalescingIT.class);
        target.execute("CREATE SCHEMA app", "CREATE TABLE app.k (id int PRIMARY KEY, v text, big text)", "CREATE TABLE app.n (a int, b text)");
        endpoint = PgEndpoint.parse(target.url());
    }

    @AfterContainer
    static void stop() throws Exception {
        if (target != null) {
            TestDatabases.drop(target);
        }
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Kind> kinds = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.just(Kind.INSERT)), net.jqwik.api.Tuple.of(5, Arbitraries.just(Kind.UPDATE)),
                net.jqwik.api.Tuple.of(2, Arbitraries.just(Kind.UPDATE_KEY)), net.jqwik.api.Tuple.of(2, Arbitraries.just(Kind.UPDATE_KEEPING_TOAST)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.MOVE_KEEPING_TOAST)), net.jqwik.api.Tuple.of(3, Arbitraries.just(Kind.DELETE)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.TRUNCATE)), net.jqwik.api.Tuple.of(4, Arbitraries.just(Kind.COMMIT)),
                net.jqwik.api.Tuple.of(2, Arbitraries.just(Kind.DRAINED)), net.jqwik.api.Tuple.of(3, Arbitraries.just(Kind.ROW_IN)),
                net.jqwik.api.Tuple.of(2, Arbitraries.just(Kind.ROW_CHANGED)), net.jqwik.api.Tuple.of(2, Arbitraries.just(Kind.ROW_OUT)));
        Arbitrary<String> texts = Arbitraries.oneOf(Arbitraries.strings().alpha().ofMaxLength(6),
                Arbitraries.strings().withChars("x\"'\\ ,ä").ofMinLength(0).ofMaxLength(3), Arbitraries.just(""));
        return Combinators.combine(kinds, Arbitraries.integers().between(0, 5), Arbitraries.integers().between(0, 5), texts)
                .as(Step::new).list().ofMaxSize(60);
    }

    @Provide
    Arbitrary<Long> batchBytes() {
        return Arbitraries.longs().between(1, 1 << 16).edgeCases(e -> e.add(1L).add(1L << 16));
    }

    @Property(tries = 60)
    void theTargetEndsWithTheSourcesRows(@ForAll("steps") List<Step> steps, @ForAll("batchBytes") long batchBytes) throws Exception {
        target.execute("TRUNCATE app.k, app.n");
        String source = "src" + TRIES.incrementAndGet(); // positions of a source of its own: nothing skipped from another try
        TreeMap<Integer, String[]> keyed = new TreeMap<>(); // id -> {v, big}
        List<Object[]> keyless = new ArrayList<>(); // {a, b}, a multiset
        OffsetLedger ledger = new OffsetLedger();
        TunedBatchSize size = new TunedBatchSize("test", Optional.empty(), batchBytes);
        TargetTables tables = new TargetTables(endpoint, "${schema}.${table}", "table.name.format");
        AppliedPositions positions = new AppliedPositions("sluice.applied_position");
        ChangeWriter writer = new ChangeWriter(endpoint, positions, null, new ReplicaRole(endpoint, false), 10_000,
                "apply.retry.timeout.ms", size, ledger);
        StreamedChanges changes = new StreamedChanges(writer, new TargetHolds(writer, positions, null), new SealPolicy(60_000), tables, size,
                ledger, new ReplaySkips(), new MissingColumns(tables, false, (sql, what) -> { }, () -> { }), false, () -> true);
        Source src = new Source(source, changes);
        try {
            for (Step step : steps) {
                src.apply(step, keyed, keyless);
            }
            changes.writeAll();
        } finally {
            changes.close();
            tables.close();
        }
        assertThat(targetKeyed()).as("app.k after %s", steps).isEqualTo(render(keyed));
        assertThat(targetKeyless()).as("app.n after %s", steps).isEqualTo(renderKeyless(keyless));
    }

    /** The source: makes change events as pgoutput would for the model's tables, in transactions. */
    private static final class Source {
        private final String name;
        private final StreamedChanges changes;
        private long lsn = 100;
        private long event;
        private long offset;

        Source(String name, StreamedChanges changes) {
            this.name = name;
            this.changes = changes;
        }

        void apply(Step step, TreeMap<Integer, String[]> keyed, List<Object[]> keyless) {
            int k = step.key();
            String t = step.text();
            switch (step.kind()) {
                case COMMIT -> {
                    lsn += 10;
                    event = 0;
                }
                case DRAINED -> changes.sendNow();
                case INSERT -> {
                    if (keyed.containsKey(k)) {
                        update(keyed, k, k, t, false);
                    } else {
                        keyed.put(k, new String[] {t, "big" + t});
                        send(KEYED_ENVELOPE, Operation.CREATE, null, keyedRow(k, t, "big" + t), new ConnectHeaders());
                    }
                }
                case UPDATE -> update(keyed, k, k, t, false);
                case UPDATE_KEEPING_TOAST -> update(keyed, k, k, t, true);
                case UPDATE_KEY -> update(keyed, k, step.other(), t, false);
                case MOVE_KEEPING_TOAST -> update(keyed, k, step.other(), t, true);
                case DELETE -> {
                    if (keyed.remove(k) != null) {
                        send(KEYED_ENVELOPE, Operation.DELETE, keyedRow(k, null, null), null,
                                keyOnly());
                    }
                }
                case TRUNCATE -> {
                    keyed.clear();
                    send(KEYED_ENVELOPE, Operation.TRUNCATE, null, null, new ConnectHeaders());
                }
                case ROW_IN -> {
                    keyless.add(new Object[] {k, t});
                    send(KEYLESS_ENVELOPE, Operation.CREATE, null, keylessRow(k, t), new ConnectHeaders());
                }
                case ROW_CHANGED -> {
                    if (!keyless.isEmpty()) {
                        Object[] old = keyless.remove(step.other() % keyless.size());
                        keyless.add(new Object[] {k, t});
                        send(KEYLESS_ENVELOPE, Operation.UPDATE, keylessRow((Integer) old[0], (String) old[1]), keylessRow(k, t),
                                new ConnectHeaders());
                    }
                }
                case ROW_OUT -> {
                    if (!keyless.isEmpty()) {
                        Object[] old = keyless.remove(step.other() % keyless.size());
                        send(KEYLESS_ENVELOPE, Operation.DELETE, keylessRow((Integer) old[0], (String) old[1]), null, new ConnectHeaders());
                    }
                }
            }
        }

        /** An update of row {@code from} (absent: nothing happens) to key {@code to} (taken by another row: the key stays). */
        private void update(TreeMap<Integer, String[]> keyed, int from, int to, String v, boolean keepBig) {
            String[] old = keyed.get(from);
            if (old == null) {
                return;
            }
            if (to != from && keyed.containsKey(to)) {
                to = from;
            }
            String big = keepBig ? old[1] : "big" + v + "!";
            keyed.remove(from);
            keyed.put(to, new String[] {v, big});
            ConnectHeaders headers = keyOnly();
            if (keepBig) {
                headers.addString(EventHeaders.UNCHANGED_TOAST, "big");
            }
            if (to != from) {
                headers.addString(EventHeaders.KEY_CHANGED, "true");
            }
            send(KEYED_ENVELOPE, Operation.UPDATE, keyedRow(from, null, null), keyedRow(to, v, keepBig ? null : big), headers);
        }

        private void send(Schema envelope, Operation op, Struct before, Struct after, ConnectHeaders headers) {
            String table = envelope == KEYED_ENVELOPE ? "k" : "n";
            event++;
            SourceInfo info = new SourceInfo(name, name, "app", table, 1_700_000_000_000_000L, SourceInfo.Snapshot.FALSE, lsn, lsn, null);
            Struct value = Envelope.create(envelope, op, before, after, info, 1_700_000_000_000_000L);
            value.put(Envelope.TRANSACTION, Envelope.transaction(lsn, lsn, event, event));
            SinkRecord record = new SinkRecord(name + ".app." + table, 0, null, null, envelope, value, offset++, null, null, headers);
            changes.change(record, "src.app." + table, value, op, value.getStruct(Envelope.SOURCE), SourcePosition.of(value));
        }
    }

    private static ConnectHeaders keyOnly() {
        ConnectHeaders headers = new ConnectHeaders();
        headers.addString(EventHeaders.KEY_ONLY_BEFORE, "true");
        return headers;
    }

    private static Struct keyedRow(int id, String v, String big) {
        return new Struct(KEYED).put("id", id).put("v", v).put("big", big);
    }

    private static Struct keylessRow(int a, String b) {
        return new Struct(KEYLESS).put("a", a).put("b", b);
    }

    private static List<String> render(TreeMap<Integer, String[]> keyed) {
        List<String> rows = new ArrayList<>();
        keyed.forEach((id, r) -> rows.add(id + "|" + r[0] + "|" + r[1]));
        return rows;
    }

    private static Map<String, Integer> renderKeyless(List<Object[]> rows) {
        Map<String, Integer> counts = new TreeMap<>();
        rows.forEach(r -> counts.merge(r[0] + "|" + r[1], 1, Integer::sum));
        return counts;
    }

    private static List<String> targetKeyed() throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = target.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, v, big FROM app.k ORDER BY id")) {
            while (rs.next()) {
                rows.add(rs.getInt(1) + "|" + rs.getString(2) + "|" + rs.getString(3));
            }
        }
        return rows;
    }

    private static Map<String, Integer> targetKeyless() throws Exception {
        Map<String, Integer> counts = new TreeMap<>();
        try (Connection c = target.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT a, b, count(*) FROM app.n GROUP BY a, b")) {
            while (rs.next()) {
                counts.put(rs.getInt(1) + "|" + rs.getString(2), rs.getInt(3));
            }
        }
        return counts;
    }
}
