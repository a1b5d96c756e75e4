package io.sluice.schemas.codec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.UUID;

import org.apache.kafka.connect.errors.DataException;

/**
 * Types carried as strings or bytes whose binary format is simple: text and its relatives
 * (varchar, bpchar, name, enums, json, xml), jsonb, the one-byte {@code "char"}, bytea, uuid,
 * bit strings, MAC addresses, pg_lsn and tid.
 */
public final class TextCodecs {

    /** Types whose binary format is their UTF-8 text: text, varchar, bpchar, name, enums, json, xml, citext... */
    public static final ValueCodec TEXT = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return text;
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return Values.utf8(in);
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeUtf8(Values.as(value, String.class, "text"));
        }
    };

    /** jsonb: a version byte (1), then the JSON text. */
    public static final ValueCodec JSONB = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return text;
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            int version = in.get();
            if (version != 1) {
                throw new DataException("Unsupported jsonb binary format version " + version);
            }
            return Values.utf8(in);
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeByte(1).writeUtf8(Values.as(value, String.class, "jsonb"));
        }
    };

    /** The internal one-byte {@code "char"} type; bytes above 127 read as {@code \ooo} like the server writes them. */
    public static final ValueCodec CHAR = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return text;
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            if (!in.hasRemaining()) {
                return "";
            }
            int b = in.get() & 0xFF;
            if (b == 0) {
                return "";
            }
            return b < 128 ? String.valueOf((char) b) : String.format("\\%03o", b);
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            String text = Values.as(value, String.class, "\"char\"");
            if (text.isEmpty()) {
                out.writeByte(0); // "char" is always one byte on the wire; the empty value is the zero byte
                return;
            }
            if (text.length() == 4 && text.charAt(0) == '\\') {
                out.writeByte(Integer.parseInt(text.substring(1), 8));
            } else {
                byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                out.writeByte(bytes[0]);
            }
        }
    };

    public static final ValueCodec BYTEA = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            if (!text.startsWith("\\x")) {
                throw new DataException("bytea text must be in hex format (bytea_output = hex)");
            }
            return HexFormat.of().parseHex(text, 2, text.length());
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            byte[] bytes = new byte[in.remaining()];
            in.get(bytes);
            return bytes;
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            if (value instanceof ByteBuffer buffer) {
                ByteBuffer copy = buffer.duplicate();
                byte[] bytes = new byte[copy.remaining()];
                copy.get(bytes);
                out.writeBytes(bytes);
            } else {
                out.writeBytes(Values.as(value, byte[].class, "bytea"));
            }
        }
    };

    public static final ValueCodec UUID_CODEC = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return text;
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return new UUID(in.getLong(), in.getLong()).toString();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            UUID uuid = UUID.fromString(Values.as(value, String.class, "uuid"));
            out.writeLong(uuid.getMostSignificantBits()).writeLong(uuid.getLeastSignificantBits());
        }
    };

    /** bit(n) and varbit as a string of {@code 0} and {@code 1}. */
    public static final ValueCodec BITS = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return text;
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            int length = in.getInt();
            StringBuilder bits = new StringBuilder(length);
            int current = 0;
            for (int i = 0; i < length; i++) {
                if (i % 8 == 0) {
                    current = in.get();
                }
                bits.append((current & (0x80 >>> (i % 8))) != 0 ? '1' : '0');
            }
            return bits.toString();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            writeBits(Values.as(value, String.class, "bit string"), out);
        }
    };

    /** bit(1) as a boolean, as Debezium maps it. */
    public static final ValueCodec BIT_BOOLEAN = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return "1".equals(text);
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return "1".equals(BITS.fromBinary(in));
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            writeBits(Values.as(value, Boolean.class, "bit(1)") ? "1" : "0", out);
        }
    };

    public static final ValueCodec MACADDR = new MacCodec(6);
    public static final ValueCodec MACADDR8 = new MacCodec(8);

    /** pg_lsn as PostgreSQL writes it, such as {@code 16/B374D848}. */
    public static final ValueCodec PG_LSN = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return text;
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            long lsn = in.getLong();
            return Long.toHexString(lsn >>> 32).toUpperCase() + "/" + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            String text = Values.as(value, String.class, "pg_lsn");
            int slash = text.indexOf('/');
            out.writeLong(Long.parseLong(text.substring(0, slash), 16) << 32 | Long.parseLong(text.substring(slash + 1), 16));
        }
    };

    /** tid, a tuple's physical address, such as {@code (42,7)}. */
    public static final ValueCodec TID = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return text;
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            long block = in.getInt() & 0xFFFFFFFFL;
            int offset = in.getShort() & 0xFFFF;
            return "(" + block + "," + offset + ")";
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            String text = Values.as(value, String.class, "tid");
            String[] parts = text.substring(1, text.length() - 1).split(",");
            out.writeInt((int) Long.parseLong(parts[0].trim())).writeShort(Integer.parseInt(parts[1].trim()));
        }
    };

    private TextCodecs() {
    }

    private static void writeBits(String bits, WireBuffer out) {
        out.writeInt(bits.length());
        int current = 0;
        for (int i = 0; i < bits.length(); i++) {
            char c = bits.charAt(i);
            if (c == '1') {
                current |= 0x80 >>> (i % 8);
            } else if (c != '0') {
                throw new DataException("Not a bit string: " + bits);
            }
            if (i % 8 == 7) {
                out.writeByte(current);
                current = 0;
            }
        }
        if (bits.length() % 8 != 0) {
            out.writeByte(current);
        }
    }

    /** macaddr and macaddr8 as lowercase hex pairs separated by colons. */
    private static final class MacCodec implements ValueCodec {
        private final int length;

        MacCodec(int length) {
            this.length = length;
        }

        @Override
        public Object fromText(String text) {
            return text;
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            StringBuilder s = new StringBuilder(length * 3);
            for (int i = 0; i < length; i++) {
                if (i > 0) {
                    s.append(':');
                }
                s.append(HexFormat.of().toHexDigits(in.get()));
            }
            return s.toString();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            String hex = Values.as(value, String.class, "MAC address").replaceAll("[^0-9A-Fa-f]", "");
            if (hex.length() != length * 2) {
                throw new DataException("Not a " + (length * 8) + "-bit MAC address: " + value);
            }
            out.writeBytes(HexFormat.of().parseHex(hex));
        }
    }
}
