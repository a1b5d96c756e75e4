package io.sluice.sink.core.position;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.postgres.Lsn;
import org.apache.kafka.connect.data.Struct;

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
        if (envelope.schema().field(Envelope.TRANSACTION) == null) {
            return null;
        }
        Struct transaction = envelope.getStruct(Envelope.TRANSACTION);
        Struct source = envelope.getStruct(Envelope.SOURCE);
        if (transaction == null || source == null || source.schema().field("lsn") == null) {
            return null;
        }
        Long lsn = source.getInt64("lsn");
        Long order = transaction.getInt64("total_order");
        return lsn == null || order == null ? null : new SourcePosition(lsn, order);
    }

    @Override
    public int compareTo(SourcePosition other) {
        int byCommit = Lsn.compare(commitLsn, other.commitLsn);
        return byCommit != 0 ? byCommit : Long.compare(event, other.event);
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
