package io.sluice.schemas.codec;

import java.nio.ByteBuffer;

import org.apache.kafka.connect.errors.DataException;

/** Codecs for booleans, integers, floating point and the unsigned oid-family integers. */
public final class NumberCodecs {

    public static final ValueCodec BOOL = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return switch (text) {
                case "t", "true" -> Boolean.TRUE;
                case "f", "false" -> Boolean.FALSE;
                default -> throw new DataException("Not a boolean: " + text);
            };
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return in.get() != 0;
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeByte(Values.as(value, Boolean.class, "boolean") ? 1 : 0);
        }
    };

    public static final ValueCodec INT2 = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return Short.parseShort(text);
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return in.getShort();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeShort((int) Values.integral(value, Short.MIN_VALUE, Short.MAX_VALUE, "smallint"));
        }
    };

    public static final ValueCodec INT4 = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return Integer.parseInt(text);
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return in.getInt();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeInt((int) Values.integral(value, Integer.MIN_VALUE, Integer.MAX_VALUE, "integer"));
        }
    };

    public static final ValueCodec INT8 = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return Long.parseLong(text);
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return in.getLong();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeLong(Values.integral(value, Long.MIN_VALUE, Long.MAX_VALUE, "bigint"));
        }
    };

    public static final ValueCodec FLOAT4 = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return Float.parseFloat(text);
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return in.getFloat();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeInt(Float.floatToRawIntBits(Values.as(value, Float.class, "real")));
        }
    };

    public static final ValueCodec FLOAT8 = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return Double.parseDouble(text);
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return in.getDouble();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeDouble(Values.as(value, Double.class, "double precision"));
        }
    };

    /** oid, xid, cid, regproc-free unsigned 32-bit integers, carried as a Connect INT64. */
    public static final ValueCodec UINT4 = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return Long.parseLong(text);
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return in.getInt() & 0xFFFFFFFFL;
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeInt((int) Values.integral(value, 0, 0xFFFFFFFFL, "an unsigned 32-bit identifier"));
        }
    };

    /**
     * xid8, an unsigned 64-bit number, as the signed 64-bit integer with the same bits: values
     * past 2^63 - 1 (billions of years of transactions away) are negative, and come back exactly.
     */
    public static final ValueCodec XID8 = new ValueCodec() {
        @Override
        public Object fromText(String text) {
            return Long.parseUnsignedLong(text);
        }

        @Override
        public Object fromBinary(ByteBuffer in) {
            return in.getLong();
        }

        @Override
        public void toBinary(Object value, WireBuffer out) {
            out.writeLong(Values.integral(value, Long.MIN_VALUE, Long.MAX_VALUE, "xid8"));
        }
    };

    private NumberCodecs() {
    }
}
