package io.sluice.sink.opensearch.bulk;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.sink.core.position.SourcePosition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A {@code _bulk} request being filled: its newline-delimited body, written in place as writes
 * are added, and its items.
 */
public final class BulkBatch {

    /** The body of one source line, written by the caller. */
    @FunctionalInterface
    public interface Source {
        void write(JsonGenerator out) throws IOException;
    }

    private static final JsonFactory JSON = new com.fasterxml.jackson.databind.MappingJsonFactory();

    private final Body body = new Body();
    private final List<BulkItem> items = new ArrayList<>();
    private final long startedNanos = System.nanoTime();
    private final long plannedBytes;

    /**
     * @param plannedBytes the size it is filled towards, for the tuner
     */
    public BulkBatch(long plannedBytes) {
        this.plannedBytes = plannedBytes;
    }

    /** Adds an index write of a whole document with its external version. */
    public void index(SinkRecord record, String table, String index, String id, SourcePosition position, ExternalVersion version,
                      Source source) {
        int start = body.size();
        try (JsonGenerator out = JSON.createGenerator(body, JsonEncoding.UTF8)) {
            action(out, "index", index, id, version);
            out.flush();
            body.write('\n');
            source.write(out);
            out.flush();
            body.write('\n');
        } catch (IOException | RuntimeException e) {
            body.truncate(start);
            if (e instanceof IOException io) {
                throw new UncheckedIOException(io);
            }
            throw (RuntimeException) e;
        }
        items.add(new BulkItem(record, table, index, id, position, start, body.size()));
    }

    /** Adds a versioned delete. */
    public void delete(SinkRecord record, String table, String index, String id, SourcePosition position, ExternalVersion version) {
        int start = body.size();
        try (JsonGenerator out = JSON.createGenerator(body, JsonEncoding.UTF8)) {
            action(out, "delete", index, id, version);
            out.flush();
            body.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        items.add(new BulkItem(record, table, index, id, position, start, body.size()));
    }

    private static void action(JsonGenerator out, String op, String index, String id, ExternalVersion version) throws IOException {
        out.writeStartObject();
        out.writeObjectFieldStart(op);
        out.writeStringField("_index", index);
        out.writeStringField("_id", id);
        out.writeNumberField("version", version.value());
        out.writeStringField("version_type", version.type());
        out.writeEndObject();
        out.writeEndObject();
    }

    public List<BulkItem> items() {
        return items;
    }

    public boolean isEmpty() {
        return items.isEmpty();
    }

    public int size() {
        return items.size();
    }

    public int bytes() {
        return body.size();
    }

    public long plannedBytes() {
        return plannedBytes;
    }

    public long ageNanos() {
        return System.nanoTime() - startedNanos;
    }

    /** The body holding only these items' lines (all of them: the batch's own buffer). */
    byte[] bodyOf(List<BulkItem> some, int[] length) {
        if (some.size() == items.size()) {
            length[0] = body.size();
            return body.buffer();
        }
        int total = 0;
        for (BulkItem item : some) {
            total += item.end() - item.start();
        }
        byte[] out = new byte[total];
        int at = 0;
        byte[] all = body.buffer();
        for (BulkItem item : some) {
            System.arraycopy(all, item.start(), out, at, item.end() - item.start());
            at += item.end() - item.start();
        }
        length[0] = total;
        return out;
    }

    /** A byte buffer whose array is read without a copy. */
    private static final class Body extends ByteArrayOutputStream {
        Body() {
            super(64 * 1024);
        }

        byte[] buffer() {
            return buf;
        }

        void truncate(int size) {
            count = size;
        }
    }
}
