package io.sluice.sink.core.pgstate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.deadletter.DeadLetter;
import io.sluice.sink.core.deadletter.DeadLetterStore;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The dead-letter store of the {@code sluice} command, which has no Kafka topic for them: a table
 * on the target, beside Sluice's other tables. Each row keeps the record whole (key and value in
 * Sluice's binary format, schema included, so it can be read back exactly), a readable rendering
 * of the value, where it came from (topic, offset, source table and position) and the reason.
 * A record is committed there before its report completes, so a record sent here is never lost.
 */
public final class DeadLetterTable implements DeadLetterStore {

    private final PgEndpoint endpoint;
    private final String schema;
    private final String qualified;
    private final String pipeline;
    private final DeadLetter.Encoder encoder = new DeadLetter.Encoder();
    private Connection connection;
    private long kept;

    /**
     * @param schema   the schema of Sluice's own tables on the target
     * @param pipeline the pipeline's name: several pipelines into one target keep their records apart
     */
    public DeadLetterTable(PgEndpoint endpoint, String schema, String pipeline) {
        this.endpoint = endpoint;
        this.schema = schema;
        this.qualified = Identifiers.quote(schema, "dead_letters");
        this.pipeline = pipeline;
    }

    @Override
    public String where() {
        return "table " + schema + ".dead_letters on " + endpoint.display() + " (WHERE pipeline = '" + pipeline + "')";
    }

    @Override
    public synchronized Future<Void> report(SinkRecord record, Throwable error) {
        try {
            Connection c = connection();
            try (PreparedStatement s = c.prepareStatement("INSERT INTO " + qualified + " (pipeline, topic, kafka_partition, kafka_offset, "
                    + "source_table, source_position, reason, value_text, record_key, record_value, headers) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                DeadLetter letter = encoder.of(record, error);
                s.setString(1, pipeline);
                s.setString(2, letter.topic());
                s.setInt(3, letter.partition());
                s.setLong(4, letter.offset());
                s.setString(5, letter.sourceTable());
                s.setString(6, letter.sourcePosition());
                s.setString(7, letter.reason());
                s.setString(8, letter.valueText());
                s.setBytes(9, letter.key());
                s.setBytes(10, letter.value());
                s.setString(11, letter.headers());
                s.execute();
            }
            kept++;
            return CompletableFuture.completedFuture(null);
        } catch (SQLException e) {
            closeConnection();
            throw new ConnectException("The record at " + record.topic() + "@" + record.kafkaOffset() + " could not be applied ("
                    + error.getMessage() + ") nor kept in " + where() + ": " + PgConnect.explain(e, endpoint).getMessage(), e);
        }
    }

    @Override
    public synchronized long kept() {
        return kept;
    }

    /** How many records the pipeline has here; 0 when the table does not exist. */
    public long count(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM " + qualified + " WHERE pipeline = ?")) {
            s.setString(1, pipeline);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            if (MissingRelation.is(e)) {
                return 0;
            }
            throw e;
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = PgConnect.open(endpoint, "sluice dead letters");
            OwnTables.create(connection, "CREATE SCHEMA IF NOT EXISTS " + Identifiers.quote(schema) + "; CREATE TABLE IF NOT EXISTS "
                    + qualified + " (id bigserial PRIMARY KEY, pipeline text NOT NULL, topic text NOT NULL, kafka_partition int NOT NULL, "
                    + "kafka_offset bigint NOT NULL, source_table text, source_position text, reason text NOT NULL, value_text text, "
                    + "record_key bytea, record_value bytea, headers text, failed_at timestamptz NOT NULL DEFAULT now())");
        }
        return connection;
    }

    private void closeConnection() {
        PgConnect.closeQuietly(connection);
        connection = null;
    }

    @Override
    public synchronized void close() {
        closeConnection();
    }
}
