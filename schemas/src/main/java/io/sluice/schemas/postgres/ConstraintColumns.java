package io.sluice.schemas.postgres;

/**
 * SQL over {@code pg_catalog.pg_constraint c}: a constraint's columns in the constraint's own
 * order, as arrays, and a table's name quoted and qualified, for the catalog queries that read
 * foreign keys.
 */
public final class ConstraintColumns {

    private ConstraintColumns() {
    }

    /** The names of the columns {@code keys} ({@code conkey} or {@code confkey}) lists of {@code relation}'s table. */
    public static String names(String keys, String relation) {
        return "ARRAY(SELECT a.attname FROM unnest(c." + keys + ") WITH ORDINALITY k(n, i) JOIN pg_catalog.pg_attribute a "
                + "ON a.attrelid = c." + relation + " AND a.attnum = k.n ORDER BY k.i)";
    }

    /** The types of those columns, as {@code format_type} spells them. */
    public static String types(String keys, String relation) {
        return "ARRAY(SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) FROM unnest(c." + keys + ") WITH ORDINALITY k(n, i) "
                + "JOIN pg_catalog.pg_attribute a ON a.attrelid = c." + relation + " AND a.attnum = k.n ORDER BY k.i)";
    }

    /** A table's name, quoted and qualified as {@code Identifiers.quote} writes it, from a namespace and a class alias. */
    public static String quotedName(String namespace, String relation) {
        return "'\"' || replace(" + namespace + ".nspname, '\"', '\"\"') || '\".\"' || replace(" + relation + ".relname, '\"', '\"\"') || '\"'";
    }
}
