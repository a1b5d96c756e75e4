package io.sluice.schemas.mapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.debezium.data.Bits;
import io.debezium.data.Json;
import io.debezium.data.Uuid;
import io.debezium.data.VariableScaleDecimal;
import io.debezium.data.geometry.Point;
import io.debezium.time.Interval;
import io.debezium.time.MicroDuration;
import io.debezium.time.MicroTime;
import io.debezium.time.MicroTimestamp;
import io.debezium.time.NanoTime;
import io.debezium.time.NanoTimestamp;
import io.debezium.time.Time;
import io.debezium.time.Timestamp;
import io.debezium.time.ZonedTime;
import io.debezium.time.ZonedTimestamp;
import io.sluice.schemas.codec.SessionSettings;
import io.sluice.schemas.copy.BinaryCopyWriter;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.TypeCatalog;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;

/**
 * Sluice sinks read Debezium topics: values made by Debezium's own helper classes, in each of
 * Debezium's PostgreSQL representations, adapted by {@link IncomingValues} and written with
 * Sluice's binary COPY encoder, land in PostgreSQL as the values Debezium meant.
 */
@ExtendWith(PostgresExtension.class)
class DebeziumValuesIT {

    private record Case(String column, String type, Schema schema, Object value, String expected) {
    }

    private static final LocalDateTime WHEN = LocalDateTime.of(2024, 5, 1, 10, 15, 30, 123_456_000);
    private static final LocalDateTime WHEN_MS = WHEN.withNano(123_000_000);

    private static List<Case> cases() {
        Schema bits = Bits.schema(10);
        Schema point = Point.builder().build();
        Schema variable = VariableScaleDecimal.schema();
        List<Case> cases = new ArrayList<>(List.of(
                new Case("ts_ms", "timestamp(3)", Timestamp.schema(), Timestamp.toEpochMillis(WHEN_MS, null), "2024-05-01 10:15:30.123"),
                new Case("ts_micro", "timestamp", MicroTimestamp.schema(), MicroTimestamp.toEpochMicros(WHEN, null), "2024-05-01 10:15:30.123456"),
                new Case("ts_nano", "timestamp", NanoTimestamp.schema(), NanoTimestamp.toEpochNanos(WHEN, null), "2024-05-01 10:15:30.123456"),
                new Case("ts_connect", "timestamp", org.apache.kafka.connect.data.Timestamp.SCHEMA,
                        new java.util.Date(WHEN_MS.toInstant(ZoneOffset.UTC).toEpochMilli()), "2024-05-01 10:15:30.123"),
                new Case("tstz", "timestamptz", ZonedTimestamp.schema(),
                        ZonedTimestamp.toIsoString(OffsetDateTime.of(WHEN, ZoneOffset.ofHours(2)), null), "2024-05-01 08:15:30.123456+00"),
                new Case("tstz_micro", "timestamptz", MicroTimestamp.schema(), MicroTimestamp.toEpochMicros(WHEN, null),
                        "2024-05-01 10:15:30.123456+00"),
                new Case("t_ms", "time(3)", Time.schema(), Time.toMilliOfDay(LocalTime.of(10, 15, 30, 123_000_000), false), "10:15:30.123"),
                new Case("t_micro", "time", MicroTime.schema(), MicroTime.toMicroOfDay(LocalTime.of(10, 15, 30, 123_456_000), false),
                        "10:15:30.123456"),
                new Case("t_nano", "time", NanoTime.schema(), NanoTime.toNanoOfDay(LocalTime.of(10, 15, 30, 123_456_000), false),
                        "10:15:30.123456"),
                new Case("ttz", "timetz", ZonedTime.schema(), ZonedTime.toIsoString(OffsetTime.of(10, 15, 30, 0, ZoneOffset.ofHours(2)), null),
                        "10:15:30+02"),
                new Case("d", "date", io.debezium.time.Date.schema(), io.debezium.time.Date.toEpochDay(LocalDate.of(2024, 5, 1), null),
                        "2024-05-01"),
                new Case("d_connect", "date", org.apache.kafka.connect.data.Date.SCHEMA,
                        new java.util.Date(LocalDate.of(2024, 5, 1).toEpochDay() * 86_400_000L), "2024-05-01"),
                new Case("iv", "interval", MicroDuration.schema(), MicroDuration.durationMicros(0, 0, 1, 2, 3, 4.5, null), "PT26H3M4.5S"),
                new Case("iv_str", "interval", Interval.schema(), Interval.toIsoString(1, 2, 3, 4, 5, new BigDecimal("6.78")),
                        "P1Y2M3DT4H5M6.78S"),
                new Case("b", "bit(10)", bits, Bits.fromBitSet(bits, debeziumBits("1000000101")), "1000000101"),
                new Case("b1", "bit(1)", Schema.BOOLEAN_SCHEMA, true, "1"),
                new Case("p", "point", point, Point.createValue(point, 1.5, -2), "(1.5,-2)"),
                new Case("h", "hstore", Json.schema(), "{\"a\":\"1\",\"b\":null}", "\"a\"=>\"1\", \"b\"=>NULL"),
                new Case("n", "numeric(10,2)", Decimal.schema(2), new BigDecimal("12.30"), "12.30"),
                new Case("nv", "numeric", variable, VariableScaleDecimal.fromLogical(variable, new BigDecimal("-1.000005")), "-1.000005"),
                new Case("m", "money", Decimal.schema(2), new BigDecimal("-5.25"), "-$5.25"),
                new Case("f4", "real", Schema.FLOAT64_SCHEMA, 1.5, "1.5"),
                new Case("i2", "smallint", Schema.INT32_SCHEMA, 7, "7"),
                new Case("j", "jsonb", Json.schema(), "{\"a\": 1}", "{\"a\": 1}"),
                new Case("u", "uuid", Uuid.schema(), "0e3c0e2e-8c8f-4b8a-9a43-6f5c1e2d3b4a", "0e3c0e2e-8c8f-4b8a-9a43-6f5c1e2d3b4a")));
        cases.add(new Case("arr", "timestamp[]", SchemaBuilder.array(Timestamp.builder().optional().build()).build(),
                Arrays.asList(Timestamp.toEpochMillis(WHEN_MS, null), null), "{\"2024-05-01 10:15:30.123\",NULL}"));
        return cases;
    }

