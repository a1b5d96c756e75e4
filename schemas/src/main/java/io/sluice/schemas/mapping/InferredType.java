package io.sluice.schemas.mapping;

import io.sluice.schemas.naming.Identifiers;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/**
 * The PostgreSQL type a target column gets when the only thing known of it is the Connect
 * schema of its values: for a column the source added while DDL was not captured. Sluice's own
 * schemas and Debezium's logical types name most types exactly; where they do not (a
 * {@code varchar(20)} or an enum arrives as a string), the type chosen is one that takes every
 * value of the source's, as text does. docs/types.md lists the choices.
 */
public final class InferredType {

    private InferredType() {
    }

    /** The type, as SQL spells it in {@code ADD COLUMN}. */
    public static String of(Schema schema) {
        String named = schema.name() == null ? null : byName(schema);
        if (named != null) {
            return named;
        }
        return switch (schema.type()) {
            case INT8, INT16 -> "smallint";
            case INT32 -> "integer";
            case INT64 -> "bigint";
            case FLOAT32 -> "real";
            case FLOAT64 -> "double precision";
            case BOOLEAN -> "boolean";
            case STRING -> "text";
            case BYTES -> "bytea";
            case ARRAY -> arrayOf(of(schema.valueSchema()));
            // Sluice's hstore; Debezium sends hstore as JSON text unless told to send maps.
            case MAP -> "hstore";
            // A composite type's struct is named after it; one without a name has no type to go to.
            case STRUCT -> "jsonb";
        };
    }

    private static String byName(Schema schema) {
        String name = schema.name();
        return switch (name) {
            case LogicalTypes.PG_TEXT -> quoteTypeName(parameter(schema, LogicalTypes.PG_TYPE_PARAMETER));
            case LogicalTypes.NUMERIC -> numeric(parameter(schema, "precision"), parameter(schema, "scale"));
            case Decimal.LOGICAL_NAME -> numeric(parameter(schema, LogicalTypes.DECIMAL_PRECISION),
                    parameter(schema, Decimal.SCALE_FIELD));
            case LogicalTypes.VARIABLE_SCALE_DECIMAL -> "numeric";
            case LogicalTypes.BITS -> parameter(schema, "length") != null
                    ? "bit(" + Integer.parseInt(parameter(schema, "length")) + ")" : "bit varying";
            case "io.debezium.data.Bits" -> "bit varying";
            case LogicalTypes.DATE, Date.LOGICAL_NAME -> "date";
            case LogicalTypes.MICRO_TIME, "io.debezium.time.Time", "io.debezium.time.NanoTime", Time.LOGICAL_NAME -> "time";
            case LogicalTypes.MICRO_TIMESTAMP, "io.debezium.time.Timestamp", "io.debezium.time.NanoTimestamp", Timestamp.LOGICAL_NAME ->
                    "timestamp";
            case LogicalTypes.ZONED_TIMESTAMP -> "timestamptz";
            case LogicalTypes.ZONED_TIME -> "timetz";
            case LogicalTypes.INTERVAL, "io.debezium.time.MicroDuration" -> "interval";
            case LogicalTypes.UUID -> "uuid";
            case LogicalTypes.JSON -> "jsonb";
            case LogicalTypes.XML -> "xml";
            case LogicalTypes.ENUM, "io.debezium.data.EnumSet" -> "text";
            case "io.debezium.data.geometry.Point" -> "point";
            default -> schema.type() == Schema.Type.STRUCT && schema.name().indexOf('.') > 0 && schema.fields().stream()
                    .noneMatch(f -> f.name().equals("wkb")) ? quoteTypeName(schema.name()) : null;
        };
    }

    private static String parameter(Schema schema, String name) {
        return schema.parameters() == null ? null : schema.parameters().get(name);
    }

    private static String numeric(String precision, String scale) {
        if (precision == null || scale == null || Integer.parseInt(precision) <= 0) {
            return "numeric";
        }
        return "numeric(" + Integer.parseInt(precision) + "," + Integer.parseInt(scale) + ")";
    }

    private static String arrayOf(String element) {
        return element.endsWith("[]") ? element : element + "[]";
    }

    /**
     * A type name as Sluice's schemas carry it: built-in ones bare ({@code int4}, {@code inet}),
     * others qualified by schema ({@code public.mood}), arrays with {@code []}.
     */
    static String quoteTypeName(String name) {
        if (name == null || name.isEmpty()) {
            return "text";
        }
        if (name.endsWith("[]")) {
            return arrayOf(quoteTypeName(name.substring(0, name.length() - 2)));
        }
        int dot = name.indexOf('.');
        if (dot < 0) {
            return name;
        }
        return Identifiers.quote(name.substring(0, dot), name.substring(dot + 1));
    }
}
