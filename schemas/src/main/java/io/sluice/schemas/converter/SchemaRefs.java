package io.sluice.schemas.converter;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;

/**
 * The references of one message's schema in format 2: a sub-schema equal to one written before
 * in the same schema (an envelope's {@code before} and {@code after} rows) is written as that
 * one's place, and one of {@link KnownSchemas} as its number. Writer and reader count the same
 * places: each struct, array, map or named schema, once it is complete (so never an ancestor of
 * the reference), a known one too. Only equal bytes make a reference: schemas whose defaults are
 * NaNs of different payloads are equal to {@code Schema.equals} but not to a reader. Format 1 has
 * neither; {@link #none()} writes and reads it.
 */
final class SchemaRefs {

    /** Type codes past format 1's: a reference to an earlier place, then to a known schema. */
    static final int EARLIER = 13;
    static final int KNOWN = 14;

    private final boolean enabled;
    /** Writing: each place's schema as format 1 writes it (exact to the bit, where {@code Schema.equals} takes all NaNs for one). */
    private final Map<ByteBuffer, Integer> placeOf = new HashMap<>();
    private int placesWritten;
    /** Reading: each place's schema. */
    private final List<Schema> places = new ArrayList<>();

    private SchemaRefs(boolean enabled) {
        this.enabled = enabled;
    }

    /** References for one schema in format 2. */
    static SchemaRefs forOneSchema() {
        return new SchemaRefs(true);
    }

    /** No references: format 1. */
    static SchemaRefs none() {
        return new SchemaRefs(false);
    }

    /** What identifies {@code schema} among places, or null when it is none (or there are no references). */
    ByteBuffer keyOf(Schema schema) {
        return enabled && countsAsPlace(schema) ? exactly(schema) : null;
    }

    /** Writes the schema of {@code key} as a reference, counting the place a known one takes, and returns true when it can be one. */
    boolean writeReference(ByteBuffer key, BinaryOut out) {
        Integer number = KnownSchemas.numberOf(key);
        if (number != null) {
            out.write(KNOWN);
            out.writeVarLong(number);
            placedKey(key);
            return true;
        }
        Integer place = placeOf.get(key);
        if (place != null) {
            out.write(EARLIER);
            out.writeVarLong(place);
            return true;
        }
        return false;
    }

    /** Counts the place of a schema just written in full. */
    void placedKey(ByteBuffer key) {
        placeOf.putIfAbsent(key, placesWritten++);
    }

    /** The schema a reference read with {@code code} stands for. */
    Schema readReference(int code, BinaryIn in) {
        if (!enabled) {
            throw new DataException("Malformed message: unknown schema type code " + code);
        }
        long n = in.readVarLong();
        if (code == KNOWN) {
            Schema known = KnownSchemas.byNumber(n);
            places.add(known);
            return known;
        }
        if (n < 0 || n >= places.size()) {
            throw new DataException("Malformed message: its schema refers to sub-schema " + n + " of " + places.size() + " before it");
        }
        return places.get((int) n);
    }

    /** Counts the place of a schema just read in full. */
    void placed(Schema schema) {
        if (enabled && countsAsPlace(schema)) {
            places.add(schema);
        }
    }

    /** A schema as format 1 writes it: what a reference must stand for, bit for bit. */
    static ByteBuffer exactly(Schema schema) {
        BinaryOut out = new BinaryOut(64);
        SchemaEncoding.write(schema, out, none());
        return ByteBuffer.wrap(out.toByteArray());
    }

    static boolean isReference(int code) {
        return code == EARLIER || code == KNOWN;
    }

    /** Whether a reference is worth it: a plain primitive's own code is as short as one. */
    private static boolean countsAsPlace(Schema schema) {
        Schema.Type type = schema.type();
        return type == Schema.Type.STRUCT || type == Schema.Type.ARRAY || type == Schema.Type.MAP || schema.name() != null;
    }
}
