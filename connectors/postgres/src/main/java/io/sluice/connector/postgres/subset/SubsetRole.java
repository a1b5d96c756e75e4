package io.sluice.connector.postgres.subset;

import java.util.List;

/**
 * What the stream tells a target of a table a staging subset decides, for the target to keep a
 * change of it when its row belongs to the subset by the snapshot's rule, judged against the
 * rows the target has.
 *
 * @param table     the table the rule was made for (quoted, qualified): the table itself, or the
 *                  partitioned table above it that the foreign keys are declared on
 * @param condition the root's condition (SQL over the table's columns); null for a table that is no root
 * @param via       the foreign keys (by name) that bring a row down from its parent: those whose parent is a root
 *                  or a table reached down from one. A row is kept when the row one of them references is on the target.
 * @param parents   every foreign key of the table to a table the subset decides: a kept row needs the rows they
 *                  reference on the target too
 */
public record SubsetRole(String table, String condition, List<String> via, List<ForeignKey> parents) {

    public SubsetRole {
        via = List.copyOf(via);
        parents = List.copyOf(parents);
    }

    /** The columns of the table a change's row must give to be judged: its foreign keys' own columns. */
    public List<String> foreignKeyColumns() {
        return parents.stream().flatMap(k -> k.childColumns().stream()).distinct().toList();
    }
}
