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

    /** A string constant for SQL, {@code it's} becoming {@code 'it''s'} (standard_conforming_strings, on since PostgreSQL 9.1). */
    public static String literal(String value) {
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("String contains a NUL character");
        }
        return "'" + value.replace("'", "''") + "'";
    }

    /** {@code schema.table}, each part quoted. */
    public static String quote(String schema, String name) {
        return quote(schema) + "." + quote(name);
    }

    /** Splits {@code "schema"."table"} (as {@link #quote(String, String)} writes it) into its two names. */
    public static String[] unquoteQualified(String quoted) {
        java.util.List<String> parts = new java.util.ArrayList<>();
        StringBuilder current = new StringBuilder();
        int i = 0;
        while (i < quoted.length()) {
            char c = quoted.charAt(i);
            if (c == '"') {
                i++;
                while (i < quoted.length()) {
                    if (quoted.charAt(i) == '"') {
                        if (i + 1 < quoted.length() && quoted.charAt(i + 1) == '"') {
                            current.append('"');
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    current.append(quoted.charAt(i++));
                }
                i++;
            } else if (c == '.') {
                parts.add(current.toString());
                current.setLength(0);
                i++;
            } else {
                current.append(c);
                i++;
            }
        }
        parts.add(current.toString());
        if (parts.size() != 2) {
            throw new IllegalArgumentException("Not a qualified name \"schema\".\"table\": " + quoted);
        }
        return parts.toArray(String[]::new);
    }
}
