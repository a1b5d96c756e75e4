package io.sluice.transforms.transformer;

import org.apache.kafka.connect.data.Schema;

import io.sluice.schemas.mapping.LogicalTypes;

/**
 * What a column's values are, as far as transformers care: read from the Connect schema's type
 * and logical name, in Sluice's representations and Debezium's. Text whose content has a syntax
 * of its own (inet, intervals, ranges, bit strings, XML) is {@link #TYPED_TEXT}: rewriting it as
 * free text would give values the target refuses.
 */
public enum ColumnType {
    TEXT("text"),
    UUID("uuid"),
    JSON("json"),
    ENUM("enum"),
    TYPED_TEXT("text with a syntax of its own"),
    INTEGER("integer"),
    FLOAT("floating point"),
    /** {@code io.sluice.data.Numeric}: exact decimal text. */
    NUMERIC_TEXT("numeric"),
    /** Connect's {@code Decimal}: a BigDecimal with a fixed scale. */
    DECIMAL("decimal"),
    DATE("date"),
    TIMESTAMP("timestamp"),
    /** {@code io.debezium.time.ZonedTimestamp}: an ISO-8601 instant as text. */
    ZONED_TIMESTAMP("timestamp with time zone"),
    TIME("time"),
    BOOLEAN("boolean"),
    BYTES("bytes"),
    ARRAY("array"),
    MAP("map"),
    STRUCT("struct");

    private final String description;

    ColumnType(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }

    public boolean temporal() {
        return this == DATE || this == TIMESTAMP || this == ZONED_TIMESTAMP;
    }

    public boolean numeric() {
        return this == INTEGER || this == FLOAT || this == NUMERIC_TEXT || this == DECIMAL;
    }

    public static ColumnType of(Schema schema) {
        String name = schema.name();
        if (name != null) {
            switch (name) {
                case LogicalTypes.UUID:
                    return UUID;
                case LogicalTypes.JSON:
                    return JSON;
                case LogicalTypes.ENUM:
                    return ENUM;
                case LogicalTypes.NUMERIC:
                    return NUMERIC_TEXT;
                case org.apache.kafka.connect.data.Decimal.LOGICAL_NAME:
                    return DECIMAL;
                case LogicalTypes.DATE, org.apache.kafka.connect.data.Date.LOGICAL_NAME:
                    return DATE;
                case LogicalTypes.MICRO_TIMESTAMP, "io.debezium.time.Timestamp", "io.debezium.time.NanoTimestamp",
                        org.apache.kafka.connect.data.Timestamp.LOGICAL_NAME:
                    return TIMESTAMP;
                case LogicalTypes.ZONED_TIMESTAMP:
                    return ZONED_TIMESTAMP;
                case LogicalTypes.MICRO_TIME, LogicalTypes.ZONED_TIME, "io.debezium.time.Time", "io.debezium.time.NanoTime",
                        org.apache.kafka.connect.data.Time.LOGICAL_NAME:
                    return TIME;
                case LogicalTypes.VARIABLE_SCALE_DECIMAL:
                    return STRUCT;
                default:
                    if (schema.type() == Schema.Type.STRING) {
                        return TYPED_TEXT;
                    }
            }
        }
        return switch (schema.type()) {
            case STRING -> TEXT;
            case INT8, INT16, INT32, INT64 -> INTEGER;
            case FLOAT32, FLOAT64 -> FLOAT;
            case BOOLEAN -> BOOLEAN;
            case BYTES -> BYTES;
            case ARRAY -> ARRAY;
            case MAP -> MAP;
            case STRUCT -> STRUCT;
        };
    }
}
