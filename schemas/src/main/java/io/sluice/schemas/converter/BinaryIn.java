package io.sluice.schemas.converter;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.apache.kafka.connect.errors.DataException;

/** Reads what {@link BinaryOut} wrote, refusing to read past the end of the message. */
final class BinaryIn {

    private final byte[] buf;
    private int pos;

    BinaryIn(byte[] buf, int pos) {
        this.buf = buf;
        this.pos = pos;
    }

    int read() {
        if (pos >= buf.length) {
            throw truncated();
        }
        return buf[pos++] & 0xFF;
    }

    long readVarLong() {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = read();
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new DataException("Malformed message: a variable-length number runs past 64 bits at byte " + pos);
    }

    long readZigZag() {
        long raw = readVarLong();
        return (raw >>> 1) ^ -(raw & 1);
    }

    int readFixed32() {
        return (read() << 24) | (read() << 16) | (read() << 8) | read();
    }

    long readFixed64() {
        return ((long) readFixed32() << 32) | (readFixed32() & 0xFFFFFFFFL);
    }

    /** A length or a count: not negative, and for bytes not beyond what the message holds. */
    int readLength(boolean ofBytes) {
        long n = readVarLong();
        if (n < 0 || n > Integer.MAX_VALUE || (ofBytes && n > buf.length - pos)) {
            throw truncated();
        }
        return (int) n;
    }

    String readString() {
        int n = readLength(true);
        String s = new String(buf, pos, n, StandardCharsets.UTF_8);
        pos += n;
        return s;
    }

    byte[] readBytes() {
        int n = readLength(true);
        byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
        pos += n;
        return out;
    }

    /** Skips {@code n} bytes, checked. */
    void skip(int n) {
        if (n > buf.length - pos) {
            throw truncated();
        }
        pos += n;
    }

    int position() {
        return pos;
    }

    boolean atEnd() {
        return pos == buf.length;
    }

    private DataException truncated() {
        return new DataException("Malformed message: it ends before its data does (" + buf.length + " bytes)");
    }
}
