package io.sluice.sink.postgres.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import io.sluice.schemas.converter.BinaryConverter;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.deadletter.DeadLetterStore;
import io.sluice.sink.core.position.SourcePosition;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The dead-letter store of the {@code sluice} command, which has no Kafka topic for them: a table
 * on the target, beside Sluice's other tables. Each row keeps the record whole (key and value in
 * Sluice's binary format, schema included, so it can be read back exactly), a readable rendering
 * of the value, where it came from (topic, offset, source table and position) and the reason.
 * A record is committed there before its report completes, so a record sent here is never lost.
 */
public final class DeadLetterTable implements DeadLetterStore, AutoCloseable {

    private final PgEndpoint endpoint;
    private final String schema;
    private final String qualified;
    private final String pipeline;
    private final BinaryConverter keys = new BinaryConverter();
    private final BinaryConverter values = new BinaryConverter();
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
        keys.configure(Map.of(), true);
        values.configure(Map.of(), false);
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
                Struct value = record.value() instanceof Struct v ? v : null;
                Struct source = value != null && value.schema().field(Envelope.SOURCE) != null
                        && value.get(Envelope.SOURCE) instanceof Struct block ? block : null;
                SourcePosition position = source == null ? null : SourcePosition.of(value);
                s.setString(1, pipeline);
                s.setString(2, record.topic());
                s.setInt(3, record.kafkaPartition() == null ? 0 : record.kafkaPartition());
                s.setLong(4, record.kafkaOffset());
                s.setString(5, source != null && source.schema().field("table") != null
                        ? source.getString("schema") + "." + source.getString("table") : null);
                s.setString(6, position == null ? null : position.toString());
                s.setString(7, String.valueOf(error.getMessage()));
                s.setString(8, String.valueOf(record.value()));
                s.setBytes(9, record.key() == null ? null : keys.fromConnectData(record.topic(), record.keySchema(), record.key()));
                s.setBytes(10, record.value() == null || record.valueSchema() == null ? null
                        : values.fromConnectData(record.topic(), record.valueSchema(), record.value()));
                StringJoiner headers = new StringJoiner(", ");
                record.headers().forEach(h -> headers.add(h.key() + "=" + h.value()));
                s.setString(11, headers.toString());
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

    /** Records kept here by this store since it was made. */
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
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // it is being dropped
            }
            connection = null;
        }
    }

    @Override
    public synchronized void close() {
        closeConnection();
    }
}
