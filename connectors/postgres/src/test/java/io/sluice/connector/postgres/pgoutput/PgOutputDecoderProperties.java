package io.sluice.connector.postgres.pgoutput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Begin;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Column;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Commit;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Delete;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Insert;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.LogicalMessage;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Origin;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Relation;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Truncate;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Tuple;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Type;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Update;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Invariants of the pgoutput decoder, against an independent encoder written from the protocol
 * documentation: every message decodes to what was encoded, and a message cut short anywhere is
 * rejected with a message-level error rather than misread.
 */
class PgOutputDecoderProperties {

    @Property
    void decodingInvertsEncoding(@ForAll("messages") PgOutputMessage message) {
        assertThat(PgOutputDecoder.decode(ByteBuffer.wrap(encode(message)))).isEqualTo(message);
    }

    @Property
    void aMessageCutShortIsRejected(@ForAll("messages") PgOutputMessage message, @ForAll("fractions") double cut) {
        byte[] bytes = encode(message);
        int length = (int) Math.floor(cut * (bytes.length - 1)) + 1;
        ByteBuffer shorter = ByteBuffer.wrap(Arrays.copyOf(bytes, Math.min(length, bytes.length - 1)));
        assertThatThrownBy(() -> PgOutputDecoder.decode(shorter)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("pgoutput");
    }

    @Property
    void decodesFromASliceOfALargerBuffer(@ForAll("messages") PgOutputMessage message) {
        byte[] bytes = encode(message);
        byte[] padded = new byte[bytes.length + 7];
        System.arraycopy(bytes, 0, padded, 3, bytes.length);
        ByteBuffer slice = ByteBuffer.wrap(padded, 3, bytes.length).slice();
        assertThat(PgOutputDecoder.decode(slice)).isEqualTo(message);
    }

    @Provide
    Arbitrary<Double> fractions() {
        return Arbitraries.doubles().between(0, 1);
    }

    @Provide
    Arbitrary<PgOutputMessage> messages() {
        Arbitrary<Long> lsns = Arbitraries.longs();
        Arbitrary<String> names = Arbitraries.strings().ofMinLength(0).ofMaxLength(20)
                .withChars("abcXYZ_ 0é€\"").filter(s -> s.indexOf('\0') < 0);
        Arbitrary<Tuple> tuples = tuples();
        Arbitrary<Column> columns = Combinators.combine(Arbitraries.of(true, false), names, Arbitraries.integers(), Arbitraries.integers())
                .as(Column::new);
        return Arbitraries.oneOf(
                Combinators.combine(lsns, lsns, Arbitraries.integers()).as(Begin::new),
                Combinators.combine(Arbitraries.of(0), lsns, lsns, lsns).as(Commit::new),
                Combinators.combine(lsns, names).as(Origin::new),
                Combinators.combine(Arbitraries.integers(), names, names, Arbitraries.of('d', 'n', 'f', 'i'),
                        columns.list().ofMaxSize(12)).as(Relation::new),
                Combinators.combine(Arbitraries.integers(), names, names).as(Type::new),
                Combinators.combine(Arbitraries.integers(), tuples).as(Insert::new),
                Combinators.combine(Arbitraries.integers(), Arbitraries.of((char) 0, 'K', 'O'), tuples, tuples)
                        .as((oid, kind, old, now) -> new Update(oid, kind, kind == 0 ? null : old, now)),
                Combinators.combine(Arbitraries.integers(), Arbitraries.of('K', 'O'), tuples).as(Delete::new),
                Combinators.combine(Arbitraries.of(true, false), Arbitraries.of(true, false),
                        Arbitraries.integers().array(int[].class).ofMaxSize(10)).as(Truncate::new),
                Combinators.combine(Arbitraries.of(true, false), lsns, names, Arbitraries.bytes().array(byte[].class).ofMaxSize(300))
                        .as(LogicalMessage::new));
    }

    private static Arbitrary<Tuple> tuples() {
        Arbitrary<byte[]> values = Arbitraries.bytes().array(byte[].class).ofMaxSize(64);
        Arbitrary<Byte> kinds = Arbitraries.of(Tuple.NULL, Tuple.UNCHANGED_TOAST, Tuple.TEXT, Tuple.BINARY);
        return Combinators.combine(kinds, values).as((kind, value) -> new Object[] {kind, value}).list().ofMaxSize(20).map(cells -> {
            byte[] k = new byte[cells.size()];
            byte[][] v = new byte[cells.size()][];
            for (int i = 0; i < k.length; i++) {
                k[i] = (Byte) cells.get(i)[0];
                v[i] = k[i] == Tuple.TEXT || k[i] == Tuple.BINARY ? (byte[]) cells.get(i)[1] : null;
            }
            return new Tuple(k, v);
        });
    }

    /** The wire form, per the "Logical Replication Message Formats" chapter of the PostgreSQL manual. */
    static byte[] encode(PgOutputMessage message) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            if (message instanceof Begin b) {
                out.writeByte('B');
                out.writeLong(b.finalLsn());
                out.writeLong(b.commitTimestamp());
                out.writeInt(b.xid());
            } else if (message instanceof Commit c) {
                out.writeByte('C');
                out.writeByte(c.flags());
                out.writeLong(c.commitLsn());
                out.writeLong(c.endLsn());
                out.writeLong(c.commitTimestamp());
            } else if (message instanceof Origin o) {
                out.writeByte('O');
                out.writeLong(o.originLsn());
                cString(out, o.name());
            } else if (message instanceof Relation r) {
                out.writeByte('R');
                out.writeInt(r.oid());
                cString(out, r.namespace());
                cString(out, r.name());
                out.writeByte(r.replicaIdentity());
                out.writeShort(r.columns().size());
                for (Column c : r.columns()) {
                    out.writeByte(c.key() ? 1 : 0);
                    cString(out, c.name());
                    out.writeInt(c.typeOid());
                    out.writeInt(c.typeModifier());
                }
            } else if (message instanceof Type t) {
                out.writeByte('Y');
                out.writeInt(t.oid());
                cString(out, t.namespace());
                cString(out, t.name());
            } else if (message instanceof Insert i) {
                out.writeByte('I');
                out.writeInt(i.relationOid());
                out.writeByte('N');
                tuple(out, i.newTuple());
            } else if (message instanceof Update u) {
                out.writeByte('U');
                out.writeInt(u.relationOid());
                if (u.oldKind() != 0) {
                    out.writeByte(u.oldKind());
                    tuple(out, u.oldTuple());
                }
                out.writeByte('N');
                tuple(out, u.newTuple());
            } else if (message instanceof Delete d) {
                out.writeByte('D');
                out.writeInt(d.relationOid());
                out.writeByte(d.oldKind());
                tuple(out, d.oldTuple());
            } else if (message instanceof Truncate t) {
                out.writeByte('T');
                out.writeInt(t.relationOids().length);
                out.writeByte((t.cascade() ? 1 : 0) | (t.restartIdentity() ? 2 : 0));
                for (int oid : t.relationOids()) {
                    out.writeInt(oid);
                }
            } else if (message instanceof LogicalMessage m) {
                out.writeByte('M');
                out.writeByte(m.transactional() ? 1 : 0);
                out.writeLong(m.lsn());
                cString(out, m.prefix());
                out.writeInt(m.content().length);
                out.write(m.content());
            } else {
                throw new AssertionError(message);
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return bytes.toByteArray();
    }

    private static void tuple(DataOutputStream out, Tuple t) throws IOException {
        out.writeShort(t.size());
        for (int i = 0; i < t.size(); i++) {
            out.writeByte(t.kind(i));
            if (t.bytes(i) != null) {
                out.writeInt(t.bytes(i).length);
                out.write(t.bytes(i));
            }
        }
    }

    private static void cString(DataOutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.UTF_8));
        out.writeByte(0);
    }
}
