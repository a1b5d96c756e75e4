package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The rows of a partition's {@code sluice.rows} message are read back as the capture trigger
 * wrote them: every value in its column, NULL as null (not the text "null"), empty text as empty,
 * whatever the text holds (quotes, backslashes, control characters, astral code points, text
 * that looks like JSON), in rows of zero columns to many, and the root's columns as the Relation.
 */
class PartitionRowsProperties {

    @Property(tries = 300)
    void rowsReadBackAsWritten(@ForAll("columns") List<String> columns, @ForAll boolean attached, @ForAll("rows") List<List<String>> drawn)
            throws Exception {
        List<String[]> rows = new ArrayList<>();
        for (List<String> r : drawn) {
            String[] row = new String[columns.size()];
            for (int i = 0; i < row.length; i++) {
                row[i] = r.isEmpty() ? null : r.get(i % r.size());
            }
            rows.add(row);
        }
        PartitionRows read = PartitionRows.parse(message(attached, columns, rows));
        assertThat(read.attached()).isEqualTo(attached);
        assertThat(read.root().oid()).isEqualTo((int) 4_000_000_000L);
        assertThat(read.root().name()).isEqualTo("root \"x\"");
        assertThat(read.root().columns()).extracting(PgOutputMessage.Column::name).containsExactlyElementsOf(columns);
        assertThat(read.rows()).hasSize(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            assertThat(read.rows().get(i)).containsExactly(rows.get(i));
        }
        assertThat(read.fits(read.root())).isTrue();
    }

    /** The layout of {@code sluice_capture.emit_partition_rows}: the head object, then the rows as arrays of text or null. */
    private static byte[] message(boolean attached, List<String> columns, List<String[]> rows) throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeBooleanField("attached", attached);
            g.writeNumberField("oid", 4_000_000_000L); // oids past 2^31 are common on old clusters
            g.writeStringField("schema", "public");
            g.writeStringField("name", "root \"x\"");
            g.writeArrayFieldStart("columns");
            for (String c : columns) {
                g.writeStartArray();
                g.writeString(c);
                g.writeNumber(25);
                g.writeNumber(-1);
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("rows");
            for (String[] row : rows) {
                g.writeStartArray();
                for (String v : row) {
                    if (v == null) {
                        g.writeNull();
                    } else {
                        g.writeString(v);
                    }
                }
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        return out.toString(StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
    }

    @Provide
    Arbitrary<List<String>> columns() {
        return Arbitraries.strings().ofMinLength(1).ofMaxLength(63).list().ofMaxSize(40).uniqueElements();
    }

    @Provide
    Arbitrary<List<List<String>>> rows() {
        Arbitrary<String> value = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, Arbitraries.of("", "null", "NULL", "\\N", "\"", "'", "\\", "{\"rows\": [1, null]}", "[", "NaN",
                        "-Infinity", "\ud83d\ude00 \u0001 \t\n")),
                net.jqwik.api.Tuple.of(10, text(0, 200)),
                net.jqwik.api.Tuple.of(1, large()));
        return value.injectNull(0.2).list().ofMaxSize(8).list().ofMaxSize(30);
    }

    /** A value past 64 KiB (a message holds about 1 MB of rows): built by repeating drawn text, as drawing 70k characters one by one is slow. */
    private static Arbitrary<String> large() {
        return text(1, 40).map(t -> t.repeat(70_000 / t.length() + 1));
    }

    /** Text as PostgreSQL holds it: no NUL, no lone surrogate; an astral code point (a pair) appended to some. */
    private static Arbitrary<String> text(int min, int max) {
        return Arbitraries.strings().withCharRange('\u0001', '\ud7ff').withCharRange('\ue000', '\uffff').ofMinLength(min).ofMaxLength(max)
                .map(t -> t.length() % 3 == 0 ? t + "\ud83d\ude00" : t);
    }
}
