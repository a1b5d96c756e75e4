package io.sluice.schemas.mapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;

import java.util.Map;
import java.util.stream.Collectors;

import io.sluice.schemas.codec.NumericCodec.NumericMode;
import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.types.TypeCatalog;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What cannot travel as a Connect value or in binary fails with a message naming the column and its type. */
@ExtendWith(PostgresExtension.class)
class UnsupportedValuesIT {

    @BeforeAll
    static void tables(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE odd (id int PRIMARY KEY, rel regclass, query tsquery, lower_bounded int[], amount numeric(10,2))",
                "INSERT INTO odd VALUES (1, 'odd', 'fat & rat', '[0:1]={7,8}', 'NaN')");
    }

    private static Map<String, ColumnMapping> columns(Connection c, MappingOptions options) {
        TypeMapper mapper = new TypeMapper(options);
        return new TypeCatalog(c).columns("public", "odd").stream().map(mapper::map)
                .collect(Collectors.toMap(ColumnMapping::name, m -> m));
    }

    @Test
    void typesWithoutADedicatedCodecTravelAsTextAndNameThemselvesWhenBinaryIsImpossible(TestDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            Map<String, ColumnMapping> columns = columns(c, MappingOptions.DEFAULTS);
            ColumnMapping rel = columns.get("rel");
            assertThat(rel.schema().name()).isEqualTo(LogicalTypes.PG_TEXT);
            assertThat(rel.schema().parameters()).containsEntry(LogicalTypes.PG_TYPE_PARAMETER, "regclass");
            assertThat(rel.readsBinary()).isFalse();
            assertThat(rel.fromText("odd")).isEqualTo("odd");

            assertThatThrownBy(() -> rel.toBinary("odd", new WireBuffer()))
                    .isInstanceOf(DataException.class)
                    .hasMessageContaining("public.odd.rel")
                    .hasMessageContaining("regclass")
                    .hasMessageContaining("text COPY");
            assertThatThrownBy(() -> columns.get("query").toBinary("'fat' & 'rat'", new WireBuffer()))
                    .hasMessageContaining("public.odd.query")
                    .hasMessageContaining("tsquery");
        }
    }

    @Test
    void arrayWithMoreDimensionsThanDeclaredNamesTheColumnAndTheWayOut(TestDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            ColumnMapping column = columns(c, MappingOptions.DEFAULTS).get("lower_bounded");
            assertThatThrownBy(() -> column.fromText("{{7,8},{9,10}}"))
                    .isInstanceOf(DataException.class)
                    .hasMessageContaining("public.odd.lower_bounded")
                    .hasMessageContaining("integer[]")
                    .hasMessageContaining("map it as text");
            // Lower bounds other than 1 are no reason to: they travel beside the elements.
            assertThat(column.fromText("[0:1]={7,8}")).isEqualTo(java.util.List.of(7, 8));

            ColumnMapping asText = columns(c, MappingOptions.DEFAULTS.withTextColumns(java.util.Set.of("public.odd.lower_bounded")))
                    .get("lower_bounded");
            assertThat(asText.fromText("{{7,8},{9,10}}")).isEqualTo("{{7,8},{9,10}}");
        }
    }

    @Test
    void notANumberInPreciseModeNamesTheColumnAndTheExactMode(TestDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            ColumnMapping amount = columns(c, MappingOptions.DEFAULTS.withNumericMode(NumericMode.PRECISE)).get("amount");
            assertThatThrownBy(() -> amount.fromText("NaN"))
                    .isInstanceOf(DataException.class)
                    .hasMessageContaining("public.odd.amount")
                    .hasMessageContaining("numeric(10,2)")
                    .hasMessageContaining("exact mode");
        }
    }

    @Test
    void unknownTableIsReportedByName(TestDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            assertThatThrownBy(() -> new TypeCatalog(c).columns("public", "missing"))
                    .hasMessageContaining("public.missing");
        }
    }
}
