package io.sluice.schemas.mapping;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.schemas.codec.BoundedArray;
import io.sluice.schemas.codec.MoneyCodec;
import io.sluice.schemas.codec.TemporalCodecs;
import io.sluice.schemas.codec.Timestamps;
import io.sluice.schemas.types.Oids;
import io.sluice.schemas.types.PgAttribute;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.PgType;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * Turns a Connect value written by Sluice or by Debezium's PostgreSQL connector into the value
 * Sluice's encoder takes for a target column. Sluice's own values pass unchanged; Debezium's
 * other representations are converted by their logical name: millisecond and nanosecond
 * times, {@code MicroDuration}, {@code Bits} bytes, geometry {@code Point} structs, hstore as
 * JSON, and Connect's own {@code Date}/{@code Time}/{@code Timestamp}.
 */
public final class IncomingValues {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long PG_EPOCH_SECONDS = 946_684_800L;
    /**
     * Debezium's {@code io.debezium.time.Date} for {@code infinity} and {@code -infinity}: the days
     * of -5877611-06-21 and -22, what pgjdbc's infinity sentinels become as dates. Both lie far
     * below PostgreSQL's first date, so they cannot mean anything else.
     */
    private static final int DEBEZIUM_DATE_INFINITY = -2_147_472_693;
    private static final int DEBEZIUM_DATE_MINUS_INFINITY = -2_147_472_692;

    private IncomingValues() {
    }

    /** The value for {@code target}, given the schema it arrived with (null for schemaless values). */
    public static Object adapt(Schema source, Object value, PgColumn target) {
        try {
            return adapt(source, value, target.type(), target.typmod());
        } catch (RuntimeException e) {
            throw new ColumnMismatch("Column " + target.qualifiedName() + " (type " + target.declaredType() + ") cannot take a "
                    + describe(source) + " value: " + e.getMessage(), e);
        }
    }

    private static Object adapt(Schema source, Object value, PgType target, int typmod) {
        if (value == null) {
            return null;
        }
        String logical = source == null ? null : source.name();
        return switch (target.kind()) {
            case DOMAIN -> adapt(source, value, target.related(), typmod != -1 ? typmod : target.typmod());
            case ARRAY -> array(source, value, target, typmod);
            case COMPOSITE -> composite(value, target);
            case BASE -> "pg_catalog".equals(target.schema()) ? builtin(logical, source, value, target.oid(), typmod)
                    : extension(value, target);
            default -> value;
        };
    }

    private static Object array(Schema source, Object value, PgType target, int typmod) {
        if (!(value instanceof List<?> list)) {
            return value;
        }
        Schema element = source == null ? null : source.valueSchema();
        PgType targetElement = target.related();
        List<Object> out = new ArrayList<>(list.size());
        for (Object item : list) {
            // Nested lists are further dimensions of the same element type.
            out.add(item instanceof List<?> ? array(element, item, target, typmod) : adapt(element, item, targetElement, typmod));
        }
        return list instanceof BoundedArray bounded ? new BoundedArray(out, bounded.lowerBounds()) : out;
    }

    private static Object composite(Object value, PgType target) {
        if (!(value instanceof Struct struct)) {
            return value;
        }
        Map<String, Object> attributes = new LinkedHashMap<>();
        for (PgAttribute attribute : target.fields()) {
            Field field = struct.schema().field(attribute.name());
            if (field != null) {
                attributes.put(attribute.name(), adapt(field.schema(), struct.get(field), attribute.type(), attribute.typmod()));
            }
        }
        return attributes;
    }

