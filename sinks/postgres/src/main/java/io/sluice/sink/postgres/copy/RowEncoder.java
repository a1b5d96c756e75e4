package io.sluice.sink.postgres.copy;

import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.codec.ArrayLiteral;
import io.sluice.schemas.codec.WireBuffer;
import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.ColumnMismatch;
import io.sluice.schemas.types.PgType;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

/**
 * Writes the fields of incoming rows as binary COPY values of a target table's columns. The
 * fields are matched by name to the target's columns; generated columns are left out (the target
 * computes them). Columns whose type has no binary encoder are written as text, and whoever reads
 * them must cast them to the column's type ({@link #castFrom}).
 */
public final class RowEncoder {

    private final String target;
    private final List<Field> fields = new ArrayList<>();
    private final List<ColumnMapping> columns = new ArrayList<>();
    private final boolean[] asText;

    /**
     * @param target        the target table, for messages
     * @param rowSchema     the incoming row struct schema
     * @param targetColumns the target table's columns
     */
    public RowEncoder(String target, Schema rowSchema, List<ColumnMapping> targetColumns) {
        this.target = target;
        List<Boolean> text = new ArrayList<>();
        for (Field field : rowSchema.fields()) {
            ColumnMapping column = targetColumns.stream().filter(c -> c.name().equals(field.name())).findFirst()
                    .orElseThrow(() -> new ColumnMismatch("Column " + field.name() + " of the incoming rows does not exist in target table "
                            + target + "; add it to the target, or drop the field with a transform"));
            if (column.column().generated()) {
                continue;
            }
            fields.add(field);
            columns.add(column);
            text.add(!column.writesBinary());
        }
        this.asText = new boolean[text.size()];
        for (int i = 0; i < asText.length; i++) {
            asText[i] = text.get(i);
        }
    }

    /** The number of columns written. */
    public int size() {
        return fields.size();
    }

    /** The target column written at {@code i}. */
    public String name(int i) {
        return fields.get(i).name();
    }

    /** The position of the named column among those written, or -1. */
    public int indexOf(String name) {
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The names of the columns written, in order. */
    public List<String> names() {
        return fields.stream().map(Field::name).toList();
    }

    /** The declared type of the target column at {@code i}. */
    public String type(int i) {
        return columns.get(i).column().declaredType();
    }

    /** Whether the column at {@code i} is written as text. */
    public boolean asText(int i) {
        return asText[i];
    }

    /** Whether any column is written as text. */
    public boolean anyText() {
        for (boolean t : asText) {
            if (t) {
                return true;
            }
        }
        return false;
    }

    /** An SQL expression reading column {@code i} from {@code source} (such as {@code s."name"}) as its target type. */
    public String castFrom(int i, String source) {
        if (!asText[i]) {
            return source;
        }
        PgType type = columns.get(i).column().type().underlying();
        if ("pg_catalog".equals(type.schema()) && "regclass".equals(type.name())) {
            // text::regclass is a name lookup, not regclass's input function: it takes '-' (the
            // invalid oid 0, as regclass prints it) for a relation named "-" and fails.
            return "pg_catalog.regclassin(" + source + "::cstring)::" + type(i);
        }
        return source + "::" + type(i);
    }

    /** Writes field {@code i} of the row as one COPY value: its length and bytes, or -1 for NULL. */
    public void write(Struct row, int i, WireBuffer out) {
        Field field = fields.get(i);
        Object value = row.get(field);
        if (value == null) {
            out.writeInt(-1);
            return;
        }
        int at = out.reserveLength();
        if (asText[i]) {
            // A text column's binary format is its UTF-8 bytes; the reader casts them to the real type.
            out.writeUtf8(textOf(columns.get(i), value));
        } else {
            columns.get(i).toBinaryFrom(field.schema(), value, out);
        }
        out.patchLength(at);
    }

    /** PostgreSQL text of a value whose type Sluice carries as text: the string itself, or an array of such strings. */
    private String textOf(ColumnMapping column, Object value) {
        if (value instanceof List<?> list) {
            PgType type = column.column().type().underlying();
            char delimiter = type.kind() == PgType.Kind.ARRAY ? type.related().delimiter() : ',';
            return ArrayLiteral.format(list, delimiter);
        }
        if (value instanceof String text) {
            return text;
        }
        throw new DataException("Column " + column.column().qualifiedName() + " of " + target + " (type " + column.column().declaredType()
                + ") holds a " + value.getClass().getSimpleName() + " that Sluice cannot send as text; exclude the table or map the column as text");
    }
}
