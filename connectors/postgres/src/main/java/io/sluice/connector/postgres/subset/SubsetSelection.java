package io.sluice.connector.postgres.subset;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sluice.connector.postgres.selection.SelectedTable;
import io.sluice.connector.postgres.selection.SubsetRoots;
import io.sluice.schemas.naming.Identifiers;

/**
 * Narrows a snapshot's tables to a staging subset: the roots' rows that meet their condition
 * and the rows foreign keys tie to them ({@link SubsetClosure}'s rule), found once in the
 * snapshot's own transaction (so every table's share is of one moment: readers that import the
 * snapshot see the same ctids), each table then read with the condition that takes exactly its
 * kept rows.
 * Tables no foreign key links to a root are copied whole.
 */
public final class SubsetSelection {

    private SubsetSelection() {
    }

    /** Past this many kept rows in all, the subset is not listed but each table's read runs the subset's query itself. */
    static final long LISTED_ROWS = 5_000_000;

    /**
     * The tables with the subset's condition on those it decides: the subset is found once, in
     * the snapshot's transaction ({@link SubsetWalk}), and each table's read takes the list of its
     * kept rows' ctids; a subset of more than {@value #LISTED_ROWS} rows is not held in memory:
     * each table's read then runs the subset's recursive query ({@link SubsetClosure}).
     *
     * @param snapshot a connection in the snapshot's transaction
     * @throws IllegalArgumentException when a key matches no selected table, or its condition is not one on its table, saying which
     */
    public static List<SelectedTable> apply(Connection snapshot, List<SelectedTable> tables, SubsetRoots roots) throws SQLException {
        if (roots.isEmpty()) {
            return tables;
        }
        Plan plan = plan(snapshot, tables, roots);
        SubsetWalk walk = new SubsetWalk(plan.seeds(), plan.keys(), LISTED_ROWS);
        boolean listed = walk.walk(snapshot);
        Set<String> decided = plan.closure().decided();
        List<SelectedTable> out = new ArrayList<>(tables.size());
        for (SelectedTable t : tables) {
            List<String> names = new ArrayList<>();
            names.add(Identifiers.quote(t.schema(), t.name()));
            names.addAll(plan.ancestors().getOrDefault(t.oid(), List.of()));
            names.removeIf(n -> !decided.contains(n));
            if (names.isEmpty()) {
                out.add(t);
            } else if (!listed) {
                out.add(t.withSubset(plan.closure().condition(names.get(0), t.oid(), names.subList(1, names.size()))));
            } else {
                StringBuilder array = new StringBuilder();
                for (String n : names) {
                    for (String ctid : walk.ctids(n).getOrDefault(t.oid(), List.of())) {
                        array.append(array.length() == 0 ? "" : ",").append('"').append(ctid).append('"');
                    }
                }
                out.add(t.withSubset(array.length() == 0 ? "false" : "ctid = ANY (" + Identifiers.literal("{" + array + "}") + "::tid[])"));
            }
        }
        return out;
    }

    /**
     * What is wrong with the subset's keys for these tables: a key that matches no selected table,
     * a condition that is none on its table; empty when nothing is. Takes no rows.
     */
    public static java.util.Optional<String> problem(Connection c, List<SelectedTable> tables, SubsetRoots roots) throws SQLException {
        try {
            plan(c, tables, roots);
            return java.util.Optional.empty();
        } catch (IllegalArgumentException e) {
            return java.util.Optional.of(e.getMessage());
        }
    }

    /** The roots and their conditions, the foreign keys, the subset's query and each partition's ancestors. */
    record Plan(Map<String, String> seeds, List<ForeignKey> keys, SubsetClosure closure, Map<Long, List<String>> ancestors) {
    }

