package io.sluice.connector.postgres.ddl;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.schemas.ddl.ForeignKeys;
import io.sluice.schemas.envelope.ObjectChanges;
import io.sluice.schemas.envelope.SchemaChangeEvents.ChangeType;
import io.sluice.schemas.envelope.SchemaChangeEvents.TableChange;
import io.sluice.schemas.naming.Identifiers;

/**
 * One DDL message of the capture triggers: the command tag, the statement, and for each table
 * it touched the definition after it and the one before ({@code previous}), or that it was
 * dropped. {@link #changes} turns them into schema-change entries for the selected tables:
 * which columns and indexes were renamed, added or dropped is read from the two definitions
 * (columns by their attribute number, which a rename keeps).
 */
public record DdlMessage(String tag, String statement, List<Table> tables, List<ObjectDefinition> objects) {

    public DdlMessage(String tag, String statement, List<Table> tables) {
        this(tag, statement, tables, List.of());
    }

    /**
     * An object other than a table the command created, changed or dropped, with the statements
     * the triggers worked out for a target ({@code sluice_capture.object_statements}).
     *
     * @param schema where it is; for a trigger, its table's schema
     * @param name   its name; for a trigger, its table's name (the table selects it)
     */
    public record ObjectDefinition(String kind, String schema, String name, String identity, String statements, boolean dropped) {
    }

    /**
     * The objects of the message the pipeline carries: those whose schema and name (a trigger's
     * table's) the selection takes, and extensions, which belong to the whole database.
     */
    public List<ObjectChanges.ObjectChange> objectChanges(Selection selection) {
        return selectedObjects(selection).stream().map(o -> new ObjectChanges.ObjectChange(o.kind(), o.identity(), o.statements(), o.dropped()))
                .toList();
    }

