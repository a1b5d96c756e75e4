package io.sluice.schemas.converter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;

/**
 * What the converter learned about schemas, both ways, bounded: a schema's bytes by the schema
 * (by identity first, as a source hands out the same schema object for every row of a table,
 * then by equality), and a schema by its bytes, so that a message's schema is decoded once and
 * then only compared. Thread-safe; a converter instance is normally used by one task thread.
 */
final class SchemaCache {

    private final int capacity;
    /** The format version this cache writes schemas in; it reads both. */
    private final int writtenFormat;
    private final Map<Schema, byte[]> bytesBySchemaObject = new IdentityHashMap<>();
    private final Map<Schema, byte[]> bytesByEqualSchema;
    private final Map<Key, Schema> schemaByBytes;

    SchemaCache(int capacity, int writtenFormat) {
        this.capacity = capacity;
        this.writtenFormat = writtenFormat;
        this.bytesByEqualSchema = lru(capacity);
        this.schemaByBytes = lru(capacity);
    }

    /** The encoded schema. */
    synchronized byte[] bytesOf(Schema schema) {
        byte[] bytes = bytesBySchemaObject.get(schema);
        if (bytes != null) {
            return bytes;
        }
        bytes = bytesByEqualSchema.get(schema);
        if (bytes == null) {
            BinaryOut out = new BinaryOut(256);
            SchemaEncoding.write(schema, out, refsFor(writtenFormat));
            bytes = out.toByteArray();
            bytesByEqualSchema.put(schema, bytes);
        }
        if (bytesBySchemaObject.size() >= capacity) {
            bytesBySchemaObject.clear(); // a source that makes a new schema object per record: start over rather than grow
        }
        bytesBySchemaObject.put(schema, bytes);
        return bytes;
    }

    /** The schema encoded in {@code buf[from, from + length)} in {@code format}, decoded only the first time those bytes are seen. */
    synchronized Schema schemaAt(byte[] buf, int from, int length, int format) {
        Key probe = new Key(buf, from, length, format);
        Schema schema = schemaByBytes.get(probe);
        if (schema == null) {
            BinaryIn in = new BinaryIn(Arrays.copyOf(buf, from + length), from);
            schema = SchemaEncoding.read(in, refsFor(format));
            if (!in.atEnd()) {
                throw new org.apache.kafka.connect.errors.DataException("Malformed message: its schema is shorter than its length says");
            }
            schemaByBytes.put(probe.owned(), schema);
        }
        return schema;
    }

    private static SchemaRefs refsFor(int format) {
        return format >= 2 ? SchemaRefs.forOneSchema() : SchemaRefs.none();
    }

    private <K, V> Map<K, V> lru(int size) {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > size;
            }
        };
    }

    /**
     * A range of bytes compared by content, and the format they are in (format 1 refuses what
     * format 2 reads as a reference); a probe points into the message, a stored key owns a copy.
     */
    private static final class Key {
        private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

        private final byte[] buf;
        private final int from;
        private final int to;
        private final int format;
        private final int hash;

        Key(byte[] buf, int from, int length, int format) {
            this.buf = buf;
            this.from = from;
            this.to = from + length;
            this.format = format;
            this.hash = hash(buf, from, to) + format;
        }

        /**
         * Eight bytes a step: every message's schema is hashed to find it (hundreds of bytes, most of
         * a change event's message); byte by byte, that was about a tenth of a sink task's time on
         * Connect. A key found is then confirmed with {@link Arrays#equals(byte[], int, int, byte[], int, int)},
         * which compares many bytes at a time too.
         */
        static int hash(byte[] buf, int from, int to) {
            long h = to - from;
            int i = from;
            for (; i + Long.BYTES <= to; i += Long.BYTES) {
                h = h * 0x9E3779B97F4A7C15L + (long) LONGS.get(buf, i);
            }
            for (; i < to; i++) {
                h = h * 31 + buf[i];
            }
            return (int) (h ^ (h >>> 32));
        }

        Key owned() {
            return new Key(Arrays.copyOfRange(buf, from, to), 0, to - from, format);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && k.format == format && Arrays.equals(buf, from, to, k.buf, k.from, k.to);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
