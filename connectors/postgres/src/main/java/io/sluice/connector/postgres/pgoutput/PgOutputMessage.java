package io.sluice.connector.postgres.pgoutput;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The messages of PostgreSQL's built-in {@code pgoutput} logical decoding plugin, protocol
 * version 1 (the one every server since PostgreSQL 10 speaks). Log positions are unsigned
 * 64-bit LSNs held in a {@code long}; timestamps are microseconds since 2000-01-01 as sent.
 */
public sealed interface PgOutputMessage {

    /** Start of a transaction. {@code finalLsn} is the LSN of its commit record. */
    record Begin(long finalLsn, long commitTimestamp, int xid) implements PgOutputMessage {
    }

    /** End of a transaction: {@code commitLsn} is its commit record, {@code endLsn} the position just after it. */
    record Commit(int flags, long commitLsn, long endLsn, long commitTimestamp) implements PgOutputMessage {
    }

    /** The transaction came from another node through replication origin {@code name}. */
    record Origin(long originLsn, String name) implements PgOutputMessage {
    }

    /** A table's shape, sent before its first change in a session and again after it changes. */
    record Relation(int oid, String namespace, String name, char replicaIdentity, List<Column> columns) implements PgOutputMessage {

        public Relation {
            columns = List.copyOf(columns);
        }
    }

    /** One column of a {@link Relation}; {@code key} when it is part of the replica identity. */
    record Column(boolean key, String name, int typeOid, int typeModifier) {
    }

    /** A user-defined type's name, sent before the first relation that uses it. */
    record Type(int oid, String namespace, String name) implements PgOutputMessage {
    }

    record Insert(int relationOid, Tuple newTuple) implements PgOutputMessage {
    }

    /**
     * @param oldKind  'K' (old replica-identity key), 'O' (whole old row, REPLICA IDENTITY FULL) or 0 (none sent)
     * @param oldTuple null when {@code oldKind} is 0
     */
    record Update(int relationOid, char oldKind, Tuple oldTuple, Tuple newTuple) implements PgOutputMessage {
    }

    /** @param oldKind 'K' or 'O', as for {@link Update} */
    record Delete(int relationOid, char oldKind, Tuple oldTuple) implements PgOutputMessage {
    }

    record Truncate(boolean cascade, boolean restartIdentity, int[] relationOids) implements PgOutputMessage {

        @Override
        public boolean equals(Object o) {
            return o instanceof Truncate t && t.cascade == cascade && t.restartIdentity == restartIdentity
                    && Arrays.equals(t.relationOids, relationOids);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(relationOids) * 31 + (cascade ? 2 : 0) + (restartIdentity ? 1 : 0);
        }

        @Override
        public String toString() {
            return "Truncate[cascade=" + cascade + ", restartIdentity=" + restartIdentity + ", relationOids=" + Arrays.toString(relationOids) + "]";
        }
    }

    /** A message from {@code pg_logical_emit_message}; transactional ones arrive inside their transaction. */
    record LogicalMessage(boolean transactional, long lsn, String prefix, byte[] content) implements PgOutputMessage {

        @Override
        public boolean equals(Object o) {
            return o instanceof LogicalMessage m && m.transactional == transactional && m.lsn == lsn && m.prefix.equals(prefix)
                    && Arrays.equals(m.content, content);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(lsn) * 31 + Arrays.hashCode(content);
        }

        @Override
        public String toString() {
            return "LogicalMessage[transactional=" + transactional + ", lsn=" + lsn + ", prefix=" + prefix + ", " + content.length + " bytes]";
        }
    }

    /**
     * One row image: per column a kind, {@link #NULL}, {@link #UNCHANGED_TOAST} (the value was not
     * changed and not sent), {@link #TEXT} or {@link #BINARY}, and for the last two the bytes.
     */
    final class Tuple {

        public static final byte NULL = 'n';
        public static final byte UNCHANGED_TOAST = 'u';
        public static final byte TEXT = 't';
        public static final byte BINARY = 'b';

        private final byte[] kinds;
        /** The values' bytes, each at its start for its length (-1: none), in an array the tuple may share with its message. */
        private final byte[] data;
        private final int[] starts;
        private final int[] lengths;

        public Tuple(byte[] kinds, byte[][] values) {
            if (kinds.length != values.length) {
                throw new IllegalArgumentException("kinds and values differ in length");
            }
            int size = 0;
            for (byte[] v : values) {
                size += v == null ? 0 : v.length;
            }
            this.kinds = kinds;
            this.data = new byte[size];
            this.starts = new int[kinds.length];
            this.lengths = new int[kinds.length];
            int at = 0;
            for (int i = 0; i < values.length; i++) {
                starts[i] = at;
                lengths[i] = values[i] == null ? -1 : values[i].length;
                if (values[i] != null) {
                    System.arraycopy(values[i], 0, data, at, values[i].length);
                    at += values[i].length;
                }
            }
        }

        /**
         * A tuple whose values stay where they were received: decoding a change copies no value
         * until it is read, and text is made straight from the message's bytes.
         *
         * @param lengths per column, the value's length, or -1 when there is none
         */
        Tuple(byte[] kinds, byte[] data, int[] starts, int[] lengths) {
            this.kinds = kinds;
            this.data = data;
            this.starts = starts;
            this.lengths = lengths;
        }

        public int size() {
            return kinds.length;
        }

        public byte kind(int column) {
            return kinds[column];
        }

        /** The raw bytes of a TEXT or BINARY column; null otherwise. */
        public byte[] bytes(int column) {
            int length = lengths[column];
            return length < 0 ? null : Arrays.copyOfRange(data, starts[column], starts[column] + length);
        }

        /** The text of a TEXT column; null for NULL and unchanged columns. */
        public String text(int column) {
            int length = lengths[column];
            return length < 0 ? null : new String(data, starts[column], length, StandardCharsets.UTF_8);
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Tuple t) || !Arrays.equals(t.kinds, kinds)) {
                return false;
            }
            for (int i = 0; i < kinds.length; i++) {
                if (t.lengths[i] != lengths[i] || (lengths[i] > 0 && !Arrays.equals(t.data, t.starts[i], t.starts[i] + t.lengths[i], data,
                        starts[i], starts[i] + lengths[i]))) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public int hashCode() {
            int hash = Arrays.hashCode(kinds);
            for (int i = 0; i < kinds.length; i++) {
                hash = hash * 31 + lengths[i];
                for (int b = 0; b < Math.max(0, lengths[i]); b++) {
                    hash = hash * 31 + data[starts[i] + b];
                }
            }
            return hash;
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder("Tuple[");
            for (int i = 0; i < kinds.length; i++) {
                s.append(i == 0 ? "" : ", ").append((char) kinds[i]);
                if (lengths[i] >= 0) {
                    s.append(':').append(lengths[i]);
                }
            }
            return s.append(']').toString();
        }
    }
}
