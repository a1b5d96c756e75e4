package io.sluice.connector.postgres.subset;

import java.sql.Connection;
import java.sql.SQLException;
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
 * The staging subset's rule as the stream applies it: per selected table the subset decides, its
 * {@link SubsetRole}. Made once as the stream starts, from the foreign keys the source has then.
 */
public final class SubsetRoles {

    private SubsetRoles() {
    }

    /**
     * Each decided table's role, by its name as the stream names it ({@code schema.table},
     * unquoted); tables the subset does not decide are absent (their changes flow as they are).
     * A partition takes the role of the nearest partitioned table above it that has one.
     */
    public static Map<String, SubsetRole> of(Connection c, List<SelectedTable> tables, SubsetRoots roots) throws SQLException {
        if (roots.isEmpty()) {
            return Map.of();
        }
        SubsetSelection.Plan plan;
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false); // the conditions are checked under savepoints
        try {
            plan = SubsetSelection.plan(c, tables, roots);
        } finally {
            c.rollback();
            c.setAutoCommit(autoCommit);
        }
        Set<String> decided = plan.closure().decided();
        Set<String> down = down(plan.seeds().keySet(), plan.keys());
        Map<String, SubsetRole> byQuoted = new LinkedHashMap<>();
        for (String t : decided) {
            List<String> via = new ArrayList<>();
            List<ForeignKey> parents = new ArrayList<>();
            for (ForeignKey k : plan.keys()) {
                if (k.child().equals(t) && decided.contains(k.parent())) {
                    parents.add(k);
                    if (down.contains(k.parent())) {
                        via.add(k.name());
                    }
                }
            }
            byQuoted.put(t, new SubsetRole(t, plan.seeds().get(t), via, parents));
        }
        Map<String, SubsetRole> out = new LinkedHashMap<>();
        for (SelectedTable t : tables) {
            List<String> names = new ArrayList<>();
            names.add(Identifiers.quote(t.schema(), t.name()));
            names.addAll(plan.ancestors().getOrDefault(t.oid(), List.of()));
            for (String n : names) {
                SubsetRole role = byQuoted.get(n);
                if (role != null) {
                    out.put(t.schema() + "." + t.name(), role);
                    break;
                }
            }
        }
        // Published through their roots, partitions' changes carry the root's name: the roots are named too.
        for (Map.Entry<String, SubsetRole> e : byQuoted.entrySet()) {
            String[] parts = Identifiers.unquoteQualified(e.getKey());
            out.putIfAbsent(parts[0] + "." + parts[1], e.getValue());
        }
        return out;
    }

    /** The roots and every table whose rows a chain of foreign keys brings down from them (child of a table in the set). */
    static Set<String> down(Set<String> roots, List<ForeignKey> keys) {
        Set<String> down = new LinkedHashSet<>(roots);
        boolean grew = true;
        while (grew) {
            grew = false;
            for (ForeignKey k : keys) {
                if (down.contains(k.parent()) && down.add(k.child())) {
                    grew = true;
                }
            }
        }
        return down;
    }
}
