package io.sluice.transforms.transformer;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;

import io.sluice.schemas.mapping.LogicalTypes;

/**
 * Values written as text in a rule ({@code constant(value=2024-01-01)}), turned into a column's
 * representation; and each type's plain value for {@code default}.
 */
final class Literals {

    private Literals() {
    }

    /** The value of {@code text} in the column's representation; fails saying what the column takes. */
    static Object parse(String text, Schema schema) {
        ColumnType type = ColumnType.of(schema);
        try {
            return switch (type) {
                case TEXT, TYPED_TEXT, JSON -> text;
                case UUID -> java.util.UUID.fromString(text).toString();
                case ENUM -> {
                    String allowed = schema.parameters() == null ? null : schema.parameters().get(LogicalTypes.ENUM_ALLOWED);
                    if (allowed != null && !List.of(allowed.split(",")).contains(text)) {
                        throw new IllegalArgumentException("'" + text + "' is not one of the labels " + allowed);
                    }
                    yield text;
                }
                case INTEGER -> {
                    long n = Long.parseLong(text.trim());
                    if (n != Numbers.clamp(n, schema.type())) {
                        throw new IllegalArgumentException(n + " does not fit " + schema.type());
                    }
                    yield Numbers.box(n, schema.type());
                }
                case FLOAT -> schema.type() == Schema.Type.FLOAT32 ? (Object) Float.parseFloat(text) : (Object) Double.parseDouble(text);
                case NUMERIC_TEXT -> new BigDecimal(text.trim()).toPlainString();
                case DECIMAL -> new BigDecimal(text.trim()).setScale(Numbers.scale(schema));
                case BOOLEAN -> switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
                    case "true" -> true;
                    case "false" -> false;
                    default -> throw new IllegalArgumentException("'" + text + "' is neither true nor false");
                };
                case BYTES -> text.getBytes(StandardCharsets.UTF_8);
                case DATE -> date(LocalDate.parse(text.trim()), schema);
                case TIMESTAMP -> timestamp(LocalDateTime.parse(text.trim()).toInstant(ZoneOffset.UTC), schema);
                case ZONED_TIMESTAMP -> Instant.parse(text.trim()).toString();
                case TIME -> time(LocalTime.parse(text.trim()), schema);
                case ARRAY, MAP, STRUCT -> throw new IllegalArgumentException("a constant cannot be an " + type.description());
            };
        } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a " + type.description() + " value: " + e.getMessage());
        }
    }

    /** A type's plain value: empty text, zero, false, the epoch, an empty array. */
    static Object zero(Schema schema) {
        ColumnType type = ColumnType.of(schema);
        return switch (type) {
            case TEXT -> "";
            case UUID -> "00000000-0000-0000-0000-000000000000";
            case JSON -> "{}";
            case ENUM -> {
                String allowed = schema.parameters() == null ? null : schema.parameters().get(LogicalTypes.ENUM_ALLOWED);
                if (allowed == null || allowed.isEmpty()) {
                    throw new IllegalArgumentException("the enum's labels are not in its schema; use constant(value=...)");
                }
                yield allowed.split(",")[0];
            }
            case INTEGER, FLOAT -> Numbers.box(0, schema.type());
            case NUMERIC_TEXT -> "0";
            case DECIMAL -> BigDecimal.ZERO.setScale(Numbers.scale(schema));
            case BOOLEAN -> false;
            case BYTES -> new byte[0];
            case DATE -> date(LocalDate.EPOCH, schema);
            case TIMESTAMP -> timestamp(Instant.EPOCH, schema);
            case ZONED_TIMESTAMP -> Instant.EPOCH.toString();
            case TIME -> time(LocalTime.MIDNIGHT, schema);
            case ARRAY -> List.of();
            case MAP -> Map.of();
            case TYPED_TEXT, STRUCT -> throw new IllegalArgumentException("a " + type.description() + " column ("
                    + schema.name() + ") has no plain value; use constant(value=...) or null");
        };
    }

    static Object date(LocalDate date, Schema schema) {
        return org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(schema.name())
                ? java.util.Date.from(date.atStartOfDay(ZoneOffset.UTC).toInstant())
                : (Object) Math.toIntExact(date.toEpochDay());
    }

    static Object timestamp(Instant instant, Schema schema) {
        return switch (schema.name()) {
            case org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME -> java.util.Date.from(instant);
            case "io.debezium.time.Timestamp" -> instant.toEpochMilli();
            case "io.debezium.time.NanoTimestamp" -> ChronoUnit.NANOS.between(Instant.EPOCH, instant);
            default -> ChronoUnit.MICROS.between(Instant.EPOCH, instant);
        };
    }

    private static Object time(LocalTime time, Schema schema) {
        long nanos = time.toNanoOfDay();
        return switch (schema.name()) {
            case org.apache.kafka.connect.data.Time.LOGICAL_NAME -> new java.util.Date(nanos / 1_000_000);
            case "io.debezium.time.Time" -> (int) (nanos / 1_000_000);
            case "io.debezium.time.NanoTime" -> nanos;
            case LogicalTypes.ZONED_TIME -> time + "Z";
            default -> nanos / 1000;
        };
    }
}
