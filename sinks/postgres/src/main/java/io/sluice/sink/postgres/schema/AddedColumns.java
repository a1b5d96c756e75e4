package io.sluice.sink.postgres.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.sluice.schemas.mapping.ColumnMapping;
import io.sluice.schemas.mapping.InferredType;
import io.sluice.schemas.naming.Identifiers;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;

/**
 * The columns incoming rows carry that their target table lacks, and the statement that adds
 * them: for a source whose DDL is not captured, the first row in a table's new shape is the
 * only news of a column added there. Each is added nullable and without a default (neither is
 * known from a row), typed from its values' schema ({@link InferredType}); a type the target
 * does not have (a composite or extension type of the source's) falls back to text.
 */
public final class AddedColumns {

    private AddedColumns() {
    }

    /** The fields of {@code rowSchema} with no column of that name in {@code targetColumns}. */
    public static List<Field> missing(Schema rowSchema, List<ColumnMapping> targetColumns) {
        Set<String> names = targetColumns.stream().map(ColumnMapping::name).collect(Collectors.toSet());
        List<Field> missing = new ArrayList<>();
        for (Field field : rowSchema.fields()) {
            if (!names.contains(field.name())) {
                missing.add(field);
            }
        }
        return missing;
    }

    /**
     * One statement adding {@code fields} to the table, safe to run again and from several tasks
     * at once (they take the table's advisory lock in turn, and the second finds the columns).
     */
    public static String sql(String schema, String table, List<Field> fields) {
        String qualified = Identifiers.quote(schema, table);
        StringBuilder sql = new StringBuilder("DO $sluice$BEGIN PERFORM pg_advisory_xact_lock(hashtext(")
                .append(Identifiers.literal(qualified)).append("));");
        for (Field field : fields) {
            String add = "ALTER TABLE " + qualified + " ADD COLUMN IF NOT EXISTS " + Identifiers.quote(field.name()) + " ";
            String type = InferredType.of(field.schema());
            if (type.equals("text")) {
                sql.append(' ').append(add).append("text;");
            } else {
                sql.append(" BEGIN ").append(add).append(type).append("; EXCEPTION WHEN undefined_object THEN ")
                        .append(add).append("text; END;");
            }
        }
        return sql.append(" END$sluice$").toString();
    }

    /** The added columns as a reader sees them: {@code name type, ...}. */
    public static String describe(List<Field> fields) {
        return fields.stream().map(f -> f.name() + " " + InferredType.of(f.schema())).collect(Collectors.joining(", "));
    }
}
