package io.sluice.schemas.mapping;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;

import io.sluice.schemas.codec.NumericCodec.NumericMode;
import io.sluice.schemas.types.PgColumn;
import io.sluice.schemas.types.PgType;

/**
 * What decoding a column of a raw COPY tuple takes, away from the database it was read from: the
 * built-in type that carries its values (oids of built-in types are the same on every server),
 * its type modifier, array depth, enum labels, nullability and the connector's numeric mode. From
 * it {@link #mapping} rebuilds the very {@link ColumnMapping} the source gave the column (same
 * Connect schema, same codec), so a transform decodes, rewrites and encodes values exactly as it
 * would in a decoded row, and one value gets one rewrite on either path.
 *
 * <p>Only columns that may travel raw ({@link RawEligibility}) are described: built-in base types,
 * arrays of them, and enums.
 *
 * @param name        the built-in type's name ({@code int4}, {@code inet}; an array's element type's), which text-like
 *                    types carry in their Connect schema
 * @param oid         the built-in type's oid (an array's element type's); 0 for an enum
 * @param typmod      the type modifier in force (a domain's when the column has none)
 * @param dimensions  0 for a scalar, else the array's depth as the source maps it
 * @param labels      an enum's labels in order; empty otherwise
 * @param nullable    false when the column is declared NOT NULL
 * @param numericMode the connector's numeric representation, for numeric columns; null otherwise
 */
public record PortableColumn(String name, int oid, int typmod, int dimensions, List<String> labels, boolean nullable,
                             NumericMode numericMode) {

    private static final Schema COLUMN_SCHEMA = SchemaBuilder.struct().name("io.sluice.snapshot.PortableColumn").optional()
            .field("name", Schema.STRING_SCHEMA)
            .field("oid", Schema.INT32_SCHEMA)
            .field("typmod", Schema.INT32_SCHEMA)
            .field("dimensions", Schema.INT32_SCHEMA)
            .field("labels", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("nullable", Schema.BOOLEAN_SCHEMA)
            .field("numeric_mode", Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    /**
     * A table's raw columns in tuple order (null for a column that cannot be described), and the
     * generated columns left out of the tuples (the target computes them).
     */
    public static final Schema LIST_SCHEMA = SchemaBuilder.struct().name("io.sluice.snapshot.PortableColumns").optional()
            .field("columns", SchemaBuilder.array(COLUMN_SCHEMA).build())
            .field("generated", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .build();

    public PortableColumn {
        labels = List.copyOf(labels);
    }

    /** The description of a table's raw columns, in the order the tuples hold them, for a raw record. */
    public static Struct describe(List<ColumnMapping> columns, List<String> generatedLeftOut) {
        List<Struct> described = new ArrayList<>(columns.size());
        for (ColumnMapping c : columns) {
            PortableColumn p = of(c);
            described.add(p == null ? null : new Struct(COLUMN_SCHEMA).put("name", p.name).put("oid", p.oid).put("typmod", p.typmod)
                    .put("dimensions", p.dimensions).put("labels", p.labels).put("nullable", p.nullable)
                    .put("numeric_mode", p.numericMode == null ? null : p.numericMode.name()));
        }
        return new Struct(LIST_SCHEMA).put("columns", described).put("generated", List.copyOf(generatedLeftOut));
    }

    /** The columns of a description, null where one could not be described. */
    public static List<PortableColumn> read(Struct decoding) {
        List<PortableColumn> out = new ArrayList<>();
        for (Object o : decoding.getArray("columns")) {
            if (o == null) {
                out.add(null);
                continue;
            }
            Struct s = (Struct) o;
            String mode = s.getString("numeric_mode");
            try {
                out.add(new PortableColumn(s.getString("name"), s.getInt32("oid"), s.getInt32("typmod"), s.getInt32("dimensions"),
                        s.getArray("labels"), s.getBoolean("nullable"), mode == null ? null : NumericMode.valueOf(mode)));
            } catch (IllegalArgumentException e) {
                throw new DataException("A raw record describes a column in numeric mode '" + mode + "', which this Sluice does not know;"
                        + " run the same Sluice version at both ends", e);
            }
        }
        return out;
    }

    /** The generated columns a description says were left out of the tuples. */
    public static List<String> generated(Struct decoding) {
        return decoding.getArray("generated");
    }

    /** The description of one column, or null when its type is not built in (nor an enum, nor an array of a built-in type). */
    static PortableColumn of(ColumnMapping mapping) {
        PgColumn column = mapping.column();
        PgType type = column.type();
        int typmod = column.typmod();
        while (type.kind() == PgType.Kind.DOMAIN) {
            typmod = typmod != -1 ? typmod : type.typmod();
            type = type.related();
        }
        NumericMode mode = numericMode(mapping.schema());
        return switch (type.kind()) {
            case BASE -> builtIn(type) ? new PortableColumn(type.name(), type.oid(), typmod, 0, List.of(), column.nullable(), mode) : null;
            case ARRAY -> builtIn(type.related())
                    ? new PortableColumn(type.related().name(), type.related().oid(), typmod, Math.max(1, column.dimensions()), List.of(),
                    column.nullable(), mode)
                    : null;
            case ENUM -> new PortableColumn("enum", 0, -1, 0, type.labels(), column.nullable(), null);
            default -> null;
        };
    }

    private static boolean builtIn(PgType type) {
        return type.kind() == PgType.Kind.BASE && "pg_catalog".equals(type.schema());
    }

    /** The numeric representation a mapped numeric column shows (null for any other column). */
    private static NumericMode numericMode(Schema schema) {
        Schema s = schema;
        while (s.type() == Schema.Type.ARRAY) {
            s = s.valueSchema();
        }
        if (LogicalTypes.NUMERIC.equals(s.name())) {
            return NumericMode.EXACT;
        }
        if (org.apache.kafka.connect.data.Decimal.LOGICAL_NAME.equals(s.name()) || LogicalTypes.VARIABLE_SCALE_DECIMAL.equals(s.name())) {
            return NumericMode.PRECISE;
        }
        return null;
    }

    /**
     * The column's mapping as the source made it.
     *
     * @param table        the table, {@code schema.table}, for messages
     * @param column       the column's name
     * @param declaredType the type as the source declared it, for messages
     */
    public ColumnMapping mapping(String table, String column, String declaredType) {
        PgType type;
        if (oid == 0) {
            type = new PgType(0, "", name, PgType.Kind.ENUM, "enum_recv", ',', -1, null, labels, null);
        } else {
            type = new PgType(oid, "pg_catalog", name, PgType.Kind.BASE, "", ',', -1, null, null, null);
            if (dimensions > 0) {
                type = new PgType(0, "pg_catalog", "_" + name, PgType.Kind.ARRAY, "array_recv", ',', -1, type, null, null);
            }
        }
        NumericMode mode = numericMode != null ? numericMode
                : oid == io.sluice.schemas.types.Oids.NUMERIC ? NumericMode.DOUBLE : MappingOptions.DEFAULTS.numericMode();
        return new TypeMapper(new MappingOptions(mode, Set.of()))
                .map(new PgColumn(table, column, type, typmod, dimensions, nullable, declaredType, false));
    }
}
