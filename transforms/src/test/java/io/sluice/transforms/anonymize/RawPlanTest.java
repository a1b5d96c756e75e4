package io.sluice.transforms.anonymize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.envelope.RawTuples;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.MappingOptions;
import io.sluice.schemas.mapping.PortableColumn;
import io.sluice.schemas.mapping.TypeMapper;
import io.sluice.schemas.types.Oids;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.PgType;

/** What a raw record that cannot be rewritten as asked gets: a message naming the table and column, and what to do. */
class RawPlanTest {

    private static final TypeMapper MAPPER = new TypeMapper(MappingOptions.DEFAULTS);

    private static PgType builtIn(int oid, String name) {
        return new PgType(oid, "pg_catalog", name, PgType.Kind.BASE, name + "recv", ',', -1, null, null, null);
    }

    private static ColumnMapping column(String name, PgType type) {
        return MAPPER.map(new PgColumn("public.t", name, type, -1, 0, true, type.name(), false));
    }

    private static SourceRecord raw(List<ColumnMapping> columns, int rows, byte[] tuples) {
        Struct source = new SourceInfo("x", "db", "public", "t", 0L, SourceInfo.Snapshot.TRUE, null, null, null).toStruct();
        Struct value = RawTuples.of(source, columns.stream().map(ColumnMapping::name).toList(),
                columns.stream().map(c -> c.column().declaredType()).toList(), List.of("id"), rows, tuples,
                PortableColumn.describe(columns, List.of("total")));
        return new SourceRecord(Map.of(), Map.of(), "x.public.t", null, null, null, RawTuples.SCHEMA, value);
    }

    private static Anonymize<SourceRecord> anonymize(String rules) {
        Anonymize<SourceRecord> t = new Anonymize<>();
        t.configure(Map.of("rules", rules, "secret", "0123456789abcdef-raw-plan", "mode", "strict"));
        return t;
    }

    @Test
    void aColumnThatCannotBeDecodedIsNamedWhenARuleReadsIt() {
        PgType int4 = builtIn(Oids.INT4, "int4");
        PgType range = new PgType(3904, "pg_catalog", "int4range", PgType.Kind.RANGE, "range_recv", ',', -1, int4, null, null);
        List<ColumnMapping> columns = List.of(column("id", builtIn(Oids.INT8, "int8")), column("span", range));
        SourceRecord record = raw(columns, 0, new byte[0]);
        assertThatThrownBy(() -> anonymize("public.t.id = keep\npublic.t.span = null").apply(record))
                .hasMessageContaining("Table public.t arrives as raw COPY tuples")
                .hasMessageContaining("cannot decode its column(s) span (int4range)")
                .hasMessageContaining("snapshot.raw.tuples.exclude.list");
        // Kept, the column passes as bytes, and a rule may name a generated column the tuples leave out.
        assertThat(anonymize("public.t.id = hash\npublic.t.span = keep\npublic.t.total = keep").apply(record).value()).isNotNull();
    }

    @Test
    void tuplesShorterOrLongerThanTheirCountAreRefused() {
        List<ColumnMapping> columns = List.of(column("id", builtIn(Oids.INT8, "int8")), column("email", builtIn(Oids.TEXT, "text")));
        WireBuffer one = new WireBuffer();
        one.writeShort(2);
        int at = one.reserveLength();
        columns.get(0).toBinary(7L, one);
        one.patchLength(at);
        at = one.reserveLength();
        columns.get(1).toBinary("a@b.org", one);
        one.patchLength(at);
        Anonymize<SourceRecord> t = anonymize("public.t.id = keep\npublic.t.email = email");
        Struct rewritten = (Struct) t.apply(raw(columns, 1, one.toByteArray())).value();
        assertThat(rewritten.getInt32("rows")).isEqualTo(1);
        assertThat(rewritten.getBytes("tuples")).isNotEqualTo(one.toByteArray());
        assertThatThrownBy(() -> t.apply(raw(columns, 2, one.toByteArray())))
                .hasMessageContaining("The raw tuples of table public.t end before their 2 rows do");
        byte[] longer = java.util.Arrays.copyOf(one.toByteArray(), one.size() + 3);
        assertThatThrownBy(() -> t.apply(raw(columns, 1, longer)))
                .hasMessageContaining("hold more than the 1 rows their record counts");
    }
}