    private static Object extension(Object value, PgType target) {
        if ("hstore".equals(target.name()) && value instanceof String json) {
            // Debezium's default hstore.handling.mode=json
            try {
                Map<String, String> map = new LinkedHashMap<>();
                JSON.readTree(json).properties().forEach(e -> map.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText()));
                return map;
            } catch (JsonProcessingException e) {
                throw new DataException("not a JSON object: " + json);
            }
        }
        return value;
    }

    private static Object builtin(String logical, Schema source, Object value, int oid, int typmod) {
        return switch (oid) {
            case Oids.INT2, Oids.INT4, Oids.INT8, Oids.OID, Oids.XID, Oids.CID, Oids.XID8 -> integral(value);
            case Oids.FLOAT4 -> value instanceof Number n ? (Object) n.floatValue() : Float.parseFloat(value.toString());
            case Oids.FLOAT8 -> value instanceof Number n ? (Object) n.doubleValue() : Double.parseDouble(value.toString());
            case Oids.MONEY -> value instanceof BigDecimal ? value
                    : value instanceof Number n ? new BigDecimal(n.toString()) : new MoneyCodec().fromText(value.toString());
            case Oids.BOOL -> value instanceof Boolean ? value : value instanceof Number n ? n.longValue() != 0
                    : (Object) List.of("t", "true", "1", "y", "yes", "on").contains(value.toString().toLowerCase());
            case Oids.TEXT, Oids.VARCHAR, Oids.BPCHAR, Oids.NAME, Oids.JSON, Oids.JSONB, Oids.XML, Oids.UUID -> value instanceof String
                    ? value : value.toString();
            case Oids.DATE -> date(value);
            case Oids.TIME -> timeMicros(logical, value);
            case Oids.TIMESTAMP -> timestampMicros(logical, value);
            case Oids.TIMESTAMPTZ -> timestamptz(logical, value);
            case Oids.INTERVAL -> interval(logical, value);
            case Oids.BIT, Oids.VARBIT -> bits(logical, source, value, oid == Oids.BIT ? typmod : -1);
            case Oids.POINT -> value instanceof Struct point && point.schema().field("x") != null
                    ? "(" + point.getFloat64("x") + "," + point.getFloat64("y") + ")" : value;
            default -> value;
        };
    }

    private static Object integral(Object value) {
        if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
            return value;
        }
        if (value instanceof Number n) {
            return new BigDecimal(n.toString()).longValueExact();
        }
        return Long.parseLong(value.toString());
    }

    private static Object date(Object value) {
        if (value instanceof Integer days && (days == DEBEZIUM_DATE_INFINITY || days == DEBEZIUM_DATE_MINUS_INFINITY)) {
            return days == DEBEZIUM_DATE_INFINITY ? Integer.MAX_VALUE : Integer.MIN_VALUE;
        }
        if (value instanceof java.util.Date d) {
            // Connect's Date: midnight UTC of the day
            return Math.toIntExact(Math.floorDiv(d.getTime(), 86_400_000L));
        }
        if (value instanceof String s) {
            return Math.toIntExact(LocalDate.parse(s).toEpochDay());
        }
        return value;
    }

    private static Object timeMicros(String logical, Object value) {
        if (value instanceof java.util.Date d) {
            return d.getTime() * 1000L;
        }
        if (value instanceof String s) {
            return TemporalCodecs.TIME.fromText(s);
        }
        long v = ((Number) value).longValue();
        return switch (logical == null ? "" : logical) {
            case "io.debezium.time.Time" -> v * 1000L;
            case "io.debezium.time.NanoTime" -> v / 1000L;
            default -> v;
        };
    }

    private static Object timestampMicros(String logical, Object value) {
        if (value instanceof java.util.Date d) {
            return Math.multiplyExact(d.getTime(), 1000L);
        }
        if (value instanceof String s) {
            if (s.equals("infinity") || s.equals("-infinity")) {
                return s.startsWith("-") ? Timestamps.NEGATIVE_INFINITY : Timestamps.POSITIVE_INFINITY;
            }
            return epochMicros(s);
        }
        long v = ((Number) value).longValue();
        return switch (logical == null ? "" : logical) {
            // Debezium's millisecond infinities are its microsecond ones divided by 1,000.
            case "io.debezium.time.Timestamp" -> Math.multiplyExact(v, 1000L);
            // Debezium's nanosecond infinities are the ends of the 64-bit range.
            case "io.debezium.time.NanoTimestamp" -> v == Long.MAX_VALUE ? Timestamps.POSITIVE_INFINITY
                    : v == Long.MIN_VALUE ? Timestamps.NEGATIVE_INFINITY : Math.floorDiv(v, 1000L);
            default -> v;
        };
    }

    private static Object timestamptz(String logical, Object value) {
        if (value instanceof String) {
            return value;
        }
        return TemporalCodecs.timestamptzOf((Long) timestampMicros(logical, value));
    }

    /** An ISO-8601 date-time, with or without offset, as a {@code MicroTimestamp} (years past 292277 wrap, see {@link Timestamps}). */
    private static long epochMicros(String iso) {
        LocalDateTime local;
        try {
            OffsetDateTime t = OffsetDateTime.parse(iso);
            local = t.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
        } catch (java.time.format.DateTimeParseException e) {
            local = LocalDateTime.parse(iso);
        }
        long pgSeconds = local.toEpochSecond(ZoneOffset.UTC) - PG_EPOCH_SECONDS;
        return Timestamps.toConnect(Math.addExact(Math.multiplyExact(pgSeconds, 1_000_000L), local.getNano() / 1000));
    }

    private static Object interval(String logical, Object value) {
        if (value instanceof String) {
            return value;
        }
        long v = ((Number) value).longValue();
        long micros = "io.debezium.time.NanoDuration".equals(logical) ? v / 1000L : v;
        // Debezium's MicroDuration already folded months and days into microseconds (30.4375 days a month).
        return TemporalCodecs.intervalOf(0, 0, micros);
    }

    private static Object bits(String logical, Schema source, Object value, int declaredLength) {
        if (value instanceof Boolean b) {
            return declaredLength == 1 ? b : (b ? "1" : "0");
        }
        byte[] bytes = value instanceof ByteBuffer buffer ? toArray(buffer) : value instanceof byte[] b ? b : null;
        if (bytes == null) {
            return declaredLength == 1 ? "1".equals(value.toString()) : value;
        }
        // Debezium's Bits: a little-endian BitSet whose bit 0 is the rightmost bit of the string.
        BitSet set = BitSet.valueOf(bytes);
        int length = declaredLength > 0 ? declaredLength : Math.max(set.length(), 1);
        StringBuilder s = new StringBuilder(length);
        for (int i = length - 1; i >= 0; i--) {
            s.append(set.get(i) ? '1' : '0');
        }
        return declaredLength == 1 ? (Object) "1".contentEquals(s) : s.toString();
    }

    private static byte[] toArray(ByteBuffer buffer) {
        ByteBuffer copy = buffer.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }

    private static String describe(Schema source) {
        if (source == null) {
            return "schemaless";
        }
        return source.name() != null ? source.name() : source.type().getName();
    }
}
