package io.sluice.sink.webhook.delivery;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

import io.sluice.sink.webhook.state.DeliveryLog;
import io.sluice.sink.webhook.state.DeliveryLog.Attempt;

/**
 * Where a subscription's deliveries stand, and what of it is written: the outbox rows read and
 * not yet settled, the place before which every row is settled (delivered or failed for good),
 * the attempts not yet in the delivery log, and since when deliveries fail. The place is written
 * only with the attempts that settled it, in one transaction, so after a restart a change is
 * sent again rather than skipped.
 */
final class Settlement {

    static final long FLUSH_MILLIS = 100;
    static final int FLUSH_ATTEMPTS = 500;

    private final String subscription;
    private final DeliveryLog log;
    private final TreeSet<Long> unsettled = new TreeSet<>();
    private final List<Attempt> pending = new ArrayList<>();
    private long read;
    private volatile long position;
    private long writtenPosition;
    private Instant failingSince;
    private Instant writtenFailingSince;
    private long lastFlushMillis;

    Settlement(String subscription, DeliveryLog log, long position, Instant failingSince) {
        this.subscription = subscription;
        this.log = log;
        this.read = position;
        this.position = position;
        this.writtenPosition = position;
        this.failingSince = failingSince;
        this.writtenFailingSince = failingSince;
    }

    /** The outbox has been read up to this row; these rows of it wait for delivery. */
    void read(List<Long> seqs, long upTo) {
        unsettled.addAll(seqs);
        read = Math.max(read, upTo);
        place();
    }

    /** Rows up to here were removed by retention before they were read: the place moves past them. */
    void skipTo(long removedThrough) {
        read = Math.max(read, removedThrough);
        place();
    }

    long readUpTo() {
        return read;
    }

    void attempted(Attempt attempt) {
        pending.add(attempt);
    }

    /** A row is delivered or failed for good. */
    void settled(long seq) {
        unsettled.remove(seq);
        place();
    }

    void succeeded() {
        failingSince = null;
    }

    /** A delivery failed at this time; returns since when deliveries fail without a success. */
    Instant failed(Instant at) {
        if (failingSince == null) {
            failingSince = at;
        }
        return failingSince;
    }

    /** The place before which every row is settled. */
    long position() {
        return position;
    }

    private void place() {
        position = unsettled.isEmpty() ? read : unsettled.first() - 1;
    }

    /** Whether something waits to be written. */
    boolean dirty() {
        return !pending.isEmpty() || position != writtenPosition || !Objects.equals(failingSince, writtenFailingSince);
    }

    /** When the next write is due, for a loop that waits. */
    long flushDueMillis() {
        return lastFlushMillis + FLUSH_MILLIS;
    }

    /** Writes the attempts and the place when due (every {@value #FLUSH_MILLIS} ms or {@value #FLUSH_ATTEMPTS} attempts), or now. */
    void flush(Connection c, long nowMillis, boolean now) throws SQLException {
        if (!dirty()) {
            return;
        }
        if (!now && pending.size() < FLUSH_ATTEMPTS && nowMillis - lastFlushMillis < FLUSH_MILLIS) {
            return;
        }
        long at = position;
        Instant failing = failingSince;
        log.write(c, subscription, pending, at, failing);
        pending.clear();
        writtenPosition = at;
        writtenFailingSince = failing;
        lastFlushMillis = nowMillis;
    }
}
