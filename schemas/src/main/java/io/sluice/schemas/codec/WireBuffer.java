package io.sluice.schemas.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable big-endian byte buffer for PostgreSQL's binary wire formats. Length-prefixed
 * parts (fields, array elements) are written by reserving the prefix, writing the body, and
 * patching the prefix, so no value is ever copied twice.
 */
public final class WireBuffer {

    private byte[] bytes;
    private int size;

    public WireBuffer() {
        this(256);
    }

    public WireBuffer(int capacity) {
        bytes = new byte[Math.max(16, capacity)];
    }

    public int size() {
        return size;
    }

    public void clear() {
        size = 0;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    /** The backing array; valid up to {@link #size()}. */
    public byte[] array() {
        return bytes;
    }

    public WireBuffer writeByte(int b) {
        ensure(1);
        bytes[size++] = (byte) b;
        return this;
    }

    public WireBuffer writeShort(int v) {
        ensure(2);
        bytes[size++] = (byte) (v >>> 8);
        bytes[size++] = (byte) v;
        return this;
    }

    public WireBuffer writeInt(int v) {
        ensure(4);
        bytes[size++] = (byte) (v >>> 24);
        bytes[size++] = (byte) (v >>> 16);
        bytes[size++] = (byte) (v >>> 8);
        bytes[size++] = (byte) v;
        return this;
    }

    public WireBuffer writeLong(long v) {
        writeInt((int) (v >>> 32));
        return writeInt((int) v);
    }

    public WireBuffer writeDouble(double v) {
        return writeLong(Double.doubleToRawLongBits(v));
    }

    public WireBuffer writeBytes(byte[] b) {
        return writeBytes(b, 0, b.length);
    }

    public WireBuffer writeBytes(byte[] b, int offset, int length) {
        ensure(length);
        System.arraycopy(b, offset, bytes, size, length);
        size += length;
        return this;
    }

    public WireBuffer writeUtf8(String s) {
        return writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Reserves a four-byte length prefix; pass the result to {@link #patchLength(int)} after the body. */
    public int reserveLength() {
        int at = size;
        writeInt(0);
        return at;
    }

    /** Sets a reserved prefix to the number of bytes written since it. */
    public void patchLength(int at) {
        int length = size - at - 4;
        bytes[at] = (byte) (length >>> 24);
        bytes[at + 1] = (byte) (length >>> 16);
        bytes[at + 2] = (byte) (length >>> 8);
        bytes[at + 3] = (byte) length;
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            // Doubling is cheap for small buffers; past 16 MB grow by half, so a big batch does not
            // briefly need three times its size.
            long grown = bytes.length < (16 << 20) ? (long) bytes.length * 2 : bytes.length + (bytes.length >> 1);
            long wanted = Math.max(grown, (long) size + more);
            if (wanted > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("A single binary value over 2 GiB cannot be sent to PostgreSQL");
            }
            bytes = Arrays.copyOf(bytes, (int) wanted);
        }
    }
}
