package io.sluice.schemas.copy;

import java.io.ByteArrayOutputStream;
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
 *
 * <p>The fast source is the COPY OUT's own messages: the server sends each row in one CopyData
 * message, so a tuple is a message and nothing is copied or buffered to find it.
 */
public final class BinaryCopyReader {

    private static final int HEADER_LENGTH = BinaryCopyWriter.SIGNATURE.length + 8;

    /** The CopyData messages of a COPY OUT in order; null after the last. */
    @FunctionalInterface
    public interface Messages {
        byte[] next() throws IOException;
    }

    private final Messages messages;
    private boolean headerRead;
    private boolean ended;
    private byte[] tuple;
    private int tupleOffset;
    private int tupleLength;
    private int fieldCount;
    private final int[] fieldOffsets;
    private final int[] fieldLengths;

    private BinaryCopyReader(Messages messages, int expectedFields) {
        this.messages = messages;
        this.fieldOffsets = new int[expectedFields];
        this.fieldLengths = new int[expectedFields];
    }

    /** Reads the messages of a COPY OUT, one tuple per message (the first may also hold the header). */
    public static BinaryCopyReader ofMessages(Messages messages, int expectedFields) {
        return new BinaryCopyReader(messages, expectedFields);
    }

    /** Reads a whole binary COPY stream, such as a file written by {@code COPY ... TO}. */
    public static BinaryCopyReader ofStream(InputStream in, int expectedFields) {
        return new BinaryCopyReader(new StreamMessages(new DataInputStream(in)), expectedFields);
    }

    /** Moves to the next tuple; false at the trailer. */
    public boolean next() throws IOException {
        if (ended) {
            return false;
        }
        byte[] message;
        int offset = 0;
        do {
            message = messages.next();
            if (message == null) {
                throw new IOException("Binary COPY stream ended without its trailer");
            }
            if (!headerRead) {
                offset = headerLength(message);
                headerRead = true;
            } else {
                offset = 0;
            }
        } while (offset == message.length);
        if (message.length - offset < 2) {
            throw new IOException("Binary COPY message of " + (message.length - offset) + " bytes is not a tuple");
        }
        short count = (short) (((message[offset] & 0xFF) << 8) | (message[offset + 1] & 0xFF));
        if (count == -1) {
            ended = true;
            // Reading on to the end completes the COPY on the connection.
            if (messages.next() != null) {
                throw new IOException("Binary COPY stream goes on after its trailer");
            }
            return false;
        }
        if (count != fieldOffsets.length) {
            throw new IOException("Binary COPY tuple has " + count + " fields, expected " + fieldOffsets.length);
        }
        int position = offset + 2;
        for (int i = 0; i < count; i++) {
            if (position + 4 > message.length) {
                throw new IOException("Binary COPY tuple ends inside the length of field " + (i + 1));
            }
            int length = ((message[position] & 0xFF) << 24) | ((message[position + 1] & 0xFF) << 16)
                    | ((message[position + 2] & 0xFF) << 8) | (message[position + 3] & 0xFF);
            position += 4;
            fieldOffsets[i] = position;
            fieldLengths[i] = length;
            if (length > 0) {
                position += length;
            }
        }
        if (position != message.length) {
            throw new IOException("Binary COPY tuple of " + (message.length - offset) + " bytes does not match its "
                    + (position - offset) + " bytes of fields");
        }
        fieldCount = count;
        tuple = message;
        tupleOffset = offset;
        tupleLength = message.length - offset;
        return true;
    }

    private static int headerLength(byte[] message) throws IOException {
        if (message.length < HEADER_LENGTH
                || !Arrays.equals(message, 0, BinaryCopyWriter.SIGNATURE.length, BinaryCopyWriter.SIGNATURE, 0,
                BinaryCopyWriter.SIGNATURE.length)) {
            throw new IOException("Not a binary COPY stream: bad signature");
        }
        ByteBuffer header = ByteBuffer.wrap(message, BinaryCopyWriter.SIGNATURE.length, 8);
        int flags = header.getInt();
        if ((flags & (1 << 16)) != 0) {
            throw new IOException("Binary COPY stream with OIDs is not supported");
        }
        int extension = header.getInt();
        if (extension < 0 || HEADER_LENGTH + extension > message.length) {
            throw new IOException("Binary COPY header extension of " + extension + " bytes is not in the first message");
        }
        return HEADER_LENGTH + extension;
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

    /** The array holding the current tuple in binary COPY form, from {@link #tupleOffset()}; valid until the next call to {@link #next()}. */
    public byte[] tupleBytes() {
        return tuple;
    }

    public int tupleOffset() {
        return tupleOffset;
    }

    public int tupleLength() {
        return tupleLength;
    }

    /** Cuts a continuous stream into the messages a server would send: the header, one per tuple, the trailer. */
    private static final class StreamMessages implements Messages {
        private final DataInputStream in;
        private boolean headerRead;
        private boolean ended;

        StreamMessages(DataInputStream in) {
            this.in = in;
        }

        @Override
        public byte[] next() throws IOException {
            if (ended) {
                return null;
            }
            try {
                if (!headerRead) {
                    headerRead = true;
                    byte[] fixed = in.readNBytes(HEADER_LENGTH);
                    if (fixed.length < HEADER_LENGTH) {
                        throw new IOException("Not a binary COPY stream: " + fixed.length + " bytes");
                    }
                    int extension = ByteBuffer.wrap(fixed, HEADER_LENGTH - 4, 4).getInt();
                    byte[] header = Arrays.copyOf(fixed, HEADER_LENGTH + Math.max(0, extension));
                    in.readFully(header, HEADER_LENGTH, header.length - HEADER_LENGTH);
                    return header;
                }
                ByteArrayOutputStream tuple = new ByteArrayOutputStream();
                short count = in.readShort();
                tuple.write(count >>> 8);
                tuple.write(count);
                if (count == -1) {
                    ended = true;
                    return tuple.toByteArray();
                }
                for (int i = 0; i < count; i++) {
                    int length = in.readInt();
                    tuple.write(ByteBuffer.allocate(4).putInt(length).array());
                    if (length > 0) {
                        tuple.write(in.readNBytes(length));
                    }
                }
                return tuple.toByteArray();
            } catch (EOFException e) {
                ended = true;
                return null;
            }
        }
    }
}