    /** The objects of the message the pipeline carries, as the message has them. */
    public List<ObjectDefinition> selectedObjects(Selection selection) {
        return objects.stream().filter(o -> o.kind().equals("extension") || selection.selects(o.schema(), o.name(), List.of())).toList();
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern USING = Pattern.compile("(?i)\\bUSING\\b");

    /** A table's column list, by name and partition ancestors ({schema, name}, nearest first); null for every column. */
    @FunctionalInterface
    public interface ColumnsOf {
        List<String> columnsOf(String schema, String name, List<String[]> ancestors);
    }

    /** Which tables are selected, by name and partition ancestors ({schema, name}, nearest first). */
    @FunctionalInterface
    public interface Selection {
        boolean selects(String schema, String name, List<String[]> ancestors);

        /** Whether every column change copies the table into the stream (for targets that cannot change a field in place). */
        default boolean copiesOnColumnChange() {
            return false;
        }

        /**
         * Whether partitions are published through their root ({@code publish_via_partition_root}): a partition is then
         * no table of its own to the sinks, its rows and changes are its root's.
         */
        default boolean throughRoots() {
            return false;
        }

        /** This selection as a sink that keeps partition trees sees it: every partition a table of its own. */
        default Selection tree() {
            return this;
        }

        /**
         * The columns of a table that flow (its column list; its key's flow too), by name and partition ancestors; null for
         * every column.
         */
        default List<String> columnsOf(String schema, String name, List<String[]> ancestors) {
            return null;
        }

        /** This selection, copying tables on every column change as {@code copyOnColumnChange} says, partitions as {@code throughRoots}. */
        static Selection of(Selection selection, boolean copyOnColumnChange, boolean throughRoots) {
            return of(selection, copyOnColumnChange, throughRoots, (schema, name, ancestors) -> null);
        }

        /** As {@link #of(Selection, boolean, boolean)}, with the tables' column lists. */
        static Selection of(Selection selection, boolean copyOnColumnChange, boolean throughRoots, ColumnsOf columns) {
            return new Selection() {
                @Override
                public List<String> columnsOf(String schema, String name, List<String[]> ancestors) {
                    return columns.columnsOf(schema, name, ancestors);
                }

                @Override
                public boolean selects(String schema, String name, List<String[]> ancestors) {
                    return !(throughRoots && !ancestors.isEmpty()) && selection.selects(schema, name, ancestors);
                }

                @Override
                public boolean copiesOnColumnChange() {
                    return copyOnColumnChange;
                }

                @Override
                public boolean throughRoots() {
                    return throughRoots;
                }

                @Override
                public Selection tree() {
                    return throughRoots ? of(selection, copyOnColumnChange, false, columns) : this;
                }
            };
        }
    }

    /**
     * A table in the message.
     *
     * @param now      its definition after the command; null when dropped
     * @param previous its definition before; null when new to the triggers
     * @param hasRows  whether it held rows when it became known under this name (created with rows, or renamed)
     * @param unpublished the publications that select it but could not take it with its row filter or column list, with
     *                    why: it is left out of them rather than published unfiltered
     * @param joined   a publication took it only now (left out before: its filter did not fit then); its rows must be copied
     */
    public record Table(long oid, Definition now, Definition previous, boolean hasRows, Map<String, String> unpublished,
                        boolean joined) {
    }

    /** A table definition as {@code sluice.table_definition} writes it. */
    public record Definition(String schema, String name, List<Column> columns, List<String> primaryKey, List<Index> indexes,
                             List<String[]> ancestors, String[] partitionOf, String partitionBound, String partitionKey,
                             List<Constraint> constraints) {
        String id() {
            return Identifiers.quote(schema, name);
        }

        /** The partitioned table at the top of its tree, {schema, name}; null when it is in none. */
        public String[] top() {
            return ancestors.isEmpty() ? null : ancestors.get(ancestors.size() - 1);
        }
    }

    public record Column(int num, String name, String type, String typeName, boolean notNull, String defaultExpression,
                         String generatedExpression, List<String> enumValues) {
    }

    public record Index(String name, boolean unique, String definition, String constraint, String constraintDefinition) {
    }

    /**
     * A check ({@code type} 'c') or foreign-key ('f') constraint.
     *
     * @param definition as {@code pg_get_constraintdef} writes it; a foreign key's referenced table quoted as an id
     * @param references the table a foreign key references, {schema, name}; null for a check
     */
    public record Constraint(String name, char type, String definition, String[] references) {
    }

    public static DdlMessage parse(byte[] content) {
        try {
            JsonNode root = JSON.readTree(content);
            List<Table> tables = new ArrayList<>();
            for (JsonNode t : root.path("tables")) {
                boolean dropped = t.path("dropped").asBoolean(false);
                Map<String, String> unpublished = new java.util.LinkedHashMap<>();
                t.path("unpublished").fields().forEachRemaining(e -> unpublished.put(e.getKey(), e.getValue().asText()));
                tables.add(new Table(t.path("oid").asLong(), dropped ? null : definition(t), definition(t.path("previous")),
                        t.path("hasRows").asBoolean(false), unpublished, t.path("joined").asBoolean(false)));
            }
            List<ObjectDefinition> objects = new ArrayList<>();
            for (JsonNode o : root.path("objects")) {
                objects.add(new ObjectDefinition(o.path("kind").asText(), o.path("schema").asText(), o.path("name").asText(),
                        o.path("identity").asText(), o.path("statements").asText(), o.path("dropped").asBoolean(false)));
            }
            return new DdlMessage(root.path("tag").asText(""), root.path("statement").asText(null), tables, objects);
        } catch (IOException e) {
            throw new IllegalArgumentException("A " + DdlCapture.MESSAGE_PREFIX + " message is not valid JSON: " + e.getMessage(), e);
        }
    }

    private static Definition definition(JsonNode d) {
        if (d == null || d.isNull() || d.isMissingNode()) {
            return null;
        }
        List<Column> columns = new ArrayList<>();
        for (JsonNode c : d.path("columns")) {
            columns.add(new Column(c.path("num").asInt(), c.path("name").asText(), c.path("type").asText(), c.path("typeName").asText(),
                    c.path("notNull").asBoolean(), text(c.path("default")), text(c.path("generated")), strings(c.path("enumValues"))));
        }
        List<Index> indexes = new ArrayList<>();
        for (JsonNode i : d.path("indexes")) {
            indexes.add(new Index(i.path("name").asText(), i.path("unique").asBoolean(), i.path("definition").asText(),
                    text(i.path("constraint")), text(i.path("constraintDefinition"))));
        }
        List<String[]> ancestors = new ArrayList<>();
        for (JsonNode a : d.path("ancestors")) {
            ancestors.add(new String[] {a.path(0).asText(), a.path(1).asText()});
        }
        // Definitions stored by an older version of the triggers have no constraints: none known.
        List<Constraint> constraints = new ArrayList<>();
        for (JsonNode k : d.path("constraints")) {
            JsonNode references = k.path("references");
            String definition = k.path("definition").asText();
            String[] table = null;
            if (references.isArray()) {
                table = new String[] {references.path(0).asText(), references.path(1).asText()};
                definition = ForeignKeys.withReferencedTable(definition, references.path(2).asText(), Identifiers.quote(table[0], table[1]));
            }
            constraints.add(new Constraint(k.path("name").asText(), k.path("type").asText("c").charAt(0), definition, table));
        }
        JsonNode parent = d.path("partitionOf");
        return new Definition(d.path("schema").asText(), d.path("name").asText(), columns, strings(d.path("primaryKey")), indexes, ancestors,
                parent.isArray() ? new String[] {parent.path(0).asText(), parent.path(1).asText()} : null, text(d.path("partitionBound")),
                text(d.path("partitionKey")), constraints);
    }

    private static String text(JsonNode n) {
        return n == null || n.isNull() || n.isMissingNode() ? null : n.asText();
    }

    private static List<String> strings(JsonNode n) {
        if (n == null || !n.isArray()) {
            return n == null || n.isNull() || n.isMissingNode() ? null : List.of();
        }
        List<String> out = new ArrayList<>();
        n.forEach(e -> out.add(e.asText()));
        return out;
    }

    /**
     * The schema changes of the selected tables. A table renamed into the selection, or
     * created, is a CREATE; out of it, nothing (its target copy stays, no longer kept in step),
     * except a table attached as a partition of a tree published through its root, which is a
     * DROP: its rows are the root's now; within it, an ALTER naming its previous id. Through
     * roots, partitions' changes still go, for sinks that keep the tree only
     * ({@link io.sluice.schemas.envelope.SchemaChangeEvents.PartitionView}).
     */
    public List<TableChange> changes(Selection selection) {
        List<TableChange> out = new ArrayList<>();
        for (Table t : tables) {
            List<TableChange> published = changes(t, selection, false);
            if (!selection.throughRoots()) {
                out.addAll(published);
                continue;
            }
            // Through roots, a sink that keeps the partition tree (PostgreSQL) still needs the partitions' own changes, to
            // have the partitions the root's rows are routed into; where the two views differ, each change says whom it is
            // for, and each kind of sink meets its own in their order.
            List<TableChange> tree = changes(t, selection.tree(), true);
            if (tree.equals(published)) {
                out.addAll(published);
                continue;
            }
            published.stream().map(TableChange::forRoots).forEach(out::add);
            tree.stream().map(c -> c.forTreesOf(c.type() == ChangeType.DROP ? topOf(t.previous()) : topOf(t.now()))).forEach(out::add);
        }
        return out;
    }

    /**
     * @param rootsPublished whether the selection is the tree view of one that publishes partitions through their roots:
     *                       there a table that moved into or out of a tree goes as dropped and created again, since its
     *                       rows follow in the stream (the root's inserts or deletes, or a copy of the table): an
     *                       attached copy would hold them twice; and a partition's rows never follow as a copy of
     *                       its own (a copy of its root's rows is the root's change)
     */
    private List<TableChange> changes(Table t, Selection selection, boolean rootsPublished) {
        boolean wasSelected = t.previous() != null && selected(selection, t.previous());
        boolean ownRows = !(rootsPublished && t.now() != null && !t.now().ancestors().isEmpty());
        if (t.now() == null) {
            return wasSelected ? List.of(dropped(t)) : List.of();
        }
        if (!selected(selection, t.now())) {
            if (wasSelected && selection.throughRoots() && !t.now().ancestors().isEmpty()) {
                // Attached to a tree published through its root: its rows are the root's now (they follow as the root's
                // inserts), and a copy of its own would hold them twice, so it goes as a dropped table does.
                return List.of(dropped(t));
            }
            if (wasSelected && rootsPublished && !t.previous().ancestors().isEmpty()) {
                // Detached out of the selection: its rows left the root as deletes, and an empty partition kept in the tree
                // would take rows of its range that the source puts elsewhere.
                return List.of(dropped(t));
            }
            return List.of();
        }
        if (!wasSelected) {
            return List.of(TableChanges.creation(t.now(), selection, ownRows && t.hasRows()));
        }
        if (rootsPublished && !Objects.equals(topOf(t.now()), topOf(t.previous()))) {
            return List.of(dropped(t), TableChanges.creation(t.now(), selection, ownRows && t.hasRows()));
        }
        return List.of(TableChanges.alteration(t.now(), t.previous(), selection, ownRows && rewritesRows(t, selection)));
    }

    private static TableChange dropped(Table t) {
        return new TableChange(ChangeType.DROP, t.previous().id(), List.of(), List.of(), null);
    }

    /** The root at the top of the definition's tree, as an id; null when it is in none. */
    private static String topOf(Definition d) {
        String[] top = d.top();
        return top == null ? null : Identifiers.quote(top[0], top[1]);
    }

    /**
     * The tables of the message, selected before and after, whose rows the command converted in
     * a way the target cannot be trusted to repeat by a cast: a type change with a {@code USING}
     * expression, or between types whose cast may depend on session settings or lose what a
     * custom expression would keep. Their rows are copied into the stream again; the schema
     * change tells the sink so ({@code rowsFollow}), and it empties the table first.
     */
    public List<Table> rewritten(Selection selection) {
        List<Table> out = new ArrayList<>();
        for (Table t : tables) {
            if (t.now() != null && t.previous() != null && selected(selection, t.now()) && selected(selection, t.previous()) && rewritesRows(t, selection)) {
                out.add(t);
            }
        }
        return out;
    }

    /**
     * For a table with a definition before and after. With {@link Selection#copiesOnColumnChange()},
     * also any type change, a dropped or renamed column and a changed primary key.
     */
    private boolean rewritesRows(Table t, Selection selection) {
        Map<Integer, Column> before = new HashMap<>();
        t.previous().columns().forEach(c -> before.put(c.num(), c));
        if (selection.copiesOnColumnChange() && columnsChanged(t, before)) {
            return true;
        }
        for (Column c : t.now().columns()) {
            Column was = before.get(c.num());
            if (was != null && !was.type().equals(c.type()) && c.generatedExpression() == null
                    && (statement != null && USING.matcher(statement).find() || !TypeCasts.repeatable(was.typeName(), c.typeName()))) {
                return true;
            }
        }
        return false;
    }

    /**
     * A column's type changed, a column was dropped or renamed, the primary key changed, or a
     * column was added with a default or as generated (every existing row gains a value the
     * stream never carries).
     */
    private static boolean columnsChanged(Table t, Map<Integer, Column> before) {
        if (!t.previous().primaryKey().equals(t.now().primaryKey())) {
            return true;
        }
        Map<Integer, Column> after = new HashMap<>();
        t.now().columns().forEach(c -> after.put(c.num(), c));
        for (Column now : after.values()) {
            if (!before.containsKey(now.num()) && (now.defaultExpression() != null || now.generatedExpression() != null)) {
                return true;
            }
        }
        for (Column was : before.values()) {
            Column now = after.get(was.num());
            if (now == null || !now.name().equals(was.name()) || !now.type().equals(was.type())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The tables of the message that became selected under their new name, or joined a publication
     * only now, and came with rows, which the stream did not carry.
     */
    public List<Table> arrivedWithRows(Selection selection) {
        List<Table> out = new ArrayList<>();
        for (Table t : tables) {
            if (t.now() != null && t.hasRows() && selected(selection, t.now())
                    && (t.previous() == null || !selected(selection, t.previous()) || t.joined())) {
                out.add(t);
            }
        }
        return out;
    }

    private static boolean selected(Selection selection, Definition d) {
        return selection.selects(d.schema(), d.name(), d.ancestors());
    }
}
