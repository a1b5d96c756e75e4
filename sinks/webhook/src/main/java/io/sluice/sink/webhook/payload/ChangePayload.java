package io.sluice.sink.webhook.payload;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.zip.CRC32C;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.json.RowJson;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.webhook.state.OutboxEntry;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A change event as the JSON a subscriber receives, and its outbox entry:
 * <pre>{@code
 * {"id": "msg_…", "operation": "update", "schema": "public", "table": "orders",
 *  "key": {"id": 7}, "before": {…} | null, "after": {…} | null,
 *  "changed_columns": ["status"] | null, "unchanged_toast_columns": ["notes"],
 *  "source": {"name": "shop", "lsn": "0/16B3748", "event": 3, "tx_id": 771,
 *             "commit_time": "2026-11-28T10:15:30.123Z", "snapshot": false}}
 * }</pre>
 * {@code before} holds the whole old row only where the table has REPLICA IDENTITY FULL; else
 * an update's or delete's {@code before} holds the key columns only. {@code changed_columns} is
 * known only with a whole old row (null otherwise). Columns whose TOASTed values an update did
 * not touch are left out of {@code after} and named in {@code unchanged_toast_columns}.
 */
public final class ChangePayload {

    private static final JsonFactory JSON = new JsonFactory();
    private static final RowJson ROWS = new RowJson();

    private ChangePayload() {
    }

