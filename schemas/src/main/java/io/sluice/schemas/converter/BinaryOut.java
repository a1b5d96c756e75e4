package io.sluice.schemas.converter;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable byte buffer with the few encodings the binary format uses: varints, zigzag, fixed-width numbers, strings. */
final class BinaryOut {

    /**
     * Strings this long or longer are encoded by getBytes, shorter ones char by char (16: above
     * the source block's names and codes, below a pgbench filler; not tuned).
     */
    private static final int SHORT_STRING = 16;

    private byte[] buf;
    private int size;

    BinaryOut(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    void write(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    void write(byte[] bytes, int offset, int length) {
        ensure(length);
        System.arraycopy(bytes, offset, buf, size, length);
        size += length;
    }

    /** Unsigned LEB128: seven bits a byte, the high bit saying more follows. */
    void writeVarLong(long value) {
        ensure(10);
        while ((value & ~0x7FL) != 0) {
            buf[size++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        buf[size++] = (byte) value;
    }

    /** Signed numbers as zigzag varints, so small negative numbers stay short too. */
    void writeZigZag(long value) {
        writeVarLong((value << 1) ^ (value >> 63));
    }

    void writeFixed32(int value) {
        ensure(4);
        buf[size++] = (byte) (value >>> 24);
        buf[size++] = (byte) (value >>> 16);
        buf[size++] = (byte) (value >>> 8);
        buf[size++] = (byte) value;
    }

    void writeFixed64(long value) {
        writeFixed32((int) (value >>> 32));
        writeFixed32((int) value);
    }

    /**
     * UTF-8 with its byte length first. Short strings (names, codes, most of the source block),
     * when ASCII, are written char by char straight into the buffer, without the array getBytes
     * makes; longer ones through getBytes, whose check and copy of an ASCII string are each one
     * vectorised pass (a char loop over a pgbench filler was a fifth of encoding an event).
     */
    void writeString(String s) {
        int n = s.length();
        if (n >= SHORT_STRING) {
            writeBytes(s.getBytes(StandardCharsets.UTF_8));
            return;
        }
        int start = size;
        writeVarLong(n);
        ensure(n);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                size = start;
                writeBytes(s.getBytes(StandardCharsets.UTF_8));
                return;
            }
            buf[size + i] = (byte) c;
        }
        size += n;
    }

    void writeBytes(byte[] bytes) {
        writeVarLong(bytes.length);
        write(bytes, 0, bytes.length);
    }

    void writeBytes(ByteBuffer bytes) {
        ByteBuffer view = bytes.duplicate(); // leaves the caller's position where it was
        int length = view.remaining();
        writeVarLong(length);
        ensure(length);
        view.get(buf, size, length);
        size += length;
    }

    /** Empties the buffer for the next message, keeping its array unless a huge message grew it past {@code maxKept} bytes. */
    void reset(int maxKept) {
        size = 0;
        if (buf.length > maxKept) {
            buf = new byte[maxKept];
        }
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            long wanted = Math.max((long) buf.length * 2, (long) size + more);
            if (wanted > Integer.MAX_VALUE - 8) {
                throw new org.apache.kafka.connect.errors.DataException("A value over 2 GB cannot be written as one Kafka message");
            }
            buf = Arrays.copyOf(buf, (int) wanted);
        }
    }
}
