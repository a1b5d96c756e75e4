package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Tuple;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.TableSchema;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.MappingOptions;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.PgType;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The transaction assembly of {@link ChangeRecords}, against a model of what a stream of
 * transactions must become, drained at any point between messages: every change of a selected
 * table in commit order, a key change as a delete of the old key and then the update; each
 * record's offset names its transaction's commit position and its place among the selected
 * changes of it; a transaction's last record carries its own end as the confirm position, every
 * other record the end of the transaction before (so a crash after any durable record resumes
 * without loss); changes of tables outside the selection take no place; and with a handed-out
 * position given, exactly the changes at or before it are left out.
 */
class ChangeRecordsProperties {

    private static final int SELECTED = 16_384;
    private static final int OTHER = 16_390;
    private static final long START = 0x1000_0000L;

    /** One change: an insert, an update (of the key too when {@code newId} differs), a delete or a truncate, of either table. */
    record Change(char kind, boolean selected, int id, int newId, String value) {
    }

    @Property(tries = 300)
    void recordsAreTheSelectedChangesInCommitOrderWithPositionsThatResumeExactly(
            @ForAll("transactions") List<List<Change>> transactions, @ForAll("drainAfter") List<Integer> drainPoints,
            @ForAll("skip") int skipPick) {
        List<Expected> expected = new ArrayList<>();
        List<long[]> txs = new ArrayList<>(); // finalLsn, endLsn, xid
        long lsn = START;
        for (List<Change> tx : transactions) {
            long finalLsn = lsn + 64 + tx.size() * 40L;
            long end = finalLsn + 48;
            txs.add(new long[]{finalLsn, end});
            lsn = end;
        }
        // The handed-out position: a model event chosen among those the stream has (or none).
        List<long[]> events = new ArrayList<>();
        for (int t = 0; t < transactions.size(); t++) {
            long event = 0;
            for (Change c : transactions.get(t)) {
                if (c.selected()) {
                    for (int r = 0; r < recordsOf(c); r++) {
                        events.add(new long[]{txs.get(t)[0], ++event});
                    }
                }
            }
        }
        long skipCommit = 0;
        long skipEvent = 0;
        if (!events.isEmpty() && skipPick % 3 != 0) {
            long[] e = events.get(Math.floorMod(skipPick, events.size()));
            skipCommit = e[0];
            skipEvent = e[1];
        }
        long previousEnd = START;
        for (int t = 0; t < transactions.size(); t++) {
            long finalLsn = txs.get(t)[0];
            long event = 0;
            List<Expected> ofTx = new ArrayList<>();
            for (Change c : transactions.get(t)) {
                if (!c.selected()) {
                    continue;
                }
                for (String op : opsOf(c)) {
                    event++;
                    boolean sent = Long.compareUnsigned(finalLsn, skipCommit) < 0 || (finalLsn == skipCommit && event <= skipEvent);
                    if (!sent) {
                        ofTx.add(new Expected(op, finalLsn, event, previousEnd, false));
                    }
                }
            }
            if (!ofTx.isEmpty()) {
                Expected last = ofTx.remove(ofTx.size() - 1);
                ofTx.add(new Expected(last.op(), last.commit(), last.event(), txs.get(t)[1], true));
            }
            expected.addAll(ofTx);
            previousEnd = txs.get(t)[1];
        }

        ChangeRecords records = new ChangeRecords("p", "db", Map.of("server", "p"), Map.of(), this::resolve, START, skipCommit, skipEvent,
                (schema, name, ancestors) -> true, (m, l) -> { }, Map.of(), StreamResyncs.none());
        List<SourceRecord> out = new ArrayList<>();
        List<PgOutputMessage> messages = messages(transactions, txs);
        for (int i = 0; i < messages.size(); i++) {
            records.accept(messages.get(i));
            if (drainPoints.contains(i % 16)) {
                out.addAll(records.drain());
            }
        }
        out.addAll(records.drain());
        assertThat(records.holding()).as("nothing held once the last transaction committed").isFalse();
        assertThat(records.lastCompleteEnd()).isEqualTo(previousEnd);

        List<Expected> actual = out.stream().map(ChangeRecordsProperties::observed).toList();
        assertThat(actual).isEqualTo(expected);
    }

    /** @param ends the record says it ends its transaction */
    record Expected(String op, long commit, long event, long confirm, boolean ends) {
    }

    private static Expected observed(SourceRecord r) {
        Map<?, ?> offset = (Map<?, ?>) r.sourceOffset();
        String op = ((Struct) r.value()).getString(Envelope.OP);
        if (r.headers().lastWithName(EventHeaders.KEY_MOVED_AWAY) != null) {
            op = op + "-moved";
        }
        return new Expected(op, (Long) offset.get(ChangeRecords.COMMIT_LSN), (Long) offset.get(ChangeRecords.EVENT),
                (Long) offset.get(ChangeRecords.CONFIRM_LSN), r.headers().lastWithName(EventHeaders.TRANSACTION_END) != null);
    }

