package io.sluice.connector.postgres.ddl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.ddl.DdlMessage.Column;
import io.sluice.connector.postgres.ddl.DdlMessage.Constraint;
import io.sluice.connector.postgres.ddl.DdlMessage.Definition;
import io.sluice.connector.postgres.ddl.DdlMessage.Index;
import io.sluice.connector.postgres.ddl.DdlMessage.Selection;
import io.sluice.schemas.envelope.SchemaChangeEvents.ChangeType;
import io.sluice.schemas.envelope.SchemaChangeEvents.ColumnDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.ConstraintDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.ConstraintType;
import io.sluice.schemas.envelope.SchemaChangeEvents.IndexDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.TableChange;
import io.sluice.schemas.naming.Identifiers;

/**
 * The schema-change entry of a table definition of the capture triggers: created, or altered
 * from its definition before (what was renamed, added or dropped read from the two).
 */
final class TableChanges {

    private TableChanges() {
    }

    /** A table that became selected; one that came with rows says so: they follow as a copy ({@link DdlMessage#arrivedWithRows}). */
    static TableChange creation(Definition now, Selection selection, boolean hasRows) {
        return table(ChangeType.CREATE, now, null, Map.of(), List.of(), Map.of(), List.of(), selection, List.of(), hasRows);
    }

    static TableChange alteration(Definition now, Definition previous, Selection selection, boolean rowsFollow) {
        Map<Integer, String> oldNames = new HashMap<>();
        previous.columns().forEach(c -> oldNames.put(c.num(), c.name()));
        Map<String, String> renamedColumns = new HashMap<>();
        List<String> droppedColumns = new ArrayList<>();
        for (Column c : now.columns()) {
            String old = oldNames.get(c.num());
            if (old != null && !old.equals(c.name())) {
                renamedColumns.put(c.name(), old);
            }
        }
        for (Column c : previous.columns()) {
            if (now.columns().stream().noneMatch(n -> n.num() == c.num())) {
                droppedColumns.add(c.name());
            }
        }
        // An index that disappeared while one of the same definition and kind appeared was renamed.
        Map<String, String> renamedIndexes = new HashMap<>();
        List<String> droppedIndexes = new ArrayList<>();
        List<Index> added = new ArrayList<>(now.indexes().stream()
                .filter(i -> previous.indexes().stream().noneMatch(p -> p.name().equals(i.name()))).toList());
        for (Index p : previous.indexes()) {
            if (now.indexes().stream().anyMatch(i -> i.name().equals(p.name()))) {
                continue;
            }
            Index twin = added.stream().filter(i -> i.unique() == p.unique() && i.definition().equals(p.definition())
                    && (i.constraint() == null) == (p.constraint() == null)).findFirst().orElse(null);
            if (twin != null) {
                added.remove(twin);
                renamedIndexes.put(twin.name(), p.name());
            } else {
                droppedIndexes.add(p.name());
            }
        }
        List<String> droppedConstraints = previous.constraints().stream().map(Constraint::name)
                .filter(name -> now.constraints().stream().noneMatch(k -> k.name().equals(name))).toList();
        boolean renamed = !now.schema().equals(previous.schema()) || !now.name().equals(previous.name());
        return table(ChangeType.ALTER, now, renamed ? previous.id() : null, renamedColumns, droppedColumns, renamedIndexes, droppedIndexes,
                selection, droppedConstraints, rowsFollow);
    }

    private static TableChange table(ChangeType type, Definition d, String previousId, Map<String, String> renamedColumns,
                                     List<String> droppedColumns, Map<String, String> renamedIndexes, List<String> droppedIndexes,
                                     Selection selection, List<String> droppedConstraints, boolean rowsFollow) {
        List<ColumnDefinition> columns = new ArrayList<>();
        int position = 1;
        // A column list keeps its columns and the key's; a column renamed keeps flowing while the list names it by either name.
        List<String> listed = selection.columnsOf(d.schema(), d.name(), d.ancestors());
        List<String> key = d.primaryKey() == null ? List.of() : d.primaryKey();
        List<String> leftOut = new ArrayList<>();
        for (Column c : d.columns()) {
            String previousName = renamedColumns.get(c.name());
            if (listed != null && !listed.contains(c.name()) && (previousName == null || !listed.contains(previousName))
                    && !key.contains(c.name())) {
                leftOut.add(c.name());
                continue;
            }
            boolean generated = c.generatedExpression() != null;
            columns.add(new ColumnDefinition(c.name(), c.typeName(), c.type(), position++, !c.notNull(),
                    generated ? c.generatedExpression() : c.defaultExpression(), generated, c.enumValues(), null, renamedColumns.get(c.name())));
        }
        List<IndexDefinition> indexes = d.indexes().stream().filter(i -> SqlIdentifiers.mentionsNone(i.definition(), leftOut))
                .map(i -> new IndexDefinition(i.name(), i.unique(), i.definition(), i.constraint(),
                i.constraintDefinition(), renamedIndexes.get(i.name()))).toList();
        // A foreign key to a table the pipeline does not carry could not be made on the target.
        List<ConstraintDefinition> constraints = d.constraints().stream()
                .filter(k -> k.references() == null || selection.selects(k.references()[0], k.references()[1], List.of()))
                .filter(k -> SqlIdentifiers.mentionsNone(k.definition(), leftOut))
                .map(k -> new ConstraintDefinition(k.name(), k.type() == 'f' ? ConstraintType.FOREIGN_KEY : ConstraintType.CHECK, k.definition(),
                        k.references() == null ? null : Identifiers.quote(k.references()[0], k.references()[1])))
                .toList();
        return new TableChange(type, d.id(), d.primaryKey() == null ? List.of() : d.primaryKey(), columns, null, previousId, indexes,
                droppedColumns, droppedIndexes, d.partitionOf() == null ? null : Identifiers.quote(d.partitionOf()[0], d.partitionOf()[1]),
                d.partitionBound(), d.partitionKey(), constraints, droppedConstraints, rowsFollow);
    }
}
