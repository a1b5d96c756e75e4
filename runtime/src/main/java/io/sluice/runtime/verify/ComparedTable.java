package io.sluice.runtime.verify;

import java.util.List;

/**
 * A table as {@code sluice verify} compares it: its source and target names (quoted, qualified),
 * the key rows are matched by, the columns compared, those left out and why, and the source's
 * row filter.
 *
 * @param name     the source table as {@code schema.table}, for the report
 * @param key      the key columns, in key order; empty for a table without one (compared as a whole)
 * @param columns  the columns compared, the key's among them
 * @param leftOut  the columns not compared, each with why ({@code "email (anonymized)"})
 * @param filter   the source's row filter, or null
 * @param sourceKey the key of the source's rows (that of {@code key}, or the anonymized key a table compared as a whole
 *                  still has on the source); empty for a table without one
 */
record ComparedTable(String name, String source, String target, List<String> key, List<String> columns, List<String> leftOut,
                     String filter, List<String> sourceKey) {

    ComparedTable(String name, String source, String target, List<String> key, List<String> columns, List<String> leftOut,
                  String filter) {
        this(name, source, target, key, columns, leftOut, filter, key);
    }

    boolean keyed() {
        return !key.isEmpty();
    }
}
