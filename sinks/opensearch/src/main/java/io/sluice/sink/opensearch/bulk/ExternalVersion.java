package io.sluice.sink.opensearch.bulk;

import io.sluice.sink.core.position.SourcePosition;
import org.apache.kafka.connect.errors.DataException;

/**
 * The external version a write carries, from the change's source position, so that OpenSearch
 * itself keeps a newer version of a document from being overwritten by an older one, whatever
 * order writes arrive in (replays, retries, bulks in flight at once, several tasks).
 *
 * <p>The version is the commit LSN shifted left by {@value #EVENT_BITS} bits, plus the event's
 * place in its transaction. Commit LSNs order transactions, and two transactions that change one
 * row commit in the order of their changes (the second waits for the first's row lock), so a
 * row's versions rise with its changes. Snapshot rows carry {@link #SNAPSHOT}, below every
 * streamed change: a change committed after the snapshot replaces the row, one committed before
 * it (streamed again after a restart) is refused as older.
 *
 * <p>Limits, said where they bite: a transaction's events past the 65,535th share one version (the
 * write then uses {@code external_gte}, so the later of two equal versions in stream order wins);
 * a commit LSN from {@code 8000/00000000} on (128 TiB of WAL) no longer fits and is refused.
 */
public record ExternalVersion(long value, boolean gte) {

    static final int EVENT_BITS = 16;
    static final long MAX_EVENT = (1L << EVENT_BITS) - 1;
    /** The first commit LSN that does not fit. */
    static final long LSN_LIMIT = 1L << (63 - EVENT_BITS);

    /** The version of snapshot rows: below every streamed change. */
    public static final ExternalVersion SNAPSHOT = new ExternalVersion(1, false);

    /**
     * The version of rows of a table's copy into the stream (they carry no position): above the
     * initial snapshot's rows, below every streamed change. A task that takes over a partition
     * while the copy is written replays from Connect's committed offset, which may lie before the
     * snapshot's end; a replayed snapshot row written into the copy's new index version must not
     * keep that version's copied row (which holds the columns the table has now) out.
     */
    public static final ExternalVersion COPY = new ExternalVersion(2, false);

    /** The version of a streamed change at this position. */
    public static ExternalVersion of(SourcePosition position) {
        long lsn = position.commitLsn();
        if (lsn < 0 || lsn >= LSN_LIMIT) {
            throw new DataException("Commit LSN " + position.lsnText() + " is past 8000/00000000, beyond what an OpenSearch "
                    + "external version can hold with the event's place in its transaction; the OpenSearch sink cannot order "
                    + "changes of this source");
        }
        long event = Math.max(0, position.event());
        boolean saturated = event >= MAX_EVENT;
        return new ExternalVersion((lsn << EVENT_BITS) | Math.min(event, MAX_EVENT), saturated);
    }

    /** The {@code version_type} of the write. */
    public String type() {
        return gte ? "external_gte" : "external";
    }
}
