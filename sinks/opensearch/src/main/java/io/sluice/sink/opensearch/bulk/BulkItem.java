package io.sluice.sink.opensearch.bulk;

import io.sluice.sink.core.position.SourcePosition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * One write of a {@code _bulk} request: its lines' place in the batch's body, and what a failure
 * of it is reported with (the record, its table, its source position).
 *
 * @param start    the first byte of its action line in the body
 * @param end      one past the last byte of its source line (or action line, for a delete)
 * @param position the change's source position; null for snapshot rows
 */
public record BulkItem(SinkRecord record, String table, String index, String id, SourcePosition position, int start, int end) {

    /** Where the write came from, for messages: table, document id and position. */
    public String describe() {
        return table + " document " + id + (position == null ? " (snapshot)" : " at " + position);
    }
}
