package io.sluice.connector.postgres.replication;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.sluice.connector.postgres.schema.SequenceValues;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.schemas.envelope.SequenceEvents;
import io.sluice.schemas.naming.TopicNames;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * While changes stream, reads the source's sequence values every interval and hands them out as
 * an event on {@code <prefix>.sequences}: logical decoding does not carry sequences, and a target
 * whose sequences lag hands out ids that collide after a cut-over.
 */
public final class SequenceSync implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SequenceSync.class);

    private final String topicPrefix;
    private final long intervalNanos;
    private final boolean all;
    private final TableSelector selector;
    private final Supplier<Connection> connections;
    private Connection connection;
    private long last = System.nanoTime();
    private boolean warned;

    /**
     * @param intervalMillis how often; 0 for never
     * @param all            every sequence of the database; else those owned by the selected tables
     */
    public SequenceSync(String topicPrefix, long intervalMillis, boolean all, TableSelector selector, Supplier<Connection> connections) {
        this.topicPrefix = topicPrefix;
        this.intervalNanos = intervalMillis * 1_000_000L;
        this.all = all;
        this.selector = selector;
        this.connections = connections;
    }

    /** The event when one is due (read now), else null. A failure to read is logged and tried again next time. */
    public SourceRecord due() {
        if (intervalNanos <= 0 || System.nanoTime() - last < intervalNanos) {
            return null;
        }
        last = System.nanoTime();
        try {
            if (connection == null || connection.isClosed()) {
                connection = connections.get();
            }
            String database = connection.getCatalog();
            SequenceValues.Read read = SequenceValues.read(connection, all, selector);
            warnOnce(read.unreadable());
            return new SourceRecord(Map.of("sequences", topicPrefix), Map.of("ts_ms", System.currentTimeMillis()),
                    TopicNames.forSequences(topicPrefix), null, null, null, SequenceEvents.VALUE_SCHEMA,
                    SequenceEvents.value(topicPrefix, database, System.currentTimeMillis(), read.values()));
        } catch (SQLException | RuntimeException e) {
            LOG.warn("Reading the sequence values of {} failed ({}); tried again in {} s", topicPrefix, e.getMessage(), intervalNanos / 1_000_000_000L);
            close();
            return null;
        }
    }

    private void warnOnce(List<String> unreadable) {
        if (!unreadable.isEmpty() && !warned) {
            warned = true;
            LOG.warn("The source user may not read {} sequence(s) ({}{}), so the target's copies are not kept in step with them. "
                    + "GRANT SELECT ON SEQUENCE {} TO <user> (or SELECT ON ALL SEQUENCES IN SCHEMA ...)", unreadable.size(),
                    String.join(", ", unreadable.subList(0, Math.min(5, unreadable.size()))), unreadable.size() > 5 ? ", ..." : "",
                    unreadable.get(0));
        }
    }

    @Override
    public void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("Closing the sequence connection", e);
            }
            connection = null;
        }
    }
}
