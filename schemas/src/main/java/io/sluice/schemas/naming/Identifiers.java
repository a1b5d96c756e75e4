package io.sluice.schemas.naming;

/** Quoting of SQL identifiers: the one place Sluice turns a name into SQL. */
public final class Identifiers {

    private Identifiers() {
    }

    /** {@code my "table"} becomes {@code "my ""table"""}; always quoted, so case and keywords survive. */
    public static String quote(String identifier) {
        if (identifier.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("Identifier contains a NUL character");
        }
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /** {@code schema.table}, each part quoted. */
    public static String quote(String schema, String name) {
        return quote(schema) + "." + quote(name);
    }
}
