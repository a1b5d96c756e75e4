package io.sluice.schemas.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Timestamp;
import org.junit.jupiter.api.Test;

class InferredTypeTest {

    @Test
    void connectTypesGoToTheirPostgresKin() {
        assertThat(InferredType.of(Schema.OPTIONAL_INT16_SCHEMA)).isEqualTo("smallint");
        assertThat(InferredType.of(Schema.OPTIONAL_INT32_SCHEMA)).isEqualTo("integer");
        assertThat(InferredType.of(Schema.OPTIONAL_INT64_SCHEMA)).isEqualTo("bigint");
        assertThat(InferredType.of(Schema.OPTIONAL_FLOAT32_SCHEMA)).isEqualTo("real");
        assertThat(InferredType.of(Schema.OPTIONAL_FLOAT64_SCHEMA)).isEqualTo("double precision");
        assertThat(InferredType.of(Schema.OPTIONAL_BOOLEAN_SCHEMA)).isEqualTo("boolean");
        assertThat(InferredType.of(Schema.OPTIONAL_STRING_SCHEMA)).isEqualTo("text");
        assertThat(InferredType.of(Schema.OPTIONAL_BYTES_SCHEMA)).isEqualTo("bytea");
        assertThat(InferredType.of(SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).optional().build())).isEqualTo("integer[]");
        assertThat(InferredType.of(SchemaBuilder.array(SchemaBuilder.array(Schema.OPTIONAL_STRING_SCHEMA).build()).build()))
                .as("PostgreSQL arrays of any depth are one type").isEqualTo("text[]");
    }

    @Test
    void sluiceAndDebeziumLogicalTypesNameTheExactType() {
        assertThat(InferredType.of(LogicalTypes.zonedTimestamp().optional().build())).isEqualTo("timestamptz");
        assertThat(InferredType.of(LogicalTypes.microTimestamp().build())).isEqualTo("timestamp");
        assertThat(InferredType.of(SchemaBuilder.int64().name("io.debezium.time.Timestamp").build())).isEqualTo("timestamp");
        assertThat(InferredType.of(Timestamp.SCHEMA)).isEqualTo("timestamp");
        assertThat(InferredType.of(LogicalTypes.date().build())).isEqualTo("date");
        assertThat(InferredType.of(Date.SCHEMA)).isEqualTo("date");
        assertThat(InferredType.of(LogicalTypes.microTime().build())).isEqualTo("time");
        assertThat(InferredType.of(LogicalTypes.zonedTime().build())).isEqualTo("timetz");
        assertThat(InferredType.of(LogicalTypes.interval().build())).isEqualTo("interval");
        assertThat(InferredType.of(LogicalTypes.named(LogicalTypes.UUID).build())).isEqualTo("uuid");
        assertThat(InferredType.of(LogicalTypes.named(LogicalTypes.JSON).build())).isEqualTo("jsonb");
        assertThat(InferredType.of(LogicalTypes.named(LogicalTypes.XML).build())).isEqualTo("xml");
        assertThat(InferredType.of(LogicalTypes.enumeration(List.of("new", "paid")).build())).as("the enum's name is not carried")
                .isEqualTo("text");
        assertThat(InferredType.of(LogicalTypes.named(LogicalTypes.NUMERIC).parameter("precision", "10").parameter("scale", "2").build()))
                .isEqualTo("numeric(10,2)");
        assertThat(InferredType.of(LogicalTypes.named(LogicalTypes.NUMERIC).build())).isEqualTo("numeric");
        assertThat(InferredType.of(LogicalTypes.decimal(3, 12).build())).isEqualTo("numeric(12,3)");
        assertThat(InferredType.of(LogicalTypes.decimal(3, 0).build())).as("no precision known").isEqualTo("numeric");
        assertThat(InferredType.of(LogicalTypes.variableScaleDecimal().build())).isEqualTo("numeric");
        assertThat(InferredType.of(LogicalTypes.named(LogicalTypes.BITS).parameter("length", "8").build())).isEqualTo("bit(8)");
        assertThat(InferredType.of(LogicalTypes.named(LogicalTypes.BITS).build())).isEqualTo("bit varying");
        assertThat(InferredType.of(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build())).isEqualTo("hstore");
    }

    @Test
    void typesCarriedAsTextKeepTheirNameQuotedWhereItIsQualified() {
        assertThat(InferredType.of(LogicalTypes.pgText("inet").build())).isEqualTo("inet");
        assertThat(InferredType.of(LogicalTypes.pgText("public.Mood").build())).isEqualTo("\"public\".\"Mood\"");
        assertThat(InferredType.of(LogicalTypes.pgText("public.int4range[]").build())).isEqualTo("\"public\".\"int4range\"[]");
        assertThat(InferredType.of(SchemaBuilder.struct().name("shop.address").field("street", Schema.OPTIONAL_STRING_SCHEMA).build()))
                .as("a composite type's struct is named after it").isEqualTo("\"shop\".\"address\"");
        assertThat(InferredType.of(SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build())).isEqualTo("jsonb");
    }
}
