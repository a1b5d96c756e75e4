package io.sluice.schemas.converter;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;

import io.sluice.schemas.SluiceVersion;

/**
 * Schemas that format 2 writes by number: the blocks every change event of Sluice's source
 * carries whatever its table (the source block, 280 bytes written out, and the transaction
 * block), which were two fifths of a pgbench_accounts change's message.
 *
 * <p>Each entry is the schema as format 1 writes it, kept as bytes rather than taken from the
 * code that makes the blocks today, so a number keeps its meaning when a block changes: a changed
 * block gets a new entry at the end, and its old entry stays for the messages already written.
 * Never edit or remove an entry. A reader that meets a number past its table is older than the
 * writer and says so.
 */
final class KnownSchemas {

    /** Numbered from 1, in this order; append only. */
    private static final List<String> ENCODED = List.of(
            // 1: io.sluice.connector.postgresql.Source, the source block of Sluice 0.x (SourceInfo.SCHEMA).
            "DAIlaW8uc2x1aWNlLmNvbm5lY3Rvci5wb3N0Z3Jlc3FsLlNvdXJjZQ4HdmVyc2lvbggACWNvbm5lY3RvcggABG5hbWUIAAV0c19tcwQACHNuYXBzaG90CDcV"
                    + "aW8uZGViZXppdW0uZGF0YS5FbnVtAgEHYWxsb3dlZFJ0cnVlLGZpcnN0LGZpcnN0X2luX2RhdGFfY29sbGVjdGlvbixsYXN0X2luX2RhdGFfY29sbGVjdGlv"
                    + "bixsYXN0LGZhbHNlLGluY3JlbWVudGFsAQVmYWxzZQJkYggACHNlcXVlbmNlCAEFdHNfdXMEAQV0c19ucwQBBnNjaGVtYQgABXRhYmxlCAAEdHhJZAQBA2xz"
                    + "bgQBBHhtaW4EAQ==",
            // 2: event.block version 1, the transaction block (Envelope.TRANSACTION_SCHEMA).
            "DAcLZXZlbnQuYmxvY2sCAwJpZAgAC3RvdGFsX29yZGVyBAAVZGF0YV9jb2xsZWN0aW9uX29yZGVyBAA=");

    private static final Schema[] BY_NUMBER = new Schema[ENCODED.size() + 1];
    private static final Map<ByteBuffer, Integer> NUMBERS = new HashMap<>();

    static {
        for (int i = 0; i < ENCODED.size(); i++) {
            byte[] bytes = Base64.getDecoder().decode(ENCODED.get(i));
            BY_NUMBER[i + 1] = SchemaEncoding.read(new BinaryIn(bytes, 0), SchemaRefs.none());
            NUMBERS.putIfAbsent(ByteBuffer.wrap(bytes), i + 1);
        }
    }

    private KnownSchemas() {
    }

    /** The number of the schema written {@code exactly} so in format 1, or null when it has none. */
    static Integer numberOf(ByteBuffer exactly) {
        return NUMBERS.get(exactly);
    }

    static Schema byNumber(long number) {
        if (number <= 0 || number >= BY_NUMBER.length) {
            throw new DataException("it uses Sluice's built-in schema number " + number + ", which this Sluice (version "
                    + SluiceVersion.get() + ") does not know: it was written by a newer Sluice. Upgrade the connector that reads it");
        }
        return BY_NUMBER[(int) number];
    }

    /** How many schemas the table holds. */
    static int size() {
        return ENCODED.size();
    }
}
