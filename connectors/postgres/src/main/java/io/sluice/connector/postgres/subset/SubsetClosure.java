package io.sluice.connector.postgres.subset;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

import io.sluice.schemas.naming.Identifiers;

/**
 * Which rows a staging subset keeps, as one recursive query the server runs in the snapshot: the
 * rows of the root tables that meet their condition; the rows that reference a row kept so,
 * transitively ("down": a kept customer's orders, their lines); and the rows that any kept row
 * references, transitively ("up": the products of those lines, their categories), so that no
 * foreign key among the tables dangles. A row kept only because another references it brings
 * its own parents, not its other children: the subset stays small. Self-references and cycles
 * end because a row is kept once per direction.
 *
 * <p>Rows are known by {@code ctid} and {@code tableoid}, which one snapshot holds still, so a
 * table without a key is subset too, and a partition's rows through its root's foreign keys.
 */
public final class SubsetClosure {

    private final Map<String, String> roots;
    private final List<ForeignKey> keys;
    private final Map<String, Set<String>> columns;

    /**
     * @param roots the root tables (quoted, qualified) and each one's condition, SQL over its columns
     * @param keys  the foreign keys among the selected tables
     */
    public SubsetClosure(Map<String, String> roots, List<ForeignKey> keys) {
        this.roots = Map.copyOf(roots);
        this.keys = List.copyOf(keys);
        this.columns = ForeignKey.columnsByTable(keys);
    }

    /**
     * The tables the subset decides (quoted, qualified): the roots and every table a chain of
     * foreign keys, either way, links to one. The others are copied whole.
     */
    public Set<String> decided() {
        Set<String> seen = new LinkedHashSet<>(roots.keySet());
        Deque<String> next = new ArrayDeque<>(roots.keySet());
        while (!next.isEmpty()) {
            String t = next.poll();
            for (ForeignKey k : keys) {
                if (k.child().equals(t) && seen.add(k.parent())) {
                    next.add(k.parent());
                }
                if (k.parent().equals(t) && seen.add(k.child())) {
                    next.add(k.child());
                }
            }
        }
        return seen;
    }

    /**
     * The recursive query's {@code WITH} clause: {@code kept(t, r, down)}, a row of table {@code t}
     * as {@code r} (its ctid, tableoid and foreign-key columns as JSON), reached going down or not.
     */
    public String with() {
        StringBuilder sql = new StringBuilder("WITH RECURSIVE kept(t, r, down) AS (");
        StringJoiner seeds = new StringJoiner(" UNION ");
        roots.forEach((table, condition) -> seeds.add("SELECT " + Identifiers.literal(table) + "::text, " + row(table, "x") + ", true FROM "
                + table + " x WHERE (" + condition + ")"));
        sql.append(seeds);
        List<String> steps = new ArrayList<>();
        for (ForeignKey k : keys) {
            // Down: the rows that reference a row kept going down.
            steps.add("SELECT " + Identifiers.literal(k.child()) + "::text, " + row(k.child(), "y") + ", true FROM " + k.child()
                    + " y WHERE k.down AND k.t = " + Identifiers.literal(k.parent()) + match(k.childColumns(), k.childTypes(), k.parentColumns()));
            // Up: the row any kept row references.
            steps.add("SELECT " + Identifiers.literal(k.parent()) + "::text, " + row(k.parent(), "y") + ", false FROM " + k.parent()
                    + " y WHERE k.t = " + Identifiers.literal(k.child()) + match(k.parentColumns(), k.parentTypes(), k.childColumns()));
        }
        if (!steps.isEmpty()) {
            sql.append(" UNION SELECT x.t, x.r, x.down FROM kept k CROSS JOIN LATERAL (").append(String.join(" UNION ALL ", steps))
                    .append(") x(t, r, down)");
        }
        return sql.append(") ").toString();
    }

    /**
     * The condition a snapshot's read of {@code table} adds to take only the rows the subset
     * keeps; null when the subset does not decide the table (its rows are copied whole).
     *
     * @param oid       the table read (a partition's own)
     * @param ancestors the partitioned tables above it (quoted, qualified), whose foreign keys its rows are kept through
     */
    public String condition(String table, long oid, Collection<String> ancestors) {
        Set<String> decided = decided();
        List<String> names = new ArrayList<>();
        if (decided.contains(table)) {
            names.add(table);
        }
        ancestors.stream().filter(decided::contains).forEach(names::add);
        if (names.isEmpty()) {
            return null;
        }
        StringJoiner in = new StringJoiner(", ");
        names.forEach(n -> in.add(Identifiers.literal(n)));
        return "ctid = ANY (ARRAY(" + with() + "SELECT DISTINCT (r->>'ctid')::tid FROM kept WHERE t IN (" + in
                + ") AND (r->>'tableoid')::oid = " + oid + "))";
    }

    /** A row as the closure keeps it: where it is and the columns its foreign keys use. */
    private String row(String table, String alias) {
        StringBuilder json = new StringBuilder("jsonb_build_object('ctid', " + alias + ".ctid, 'tableoid', " + alias + ".tableoid");
        for (String column : columns.getOrDefault(table, Set.of())) {
            json.append(", ").append(Identifiers.literal(column)).append(", ").append(alias).append('.').append(Identifiers.quote(column));
        }
        return json.append(")").toString();
    }

    /** {@code y}'s columns equal to the kept row's, each read from the JSON as the column's type (so an index on them serves). */
    private static String match(List<String> columns, List<String> types, List<String> keptColumns) {
        StringBuilder sql = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            sql.append(" AND y.").append(Identifiers.quote(columns.get(i))).append(" = (k.r->>").append(Identifiers.literal(keptColumns.get(i)))
                    .append(")::").append(types.get(i));
        }
        return sql.toString();
    }
}
