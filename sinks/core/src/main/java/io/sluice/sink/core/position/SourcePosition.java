package io.sluice.sink.core.position;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.lookup.RecentSchemas;
import io.sluice.schemas.postgres.Lsn;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * Where a change sits in its source's stream: the commit position of its transaction and its
 * place in that transaction (from 1). Changes are applied, and compared, in this order.
 *
 * @param commitLsn the transaction's commit LSN, compared unsigned
 * @param event     the change's place in its transaction
 */
public record SourcePosition(long commitLsn, long event) implements Comparable<SourcePosition> {

    /**
     * The position of a change event, from its source block's {@code lsn} and its transaction
     * block's {@code total_order}; null when the event carries no transaction block (a producer
     * that does not write it), which leaves the change without exactly-once protection.
     */
    public static SourcePosition of(Struct envelope) {
        Fields fields = FIELDS.of(envelope.schema());
        if (fields == null) {
            return null;
        }
        Struct transaction = (Struct) envelope.get(fields.transaction());
        Struct source = (Struct) envelope.get(fields.source());
        if (transaction == null || source == null) {
            return null;
        }
        Field lsnField = fields.lsn(source.schema());
        Field orderField = fields.order(transaction.schema());
        if (lsnField == null || orderField == null) {
            return null;
        }
        Long lsn = (Long) source.get(lsnField);
        Long order = (Long) transaction.get(orderField);
        return lsn == null || order == null ? null : new SourcePosition(lsn, order);
    }

    /**
     * The fields a position is read from, found once per envelope schema instead of by name for
     * every change (four lookups by name were a twentieth of the embedded sink thread's time).
     * The blocks' fields are those of the schemas the envelope declares; a block struct of another
     * schema (which Connect's validation lets through when equal) is read by name.
     */
    private record Fields(Field transaction, Field source, Field declaredLsn, Field declaredOrder) {

        /** Null when the envelope has no transaction block, or its blocks lack the fields. */
        static Fields of(Schema envelope) {
            Field transaction = envelope.field(Envelope.TRANSACTION);
            Field source = envelope.field(Envelope.SOURCE);
            if (transaction == null || source == null || transaction.schema().type() != Schema.Type.STRUCT
                    || source.schema().type() != Schema.Type.STRUCT) {
                return null;
            }
            Field lsn = int64(source.schema(), "lsn");
            Field order = int64(transaction.schema(), "total_order");
            return lsn == null || order == null ? null : new Fields(transaction, source, lsn, order);
        }

        Field lsn(Schema block) {
            return block == source.schema() ? declaredLsn : int64(block, "lsn");
        }

        Field order(Schema block) {
            return block == transaction.schema() ? declaredOrder : int64(block, "total_order");
        }

        /** The block's field of that name; null when it has none; an error naming it when it is no INT64. */
        private static Field int64(Schema block, String name) {
            Field field = block.field(name);
            if (field != null && field.schema().type() != Schema.Type.INT64) {
                throw new DataException("Field " + name + " of the change event's " + block.name() + " block is " + field.schema().type()
                        + ", not INT64: the event's position cannot be read. Send the source connector's events unchanged");
            }
            return field;
        }
    }

    private static final RecentSchemas<Fields> FIELDS = new RecentSchemas<>(Fields::of);

    @Override
    public int compareTo(SourcePosition other) {
        int byCommit = Lsn.compare(commitLsn, other.commitLsn);
        return byCommit != 0 ? byCommit : Long.compare(event, other.event);
    }

    /** The later of two positions (the first when they are equal). */
    public static SourcePosition newer(SourcePosition a, SourcePosition b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** The commit LSN as PostgreSQL writes it, e.g. {@code 0/16B3748}. */
    public String lsnText() {
        return Lsn.format(commitLsn);
    }

    @Override
    public String toString() {
        return lsnText() + "#" + event;
    }
}