    /**
     * The outbox entry of a row event; null for events a subscriber is not sent: tombstones,
     * sequence values, the delete that comes before a key change (the update says it), and the
     * truncation that begins a table's copy into the stream (the copied rows follow as reads).
     *
     * @throws DataException when the event is none a webhook can carry, saying why
     */
    public static OutboxEntry of(SinkEvent event) {
        switch (event.kind()) {
            case TOMBSTONE, SEQUENCES, KEY_RANGE -> {
                // a key range's deletes are for targets that hold rows; subscribers got the chunk's rows as reads
                return null;
            }
            case RAW_ROWS -> throw new DataException("Raw COPY tuples of " + event.table() + " reached the webhook sink; they are for "
                    + "PostgreSQL targets only: set snapshot.raw.tuples=false on the source");
            case SCHEMA_CHANGE -> throw new DataException("A schema event is not a row change");
            default -> {
            }
        }
        SinkRecord record = event.record();
        if (EventHeaders.isSet(record.headers(), EventHeaders.KEY_MOVED_AWAY)) {
            return null;
        }
        if (event.op() == Operation.TRUNCATE && event.copiedIntoStream()) {
            return null;
        }
        Struct value = event.value();
        Struct source = event.source();
        String operation = operation(event);
        Struct key = record.key() instanceof Struct k && !k.schema().fields().isEmpty() ? k : null;
        Struct before = value.getStruct(Envelope.BEFORE);
        Struct after = value.getStruct(Envelope.AFTER);
        Set<String> unchanged = EventHeaders.unchangedToast(record.headers());
        boolean keyOnlyBefore = EventHeaders.isSet(record.headers(), EventHeaders.KEY_ONLY_BEFORE);
        List<String> changed = operation.equals("update") && before != null && !keyOnlyBefore && after != null
                ? changedColumns(before, after, unchanged) : null;
        SourcePosition position = event.kind() == SinkEvent.Kind.SNAPSHOT_ROW ? null : event.position();
        String relation = event.table();
        String deliveryId = deliveryId(event, position, relation, key);
        long commitMillis = source.getInt64("ts_ms");
        byte[] keyJson = key == null ? new byte[0] : json(out -> ROWS.write(key, Set.of(), out));
        byte[] body = json(out -> {
            out.writeStartObject();
            out.writeStringField("id", deliveryId);
            out.writeStringField("operation", operation);
            out.writeStringField("schema", source.getString("schema"));
            out.writeStringField("table", source.getString("table"));
            out.writeFieldName("key");
            if (key == null) {
                out.writeNull();
            } else {
                ROWS.write(key, Set.of(), out);
            }
            out.writeFieldName("before");
            if (before == null) {
                out.writeNull();
            } else {
                ROWS.write(before, keyOnlyBefore ? notKey(before, key) : Set.of(), out);
            }
            out.writeFieldName("after");
            if (after == null) {
                out.writeNull();
            } else {
                ROWS.write(after, unchanged, out);
            }
            out.writeFieldName("changed_columns");
            if (changed == null) {
                out.writeNull();
            } else {
                strings(changed, out);
            }
            if (!unchanged.isEmpty()) {
                out.writeFieldName("unchanged_toast_columns");
                strings(List.copyOf(unchanged), out);
            }
            out.writeObjectFieldStart("source");
            out.writeStringField("name", source.getString("name"));
            if (position != null) {
                out.writeStringField("lsn", position.lsnText());
                out.writeNumberField("event", position.event());
            }
            Long txId = source.schema().field("txId") == null ? null : source.getInt64("txId");
            if (txId != null) {
                out.writeNumberField("tx_id", txId);
            }
            out.writeStringField("commit_time", Instant.ofEpochMilli(commitMillis).toString());
            out.writeBooleanField("snapshot", event.kind() == SinkEvent.Kind.SNAPSHOT_ROW || event.kind() == SinkEvent.Kind.RELOAD);
            out.writeEndObject();
            out.writeEndObject();
        });
        CRC32C hash = new CRC32C();
        hash.update(relation.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        hash.update(0);
        hash.update(keyJson);
        org.apache.kafka.connect.header.Header onlyFor = record.headers().lastWithName(EventHeaders.RESYNC_FOR);
        return new OutboxEntry(deliveryId, event.sourceName(), relation, operation, (int) hash.getValue(), changed, position == null ? 0 : position.commitLsn(),
                commitMillis, body, onlyFor == null || onlyFor.value() == null ? null : onlyFor.value().toString());
    }

    private static String operation(SinkEvent event) {
        return switch (event.op()) {
            case CREATE -> "insert";
            case UPDATE -> "update";
            case DELETE -> "delete";
            case TRUNCATE -> "truncate";
            case READ -> "read";
            case MESSAGE -> throw new DataException("A logical decoding message is not a row change (in " + event.table() + ")");
        };
    }

    private static String deliveryId(SinkEvent event, SourcePosition position, String relation, Struct key) {
        String sourceName = event.sourceName();
        if (position != null) {
            return DeliveryIds.ofChange(sourceName, position);
        }
        Long snapshotMicros = event.source().getInt64("ts_us");
        long micros = snapshotMicros != null ? snapshotMicros : event.source().getInt64("ts_ms") * 1000L;
        if (key == null) {
            throw new DataException(relation + " has no primary key or replica identity index, so its snapshot rows have no stable "
                    + "delivery id; give it a primary key (or REPLICA IDENTITY USING INDEX on a unique index), or leave it out of the "
                    + "source's table.include.list");
        }
        return DeliveryIds.ofSnapshotRow(sourceName, micros, relation, key);
    }

    private static List<String> changedColumns(Struct before, Struct after, Set<String> unchanged) {
        List<String> changed = new ArrayList<>();
        for (Field field : after.schema().fields()) {
            if (unchanged.contains(field.name())) {
                continue;
            }
            Field old = before.schema().field(field.name());
            if (old == null || !same(before.get(old), after.get(field))) {
                changed.add(field.name());
            }
        }
        return changed;
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof ByteBuffer x) {
            a = bytes(x);
        }
        if (b instanceof ByteBuffer y) {
            b = bytes(y);
        }
        if (a instanceof byte[] x && b instanceof byte[] y) {
            return Arrays.equals(x, y);
        }
        return Objects.equals(a, b);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] copy = new byte[buffer.remaining()];
        buffer.duplicate().get(copy);
        return copy;
    }

    private static Set<String> notKey(Struct before, Struct key) {
        Set<String> others = new java.util.HashSet<>();
        for (Field field : before.schema().fields()) {
            if (key == null || key.schema().field(field.name()) == null) {
                others.add(field.name());
            }
        }
        return others;
    }

    private static void strings(List<String> values, JsonGenerator out) throws IOException {
        out.writeStartArray();
        for (String v : values) {
            out.writeString(v);
        }
        out.writeEndArray();
    }

    private interface Writing {
        void write(JsonGenerator out) throws IOException;
    }

    private static byte[] json(Writing writing) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (JsonGenerator out = JSON.createGenerator(bytes, JsonEncoding.UTF8)) {
            writing.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
