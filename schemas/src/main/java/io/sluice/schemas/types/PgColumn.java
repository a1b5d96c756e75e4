package io.sluice.schemas.types;

/**
 * A table column.
 *
 * @param table       schema-qualified table name, for messages
 * @param name        column name
 * @param type        its type
 * @param typmod      its type modifier ({@code atttypmod}): length, precision and scale, or -1
 * @param dimensions  declared array dimensions ({@code attndims}); PostgreSQL does not enforce them
 * @param nullable    false when declared NOT NULL
 * @param declaredType the type as {@code format_type} spells it, e.g. {@code numeric(10,2)}
 * @param generated   a stored generated column ({@code GENERATED ALWAYS AS (...) STORED}): readable, never written
 */
public record PgColumn(String table, String name, PgType type, int typmod, int dimensions, boolean nullable,
                       String declaredType, boolean generated) {

    /** {@code schema.table.column}, the name used in messages and rules. */
    public String qualifiedName() {
        return table + "." + name;
    }

    @Override
    public String toString() {
        return qualifiedName() + " " + declaredType;
    }
}
