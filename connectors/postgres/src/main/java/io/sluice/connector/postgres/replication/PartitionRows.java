package io.sluice.connector.postgres.replication;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Rows that a partition brought into its root's tree (ATTACH PARTITION) or took out of it (DETACH
 * PARTITION), as Sluice's capture triggers send them when partitions are published through their
 * root: pgoutput itself sends no change for them. One message holds some of them, in the
 * command's transaction, with the root's columns; the stream makes them inserts or deletes of the
 * root there.
 *
 * @param attached whether the rows came in (inserts) or went out (deletes)
 * @param root     the root as a Relation message would describe it, for the rows' column order
 * @param rows     text values (null for NULL) in the root's column order
 */
record PartitionRows(boolean attached, PgOutputMessage.Relation root, List<String[]> rows) {

    /** Prefix of the messages ({@code sluice_capture.emit_partition_rows}). */
    static final String MESSAGE_PREFIX = "sluice.rows";

    private static final ObjectMapper JSON = new ObjectMapper();

    static PartitionRows parse(byte[] content) {
        JsonNode message;
        try {
            message = JSON.readTree(content);
        } catch (IOException e) {
            throw new ConnectException("A " + MESSAGE_PREFIX + " message of the capture triggers is not JSON: " + e.getMessage(), e);
        }
        List<PgOutputMessage.Column> columns = new ArrayList<>();
        for (JsonNode c : message.path("columns")) {
            columns.add(new PgOutputMessage.Column(false, c.path(0).asText(), (int) c.path(1).asLong(), c.path(2).asInt()));
        }
        List<String[]> rows = new ArrayList<>();
        for (JsonNode r : message.path("rows")) {
            String[] values = new String[columns.size()];
            for (int i = 0; i < values.length; i++) {
                JsonNode v = r.path(i);
                values[i] = v.isNull() || v.isMissingNode() ? null : v.asText();
            }
            rows.add(values);
        }
        PgOutputMessage.Relation root = new PgOutputMessage.Relation((int) message.path("oid").asLong(), message.path("schema").asText(),
                message.path("name").asText(), 'd', columns);
        return new PartitionRows(message.path("attached").asBoolean(), root, rows);
    }

    /** Whether a relation already known for the root has the columns of these rows, in their order. */
    boolean fits(PgOutputMessage.Relation known) {
        List<PgOutputMessage.Column> mine = root.columns();
        List<PgOutputMessage.Column> theirs = known.columns();
        if (mine.size() != theirs.size()) {
            return false;
        }
        for (int i = 0; i < mine.size(); i++) {
            if (!mine.get(i).name().equals(theirs.get(i).name()) || mine.get(i).typeOid() != theirs.get(i).typeOid()) {
                return false;
            }
        }
        return true;
    }
}
