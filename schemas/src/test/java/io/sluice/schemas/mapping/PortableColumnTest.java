package io.sluice.schemas.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

import io.sluice.schemas.codec.NumericCodec.NumericMode;
import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.types.Oids;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.PgType;

/**
 * A raw column's description rebuilds the mapping the source gave the column: the same Connect
 * schema and the same values from the same bytes, for every built-in type, arrays of them, enums
 * and domains, in every numeric mode. If it did not, a value rewritten inside a raw tuple would
 * not get the rewrite it gets in a decoded row.
 */
class PortableColumnTest {

    private static PgType builtIn(int oid) {
        return new PgType(oid, "pg_catalog", "t" + oid, PgType.Kind.BASE, "recv" + oid, ',', -1, null, null, null);
    }

    private static List<Integer> builtInOids() throws IllegalAccessException {
        List<Integer> oids = new ArrayList<>();
        for (var f : Oids.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                oids.add(f.getInt(null));
            }
        }
        return oids;
    }

    private static List<PgColumn> columns() throws IllegalAccessException {
        List<PgColumn> columns = new ArrayList<>();
        for (int oid : builtInOids()) {
            PgType type = builtIn(oid);
            PgType array = new PgType(90000 + oid, "pg_catalog", "_t" + oid, PgType.Kind.ARRAY, "array_recv", ',', -1, type, null, null);
            for (int typmod : new int[] {-1, 1, 12, (10 << 16 | 2) + 4, (5 << 16 | 0xFFFE) + 4}) {
                for (boolean nullable : new boolean[] {true, false}) {
                    columns.add(new PgColumn("public.t", "c", type, typmod, 0, nullable, "declared", false));
                    columns.add(new PgColumn("public.t", "a", array, typmod, 0, nullable, "declared[]", false));
                    columns.add(new PgColumn("public.t", "a2", array, typmod, 2, nullable, "declared[][]", false));
                }
            }
        }
        PgType mood = new PgType(71234, "public", "mood", PgType.Kind.ENUM, "enum_recv", ',', -1, null, List.of("sad", "ok", "happy, \"very\""), null);
        columns.add(new PgColumn("public.t", "e", mood, -1, 0, true, "mood", false));
        PgType price = new PgType(71235, "public", "price", PgType.Kind.DOMAIN, "numeric_recv", ',', (8 << 16 | 3) + 4, builtIn(Oids.NUMERIC),
                null, null);
        PgType cents = new PgType(71236, "public", "cents", PgType.Kind.DOMAIN, "numeric_recv", ',', -1, price, null, null);
        columns.add(new PgColumn("public.t", "p", price, -1, 0, false, "price", false));
        columns.add(new PgColumn("public.t", "q", cents, -1, 0, true, "cents", false));
        columns.add(new PgColumn("public.t", "r", cents, (4 << 16 | 1) + 4, 0, true, "cents", false));
        return columns;
    }

    @Test
    void everyRawEligibleColumnRebuildsItsSourceMapping() throws Exception {
        int checked = 0;
        for (NumericMode mode : NumericMode.values()) {
            TypeMapper mapper = new TypeMapper(new MappingOptions(mode, Set.of()));
            List<ColumnMapping> eligible = new ArrayList<>();
            for (PgColumn column : columns()) {
                ColumnMapping m = mapper.map(column);
                if (RawEligibility.eligible(List.of(m))) {
                    eligible.add(m);
                }
            }
            Struct description = PortableColumn.describe(eligible, List.of("g"));
            description.validate();
            List<PortableColumn> read = PortableColumn.read(description);
            assertThat(PortableColumn.generated(description)).containsExactly("g");
            assertThat(read).hasSize(eligible.size()).doesNotContainNull();
            for (int i = 0; i < eligible.size(); i++) {
                ColumnMapping source = eligible.get(i);
                ColumnMapping rebuilt = read.get(i).mapping("public.t", source.name(), source.column().declaredType());
                assertThat(rebuilt.schema()).as("%s in %s mode", source, mode).isEqualTo(source.schema());
                assertThat(rebuilt.readsBinary()).isTrue();
                checked++;
            }
        }
        assertThat(checked).as("columns checked").isGreaterThan(300);
    }

    @Test
    void rebuiltMappingsReadAndWriteTheSameBytes() {
        // Values whose decoding depends on what the description carries: numeric mode and scale, enum labels, array depth.
        NumericMode[] modes = NumericMode.values();
        PgType numeric = builtIn(Oids.NUMERIC);
        PgType mood = new PgType(71234, "public", "mood", PgType.Kind.ENUM, "enum_recv", ',', -1, null, List.of("sad", "happy"), null);
        PgType intArray = new PgType(1007, "pg_catalog", "_int4", PgType.Kind.ARRAY, "array_recv", ',', -1, builtIn(Oids.INT4), null, null);
        for (NumericMode mode : modes) {
            TypeMapper mapper = new TypeMapper(new MappingOptions(mode, Set.of()));
            List<ColumnMapping> source = List.of(
                    mapper.map(new PgColumn("public.t", "n", numeric, (10 << 16 | 2) + 4, 0, true, "numeric(10,2)", false)),
                    mapper.map(new PgColumn("public.t", "m", mood, -1, 0, true, "mood", false)),
                    mapper.map(new PgColumn("public.t", "a", intArray, -1, 2, true, "integer[]", false)));
            List<Object> values = List.of(
                    source.get(0).fromText("-12345678.90"),
                    source.get(1).fromText("happy"),
                    source.get(2).fromText("{{1,NULL},{3,4}}"));
            List<PortableColumn> read = PortableColumn.read(PortableColumn.describe(source, List.of()));
            for (int i = 0; i < source.size(); i++) {
                ColumnMapping rebuilt = read.get(i).mapping("public.t", source.get(i).name(), "x");
                WireBuffer original = new WireBuffer();
                source.get(i).toBinary(values.get(i), original);
                WireBuffer again = new WireBuffer();
                Object decoded = rebuilt.fromBinary(ByteBuffer.wrap(original.toByteArray()));
                rebuilt.toBinary(decoded, again);
                assertThat(decoded).as("%s in %s mode", source.get(i), mode).isEqualTo(values.get(i));
                assertThat(again.toByteArray()).isEqualTo(original.toByteArray());
            }
        }
    }
}
