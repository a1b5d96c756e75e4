package io.sluice.connector.postgres.pgoutput;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Begin;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Column;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Commit;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Delete;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Insert;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.LogicalMessage;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Origin;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Relation;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Truncate;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Tuple;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Type;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage.Update;

/**
 * Reads one {@code pgoutput} message (protocol version 1) from the bytes of one XLogData
 * payload. Stateless: relation and type caches belong to the caller.
 */
public final class PgOutputDecoder {

    private PgOutputDecoder() {
    }

    /** Decodes the message that fills {@code in} from its position to its limit. */
    public static PgOutputMessage decode(ByteBuffer in) {
        int start = in.position();
        char type = (char) in.get();
        try {
            PgOutputMessage message = switch (type) {
                case 'B' -> new Begin(in.getLong(), in.getLong(), in.getInt());
                case 'C' -> new Commit(in.get(), in.getLong(), in.getLong(), in.getLong());
                case 'O' -> new Origin(in.getLong(), string(in));
                case 'R' -> relation(in);
                case 'Y' -> new Type(in.getInt(), string(in), string(in));
                case 'I' -> insert(in);
                case 'U' -> update(in);
                case 'D' -> delete(in);
                case 'T' -> truncate(in);
                case 'M' -> message(in);
                default -> throw new IllegalStateException("Unknown pgoutput message type '" + type + "' (0x"
                        + Integer.toHexString(type) + "): the server speaks a newer protocol than Sluice asked for");
            };
            if (in.hasRemaining()) {
                throw new IllegalStateException("pgoutput message '" + type + "' has " + in.remaining() + " unread bytes");
            }
            return message;
        } catch (BufferUnderflowException e) {
            throw new IllegalStateException("pgoutput message '" + type + "' of " + (in.limit() - start) + " bytes ends early", e);
        }
    }

    private static Relation relation(ByteBuffer in) {
        int oid = in.getInt();
        String namespace = string(in);
        String name = string(in);
        char identity = (char) in.get();
        int count = Short.toUnsignedInt(in.getShort());
        List<Column> columns = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            boolean key = (in.get() & 1) != 0;
            columns.add(new Column(key, string(in), in.getInt(), in.getInt()));
        }
        return new Relation(oid, namespace, name, identity, columns);
    }

    private static Insert insert(ByteBuffer in) {
        int oid = in.getInt();
        expect(in, 'N', "Insert");
        return new Insert(oid, tuple(in));
    }

    private static Update update(ByteBuffer in) {
        int oid = in.getInt();
        char marker = (char) in.get();
        char oldKind = 0;
        Tuple old = null;
        if (marker == 'K' || marker == 'O') {
            oldKind = marker;
            old = tuple(in);
            marker = (char) in.get();
        }
        if (marker != 'N') {
            throw new IllegalStateException("pgoutput Update: expected 'N' before the new row, got '" + marker + "'");
        }
        return new Update(oid, oldKind, old, tuple(in));
    }

    private static Delete delete(ByteBuffer in) {
        int oid = in.getInt();
        char kind = (char) in.get();
        if (kind != 'K' && kind != 'O') {
            throw new IllegalStateException("pgoutput Delete: expected 'K' or 'O', got '" + kind + "'");
        }
        return new Delete(oid, kind, tuple(in));
    }

    private static Truncate truncate(ByteBuffer in) {
        int count = in.getInt();
        int options = in.get();
        int[] oids = new int[count];
        for (int i = 0; i < count; i++) {
            oids[i] = in.getInt();
        }
        return new Truncate((options & 1) != 0, (options & 2) != 0, oids);
    }

    private static LogicalMessage message(ByteBuffer in) {
        boolean transactional = (in.get() & 1) != 0;
        long lsn = in.getLong();
        String prefix = string(in);
        byte[] content = new byte[in.getInt()];
        in.get(content);
        return new LogicalMessage(transactional, lsn, prefix, content);
    }

    private static Tuple tuple(ByteBuffer in) {
        int count = Short.toUnsignedInt(in.getShort());
        byte[] kinds = new byte[count];
        int[] starts = new int[count];
        int[] lengths = new int[count];
        // The values stay in the message's array when it has one (a received message does): no copy per column.
        byte[] data = in.hasArray() ? in.array() : null;
        java.io.ByteArrayOutputStream copied = data == null ? new java.io.ByteArrayOutputStream() : null;
        for (int i = 0; i < count; i++) {
            byte kind = in.get();
            kinds[i] = kind;
            switch (kind) {
                case Tuple.NULL, Tuple.UNCHANGED_TOAST -> lengths[i] = -1;
                case Tuple.TEXT, Tuple.BINARY -> {
                    int length = in.getInt();
                    if (length < 0 || length > in.remaining()) {
                        throw new IllegalStateException("pgoutput tuple: column " + (i + 1) + " claims " + length + " bytes, "
                                + in.remaining() + " are left");
                    }
                    lengths[i] = length;
                    if (data != null) {
                        starts[i] = in.arrayOffset() + in.position();
                        in.position(in.position() + length);
                    } else {
                        starts[i] = copied.size();
                        byte[] value = new byte[length];
                        in.get(value);
                        copied.writeBytes(value);
                    }
                }
                default -> throw new IllegalStateException("pgoutput tuple: unknown column kind '" + (char) kind + "' in column " + (i + 1));
            }
        }
        return new Tuple(kinds, data != null ? data : copied.toByteArray(), starts, lengths);
    }

    private static void expect(ByteBuffer in, char marker, String message) {
        char got = (char) in.get();
        if (got != marker) {
            throw new IllegalStateException("pgoutput " + message + ": expected '" + marker + "', got '" + got + "'");
        }
    }

    private static String string(ByteBuffer in) {
        int start = in.position();
        int end = start;
        while (true) {
            if (end >= in.limit()) {
                throw new BufferUnderflowException();
            }
            if (in.get(end) == 0) {
                break;
            }
            end++;
        }
        byte[] bytes = new byte[end - start];
        in.get(bytes);
        in.get();
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
