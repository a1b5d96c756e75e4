package io.sluice.schemas.ddl;

/**
 * Foreign-key definitions as {@code pg_get_constraintdef} writes them
 * ({@code FOREIGN KEY (a) REFERENCES s.t(id) ...}), with the referenced table swapped: a
 * source's definition names the source's table, a target's must name the target's (which
 * {@code table.name.format} may have renamed), and both are compared in one spelling.
 */
public final class ForeignKeys {

    private ForeignKeys() {
    }

    /**
     * @param definition the constraint's definition
     * @param shown      the referenced table as the definition spells it (only quoted where needed)
     * @param table      the table to name instead
     * @return the definition naming {@code table}; unchanged when it does not reference {@code shown}
     */
    public static String withReferencedTable(String definition, String shown, String table) {
        String at = " REFERENCES " + shown + "(";
        int i = definition.indexOf(at);
        if (i < 0) {
            return definition;
        }
        return definition.substring(0, i) + " REFERENCES " + table + "(" + definition.substring(i + at.length());
    }
}
