package io.sluice.sink.postgres.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.batch.RememberedSizes;
import io.sluice.sink.core.pgstate.MissingRelation;
import io.sluice.sink.core.pgstate.OwnTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batch sizes a sink connector's tuners last settled on, in {@code batch_sizes} beside the
 * position table: one row per connector and kind of batches, read when the sink starts and
 * written whenever a tuner settles. Both on a thread of their own, on a connection opened for it
 * (a tuner settles once a search, so seldom): across a long link a connection takes several
 * round trips, which no batch should wait for.
 */
public final class BatchSizes implements RememberedSizes, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BatchSizes.class);

    private final PgEndpoint endpoint;
    private final String schema;
    private final String qualified;
    private final String connector;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sluice-batch-sizes");
        t.setDaemon(true);
        return t;
    });

    /** What the table held for this connector when the sink started, by kind of batches; read on the writer thread. */
    private final Future<Map<String, Long>> stored;

    /**
     * Starts reading the connector's sizes at once, so that the read overlaps the sink's other
     * work at start (across a long link, a connection takes several round trips).
     *
     * @param connector the sink connector's name: two pipelines into one target keep their sizes apart
     */
    public BatchSizes(PgEndpoint endpoint, String schema, String connector) {
        this.endpoint = endpoint;
        this.schema = schema;
        this.qualified = Identifiers.quote(schema, "batch_sizes");
        this.connector = connector;
        this.stored = writer.submit(this::readAll);
    }

    private Map<String, Long> readAll() {
        Map<String, Long> sizes = new HashMap<>();
        try (Connection c = PgConnect.open(endpoint, "sluice batch sizes");
             PreparedStatement s = c.prepareStatement("SELECT batches, bytes FROM " + qualified + " WHERE connector = ?")) {
            s.setString(1, connector);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    sizes.put(rs.getString(1), rs.getLong(2));
                }
            }
        } catch (SQLException | RuntimeException e) {
            if (!(e instanceof SQLException sql && MissingRelation.is(sql))) {
                LOG.info("Could not read the last tuned batch sizes from {} ({}); tuning starts at the configured size", qualified,
                        e.getMessage());
            }
        }
        return sizes;
    }

    @Override
    public OptionalLong read(String batches) {
        try {
            Long bytes = stored.get().get(batches);
            return bytes == null ? OptionalLong.empty() : OptionalLong.of(bytes);
        } catch (ExecutionException e) {
            return OptionalLong.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return OptionalLong.empty();
        }
    }

    @Override
    public void write(String batches, long bytes, double bytesPerSecond) {
        writer.execute(() -> {
            try (Connection c = PgConnect.open(endpoint, "sluice batch sizes")) {
                OwnTables.create(c, "CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(schema), "CREATE TABLE IF NOT EXISTS " + qualified
                        + " (connector text NOT NULL, batches text NOT NULL, bytes bigint NOT NULL, bytes_per_second double precision, "
                        + "tuned_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (connector, batches))");
                try (PreparedStatement s = c.prepareStatement("INSERT INTO " + qualified + " (connector, batches, bytes, bytes_per_second) "
                        + "VALUES (?, ?, ?, ?) ON CONFLICT (connector, batches) DO UPDATE SET bytes = EXCLUDED.bytes, "
                        + "bytes_per_second = EXCLUDED.bytes_per_second, tuned_at = now()")) {
                    s.setString(1, connector);
                    s.setString(2, batches);
                    s.setLong(3, bytes);
                    s.setDouble(4, bytesPerSecond);
                    s.executeUpdate();
                }
            } catch (SQLException | RuntimeException e) {
                LOG.info("Could not keep the tuned batch size in {} ({}); the next run searches for it again", qualified, e.getMessage());
            }
        });
    }

    /** Lets a size being written finish, for a few seconds at most. */
    @Override
    public void close() {
        writer.shutdown();
        try {
            if (!writer.awaitTermination(5, TimeUnit.SECONDS)) {
                writer.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            writer.shutdownNow();
        }
    }
}