    /** A bit string the way Debezium's converter builds its BitSet: the rightmost character is bit 0. */
    private static BitSet debeziumBits(String bits) {
        BitSet set = new BitSet(bits.length());
        for (int i = 0; i < bits.length(); i++) {
            if (bits.charAt(i) == '1') {
                set.set(bits.length() - i - 1);
            }
        }
        return set;
    }

    @Test
    void debeziumRepresentationsLandAsTheValuesTheyMean(TestDatabase db) throws Exception {
        List<Case> cases = cases();
        StringBuilder ddl = new StringBuilder("CREATE TABLE from_debezium (");
        for (int i = 0; i < cases.size(); i++) {
            ddl.append(i == 0 ? "" : ", ").append(cases.get(i).column()).append(' ').append(cases.get(i).type());
        }
        db.execute("CREATE EXTENSION IF NOT EXISTS hstore", ddl.append(')').toString());

        try (Connection c = db.connect()) {
            try (Statement s = c.createStatement()) {
                for (String setting : SessionSettings.statements()) {
                    s.execute(setting);
                }
            }
            TypeMapper mapper = new TypeMapper(MappingOptions.DEFAULTS);
            List<PgColumn> columns = new TypeCatalog(c).columns("public", "from_debezium");
            List<ColumnMapping> mappings = columns.stream().map(mapper::map).toList();
            List<Object> row = new ArrayList<>();
            for (int i = 0; i < cases.size(); i++) {
                row.add(IncomingValues.adapt(cases.get(i).schema(), cases.get(i).value(), columns.get(i)));
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (BinaryCopyWriter writer = new BinaryCopyWriter(out, mappings)) {
                writer.writeRow(row);
            }
            c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY from_debezium FROM STDIN (FORMAT binary)",
                    new ByteArrayInputStream(out.toByteArray()));

            Map<String, String> landed = new LinkedHashMap<>();
            Map<String, String> expected = new LinkedHashMap<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM from_debezium")) {
                rs.next();
                for (int i = 0; i < cases.size(); i++) {
                    landed.put(cases.get(i).column(), rs.getString(i + 1));
                    expected.put(cases.get(i).column(), cases.get(i).expected());
                }
            }
            assertThat(landed).isEqualTo(expected);
        }
    }

    @Test
    void aValueThatCannotFitNamesTheColumnAndTheSchema(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE narrow (n int)");
        try (Connection c = db.connect()) {
            PgColumn n = new TypeCatalog(c).columns("public", "narrow").get(0);
            assertThatThrownBy(() -> IncomingValues.adapt(Schema.FLOAT64_SCHEMA, 1.5, n))
                    .isInstanceOf(DataException.class)
                    .hasMessageContaining("public.narrow.n")
                    .hasMessageContaining("integer")
                    .hasMessageContaining("float64");
        }
    }
}
