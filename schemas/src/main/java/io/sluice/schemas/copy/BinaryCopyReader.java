package io.sluice.schemas.copy;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Reads PostgreSQL's binary COPY format ({@code COPY ... TO STDOUT (FORMAT binary)}) tuple by
 * tuple. Each tuple is kept as its raw bytes, so it can be decoded field by field or passed on
 * unchanged to a binary COPY into another database.
 */
public final class BinaryCopyReader {

    private final DataInputStream in;
    private byte[] tuple = new byte[8192];
    private int tupleLength;
    private int fieldCount;
    private final int[] fieldOffsets;
    private final int[] fieldLengths;

    public BinaryCopyReader(InputStream in, int expectedFields) throws IOException {
        this.in = new DataInputStream(in);
        this.fieldOffsets = new int[expectedFields];
        this.fieldLengths = new int[expectedFields];
        readHeader();
    }

    private void readHeader() throws IOException {
        byte[] signature = new byte[BinaryCopyWriter.SIGNATURE.length];
        in.readFully(signature);
        if (!Arrays.equals(signature, BinaryCopyWriter.SIGNATURE)) {
            throw new IOException("Not a binary COPY stream: bad signature");
        }
        int flags = in.readInt();
        if ((flags & (1 << 16)) != 0) {
            throw new IOException("Binary COPY stream with OIDs is not supported");
        }
        int extension = in.readInt();
        in.skipNBytes(extension);
    }

    /** Moves to the next tuple; false at the trailer. */
    public boolean next() throws IOException {
        short count;
        try {
            count = in.readShort();
        } catch (EOFException e) {
            throw new IOException("Binary COPY stream ended without its trailer", e);
        }
        if (count == -1) {
            return false;
        }
        if (count != fieldOffsets.length) {
            throw new IOException("Binary COPY tuple has " + count + " fields, expected " + fieldOffsets.length);
        }
        fieldCount = count;
        tupleLength = 0;
        ensure(2);
        tuple[tupleLength++] = (byte) (count >>> 8);
        tuple[tupleLength++] = (byte) count;
        for (int i = 0; i < count; i++) {
            int length = in.readInt();
            ensure(4);
            tuple[tupleLength++] = (byte) (length >>> 24);
            tuple[tupleLength++] = (byte) (length >>> 16);
            tuple[tupleLength++] = (byte) (length >>> 8);
            tuple[tupleLength++] = (byte) length;
            fieldOffsets[i] = tupleLength;
            fieldLengths[i] = length;
            if (length > 0) {
                ensure(length);
                in.readFully(tuple, tupleLength, length);
                tupleLength += length;
            }
        }
        return true;
    }

    public int fieldCount() {
        return fieldCount;
    }

    public boolean isNull(int field) {
        return fieldLengths[field] < 0;
    }

    /** The field's bytes as a buffer positioned at its start and limited to its end; null for SQL NULL. */
    public ByteBuffer field(int field) {
        if (isNull(field)) {
            return null;
        }
        return ByteBuffer.wrap(tuple, fieldOffsets[field], fieldLengths[field]).slice();
    }

    /** The whole current tuple in binary COPY form; valid until the next call to {@link #next()}. */
    public byte[] tupleBytes() {
        return tuple;
    }

    public int tupleLength() {
        return tupleLength;
    }

    private void ensure(int more) {
        if (tupleLength + more > tuple.length) {
            tuple = Arrays.copyOf(tuple, Math.max(tuple.length * 2, tupleLength + more));
        }
    }
}
