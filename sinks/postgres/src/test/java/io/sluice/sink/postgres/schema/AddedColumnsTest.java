package io.sluice.sink.postgres.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import io.sluice.schemas.mapping.LogicalTypes;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

class AddedColumnsTest {

    @Test
    void aTypeTheTargetMayLackFallsBackToTextInTheSameStatement() {
        Schema row = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).field("Note", Schema.OPTIONAL_STRING_SCHEMA)
                .field("mood", LogicalTypes.pgText("shop.mood").optional().build()).build();
        String sql = AddedColumns.sql("public", "Orders", row.fields().subList(1, 3));
        assertThat(sql).startsWith("DO $sluice$BEGIN PERFORM pg_advisory_xact_lock(hashtext('\"public\".\"Orders\"'));")
                .contains(" ALTER TABLE \"public\".\"Orders\" ADD COLUMN IF NOT EXISTS \"Note\" text;")
                .contains(" BEGIN ALTER TABLE \"public\".\"Orders\" ADD COLUMN IF NOT EXISTS \"mood\" \"shop\".\"mood\"; EXCEPTION WHEN "
                        + "undefined_object THEN ALTER TABLE \"public\".\"Orders\" ADD COLUMN IF NOT EXISTS \"mood\" text; END;")
                .endsWith(" END$sluice$");
        assertThat(AddedColumns.describe(row.fields().subList(1, 3))).isEqualTo("Note text, mood \"shop\".\"mood\"");
        assertThat(AddedColumns.missing(row, List.of())).hasSize(3);
    }
}