    static Plan plan(Connection snapshot, List<SelectedTable> tables, SubsetRoots roots) throws SQLException {
        Map<String, String> seeds = new LinkedHashMap<>();
        Map<String, String> keyOf = new LinkedHashMap<>();
        Set<Long> oids = new LinkedHashSet<>();
        Set<String> matchedKeys = new LinkedHashSet<>();
        for (SelectedTable t : tables) {
            oids.add(t.oid());
            String[][] names = t.root() == null ? new String[][] {{t.schema(), t.name()}}
                    : new String[][] {{t.schema(), t.name()}, {t.rootSchema(), t.rootName()}};
            for (String[] n : names) {
                String condition = roots.forTable(n[0], n[1]);
                if (condition != null) {
                    String quoted = Identifiers.quote(n[0], n[1]);
                    seeds.put(quoted, condition);
                    keyOf.put(quoted, roots.keyFor(n[0], n[1]));
                    matchedKeys.add(roots.keyFor(n[0], n[1]));
                }
            }
        }
        List<String> unmatched = roots.keys().values().stream().filter(k -> !matchedKeys.contains(k)).toList();
        if (!unmatched.isEmpty()) {
            throw new IllegalArgumentException(String.join(", ", unmatched) + " match" + (unmatched.size() == 1 ? "es" : "")
                    + " no selected table: name a selected table (schema.table), or add it to table.include.list");
        }
        Map<Long, List<String>> ancestors = ancestors(snapshot, tables);
        ancestors.values().forEach(list -> list.forEach(a -> oids.add(oidOf(snapshot, a))));
        List<ForeignKey> keys = ForeignKey.among(snapshot, oids);
        check(snapshot, seeds, keyOf);
        return new Plan(seeds, keys, new SubsetClosure(seeds, keys), ancestors);
    }

    /** Each root's condition planned on its table, so a wrong one is told by its key, not as a failed read later. */
    private static void check(Connection c, Map<String, String> seeds, Map<String, String> keyOf) throws SQLException {
        for (Map.Entry<String, String> seed : seeds.entrySet()) {
            try (Statement s = c.createStatement()) {
                s.execute("SAVEPOINT sluice_subset_check");
                s.execute("EXPLAIN SELECT 1 FROM " + seed.getKey() + " WHERE (" + seed.getValue() + ")");
                s.execute("RELEASE SAVEPOINT sluice_subset_check");
            } catch (SQLException e) {
                try (Statement s = c.createStatement()) {
                    s.execute("ROLLBACK TO SAVEPOINT sluice_subset_check");
                }
                throw new IllegalArgumentException(keyOf.get(seed.getKey()) + " = " + seed.getValue() + " is not a condition on "
                        + seed.getKey() + ": " + e.getMessage() + ". Write a SQL condition over its columns, e.g. region = 'eu'", e);
            }
        }
    }

    /** The partitioned tables above each partition among the tables (quoted, qualified), nearest first. */
    private static Map<Long, List<String>> ancestors(Connection c, List<SelectedTable> tables) throws SQLException {
        Map<Long, List<String>> out = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT '\"' || replace(n.nspname, '\"', '\"\"') || '\".\"' || replace(k.relname, '\"', '\"\"') || '\"' "
                + "FROM pg_catalog.pg_partition_ancestors(?::oid) WITH ORDINALITY a(relid, i) JOIN pg_catalog.pg_class k ON k.oid = a.relid "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = k.relnamespace WHERE a.relid <> ?::oid ORDER BY a.i")) {
            for (SelectedTable t : tables) {
                if (t.root() == null) {
                    continue;
                }
                s.setLong(1, t.oid());
                s.setLong(2, t.oid());
                List<String> list = new ArrayList<>();
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        list.add(rs.getString(1));
                    }
                }
                out.put(t.oid(), list);
            }
        }
        return out;
    }

    private static long oidOf(Connection c, String quoted) {
        try (PreparedStatement s = c.prepareStatement("SELECT ?::regclass::oid")) {
            s.setString(1, quoted);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot find " + quoted + ": " + e.getMessage(), e);
        }
    }
}
