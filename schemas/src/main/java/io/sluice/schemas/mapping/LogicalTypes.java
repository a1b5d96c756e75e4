package io.sluice.schemas.mapping;

import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;

/**
 * Names of the logical types in Sluice's Connect schemas. Debezium's names are used wherever
 * Debezium has one and its representation is exact, so consumers of Debezium topics read
 * Sluice topics unchanged; Sluice's own names mark the rest. docs/types.md lists them all.
 */
public final class LogicalTypes {

    public static final String DATE = "io.debezium.time.Date";
    public static final String MICRO_TIME = "io.debezium.time.MicroTime";
    public static final String MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp";
    public static final String ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp";
    public static final String ZONED_TIME = "io.debezium.time.ZonedTime";
    public static final String INTERVAL = "io.debezium.time.Interval";
    public static final String UUID = "io.debezium.data.Uuid";
    public static final String JSON = "io.debezium.data.Json";
    public static final String XML = "io.debezium.data.Xml";
    public static final String ENUM = "io.debezium.data.Enum";
    public static final String ENUM_ALLOWED = "allowed";
    public static final String VARIABLE_SCALE_DECIMAL = "io.debezium.data.VariableScaleDecimal";
    public static final String DECIMAL_PRECISION = "connect.decimal.precision";

    /** numeric in exact mode: its decimal text, {@code NaN} and {@code ±Infinity} included. */
    public static final String NUMERIC = "io.sluice.data.Numeric";
    /** bit(n) and varbit as a string of 0 and 1; parameter {@code length} for bit(n). */
    public static final String BITS = "io.sluice.data.Bits";
    /** Any value carried as PostgreSQL's text output; parameter {@code pg.type} names the type. */
    public static final String PG_TEXT = "io.sluice.data.PgText";
    public static final String PG_TYPE_PARAMETER = "pg.type";

    private LogicalTypes() {
    }

    public static SchemaBuilder date() {
        return SchemaBuilder.int32().name(DATE).version(1);
    }

    public static SchemaBuilder microTime() {
        return SchemaBuilder.int64().name(MICRO_TIME).version(1);
    }

    public static SchemaBuilder microTimestamp() {
        return SchemaBuilder.int64().name(MICRO_TIMESTAMP).version(1);
    }

    public static SchemaBuilder zonedTimestamp() {
        return SchemaBuilder.string().name(ZONED_TIMESTAMP).version(1);
    }

    public static SchemaBuilder zonedTime() {
        return SchemaBuilder.string().name(ZONED_TIME).version(1);
    }

    public static SchemaBuilder interval() {
        return SchemaBuilder.string().name(INTERVAL).version(1);
    }

    public static SchemaBuilder named(String name) {
        return SchemaBuilder.string().name(name).version(1);
    }

    public static SchemaBuilder enumeration(Iterable<String> labels) {
        return SchemaBuilder.string().name(ENUM).version(1).parameter(ENUM_ALLOWED, String.join(",", labels));
    }

    public static SchemaBuilder decimal(int scale, int precision) {
        SchemaBuilder builder = Decimal.builder(scale);
        if (precision > 0) {
            builder.parameter(DECIMAL_PRECISION, Integer.toString(precision));
        }
        return builder;
    }

    /** Debezium's variable-scale decimal: a struct of the scale and the unscaled value's two's-complement bytes. */
    public static SchemaBuilder variableScaleDecimal() {
        return SchemaBuilder.struct().name(VARIABLE_SCALE_DECIMAL).version(1)
                .field("scale", Schema.INT32_SCHEMA)
                .field("value", Schema.BYTES_SCHEMA);
    }

    public static SchemaBuilder pgText(String pgType) {
        return SchemaBuilder.string().name(PG_TEXT).version(1).parameter(PG_TYPE_PARAMETER, pgType);
    }
}
