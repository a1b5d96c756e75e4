package io.sluice.schemas.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
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

    private static final Schema EVENT = SchemaBuilder.struct().name("event")
            .field("after", SchemaBuilder.struct().name("row").optional().field("id", Schema.INT64_SCHEMA).build())
            .field("op", Schema.STRING_SCHEMA)
            .build();

    @Test
    void checkedRefusesWhatPutRefusesNamingTheField() {
        assertThatThrownBy(() -> StructFill.checked(ROW, new Object[] {"42", null, null}))
                .isInstanceOf(DataException.class).hasMessageContaining("id");
        assertThatThrownBy(() -> StructFill.checked(ROW, new Object[] {null, null, null}))
                .isInstanceOf(DataException.class).hasMessageContaining("id");
        assertThatThrownBy(() -> new Struct(ROW).put("id", "42")).isInstanceOf(DataException.class);
    }

    @Test
    void checkedValidatesAStructOfAnotherSchemaButNotOneOfTheFieldsOwn() {
        Schema rowSchema = EVENT.field("after").schema();
        Struct own = new Struct(rowSchema).put("id", 1L);
        assertThat(StructFill.checked(EVENT, new Object[] {own, "c"})).isEqualTo(new Struct(EVENT).put("after", own).put("op", "c"));
        Schema other = SchemaBuilder.struct().name("other").optional().field("id", Schema.INT64_SCHEMA).build();
        // Kafka's own message, as put gives it ("Struct schemas do not match").
        assertThatThrownBy(() -> StructFill.checked(EVENT, new Object[] {new Struct(other).put("id", 1L), "c"}))
                .isInstanceOf(DataException.class);
        assertThatThrownBy(() -> StructFill.checked(EVENT, new Object[] {own, null})).isInstanceOf(DataException.class);
    }
}
