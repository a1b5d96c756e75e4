package io.sluice.transforms.anonymize;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

class StructFillTest {

    private static final Schema ROW = SchemaBuilder.struct().name("row")
            .field("id", Schema.INT64_SCHEMA)
            .field("name", Schema.OPTIONAL_STRING_SCHEMA)
            .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
            .build();

    @Test
    void fillsTheStructDirectlyWithTheKafkaVersionBuiltAgainst() {
        // Should this fail after a Kafka upgrade, structs are filled through put: correct, and slower (see StructFill).
        assertThat(StructFill.direct()).isTrue();
    }

    @Test
    void givesTheStructThatPutGives() {
        Struct filled = StructFill.of(ROW, new Object[] {42L, null, List.of("a", "b")});
        Struct put = new Struct(ROW).put("id", 42L).put("name", null).put("tags", List.of("a", "b"));
        assertThat(filled).isEqualTo(put);
        assertThat(put).isEqualTo(filled);
        assertThat(filled.hashCode()).isEqualTo(put.hashCode());
        filled.validate();
        assertThat(filled.getInt64("id")).isEqualTo(42L);
        assertThat(filled.toString()).isEqualTo(put.toString());
    }
}