    private static int recordsOf(Change c) {
        return opsOf(c).size();
    }

    /** The records a change of the selected table becomes, by op code. */
    private static List<String> opsOf(Change c) {
        return switch (c.kind()) {
            case 'i' -> List.of("c");
            case 'u' -> c.id() != c.newId() ? List.of("d-moved", "u") : List.of("u");
            case 'd' -> List.of("d");
            default -> List.of("t");
        };
    }

    private List<PgOutputMessage> messages(List<List<Change>> transactions, List<long[]> txs) {
        List<PgOutputMessage> messages = new ArrayList<>();
        messages.add(relation(SELECTED, "t"));
        messages.add(relation(OTHER, "other"));
        for (int t = 0; t < transactions.size(); t++) {
            long finalLsn = txs.get(t)[0];
            messages.add(new PgOutputMessage.Begin(finalLsn, 1_000_000L * t, 700 + t));
            for (Change c : transactions.get(t)) {
                int oid = c.selected() ? SELECTED : OTHER;
                messages.add(switch (c.kind()) {
                    case 'i' -> new PgOutputMessage.Insert(oid, row(c.id(), c.value()));
                    case 'u' -> c.id() != c.newId() ? new PgOutputMessage.Update(oid, 'K', keyOnly(c.id()), row(c.newId(), c.value()))
                            : new PgOutputMessage.Update(oid, (char) 0, null, row(c.id(), c.value()));
                    case 'd' -> new PgOutputMessage.Delete(oid, 'K', keyOnly(c.id()));
                    default -> new PgOutputMessage.Truncate(false, false, new int[]{oid});
                });
            }
            messages.add(new PgOutputMessage.Commit(0, finalLsn, txs.get(t)[1], 1_000_000L * t));
        }
        return messages;
    }

    private static Tuple row(int id, String value) {
        byte[] text = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
        return new Tuple(new byte[]{Tuple.TEXT, value == null ? Tuple.NULL : Tuple.TEXT},
                new byte[][]{String.valueOf(id).getBytes(StandardCharsets.UTF_8), text});
    }

    private static Tuple keyOnly(int id) {
        return new Tuple(new byte[]{Tuple.TEXT, Tuple.NULL}, new byte[][]{String.valueOf(id).getBytes(StandardCharsets.UTF_8), null});
    }

    private static PgOutputMessage.Relation relation(int oid, String name) {
        return new PgOutputMessage.Relation(oid, "public", name, 'd', List.of(new PgOutputMessage.Column(true, "id", 23, -1),
                new PgOutputMessage.Column(false, "v", 25, -1)));
    }

    private StreamTable resolve(PgOutputMessage.Relation relation) {
        PgType int4 = new PgType(23, "pg_catalog", "int4", PgType.Kind.BASE, "int4recv", ',', -1, null, null, null);
        PgType text = new PgType(25, "pg_catalog", "text", PgType.Kind.BASE, "textrecv", ',', -1, null, null, null);
        TypeMapper mapper = new TypeMapper(MappingOptions.DEFAULTS);
        String table = "public." + relation.name();
        List<ColumnMapping> columns = List.of(mapper.map(new PgColumn(table, "id", int4, -1, 0, false, "integer", false)),
                mapper.map(new PgColumn(table, "v", text, -1, 0, true, "text", false)));
        TableSchema schema = TableSchema.of("p", "public", relation.name(), columns, List.of("id"));
        return new StreamTable(relation, relation.oid() == SELECTED, schema, columns);
    }

    @Provide
    Arbitrary<List<List<Change>>> transactions() {
        Arbitrary<Change> change = Combinators.combine(Arbitraries.of('i', 'u', 'u', 'd', 't'), Arbitraries.of(true, true, true, false),
                Arbitraries.integers().between(-2, 5), Arbitraries.integers().between(-2, 5),
                Arbitraries.strings().withCharRange('a', 'z').ofMaxLength(3).injectNull(0.2)).as(Change::new);
        // Empty transactions too: the slot's own (a DDL of another table, say) still move the confirm position.
        return change.list().ofMaxSize(6).list().ofMaxSize(8);
    }

    @Provide
    Arbitrary<List<Integer>> drainAfter() {
        return Arbitraries.integers().between(0, 15).list().ofMaxSize(16);
    }

    @Provide
    Arbitrary<Integer> skip() {
        return Arbitraries.integers().between(0, 1000);
    }
}
