package io.sluice.sink.postgres.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.schemas.envelope.SchemaChangeEvents.ChangeType;
import io.sluice.schemas.envelope.SchemaChangeEvents.ColumnDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.ConstraintDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.ConstraintType;
import io.sluice.schemas.envelope.SchemaChangeEvents.IndexDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.TableChange;
import org.junit.jupiter.api.Test;

class TableDdlTest {

    private static final String T = "\"public\".\"items\"";

    private static ColumnDefinition column(String name, String type, boolean optional, String defaultExpression, String previousName) {
        return new ColumnDefinition(name, type, type, 1, optional, defaultExpression, false, null, null, previousName);
    }

    private static TableChange alter(List<ColumnDefinition> columns, List<IndexDefinition> indexes, List<String> droppedColumns,
                                     List<String> droppedIndexes) {
        return new TableChange(ChangeType.ALTER, T, List.of("id"), columns, null, null, indexes, droppedColumns, droppedIndexes, null, null,
                null);
    }

    private static TargetDefinition target(Map<String, TargetDefinition.Column> columns, Map<String, TargetDefinition.Index> indexes) {
        return new TargetDefinition(true, columns, indexes, Map.of(), null);
    }

    private static Map<String, TargetDefinition.Column> columns(TargetDefinition.Column... columns) {
        Map<String, TargetDefinition.Column> map = new LinkedHashMap<>();
        for (TargetDefinition.Column c : columns) {
            map.put(c.name(), c);
        }
        return map;
    }

    @Test
    void renamesDropsAddsAndRetypesColumns() {
        TableChange change = alter(List.of(column("id", "integer", false, null, null), column("title", "text", true, null, "name"),
                        column("qty", "bigint", true, null, null), column("color", "text", false, "'red'::text", null),
                        column("n", "integer", false, null, null)),
                List.of(), List.of("gone"), List.of());
        TargetDefinition now = target(columns(new TargetDefinition.Column("id", "integer", true, null, false),
                new TargetDefinition.Column("name", "text", false, null, false), new TargetDefinition.Column("qty", "integer", false, null, false),
                new TargetDefinition.Column("gone", "text", false, null, false),
                new TargetDefinition.Column("mine", "text", false, null, false)), Map.of());
        assertThat(TableDdl.columnChanges(change, T, now)).containsExactly(
                "ALTER TABLE " + T + " RENAME COLUMN \"name\" TO \"title\"",
                "ALTER TABLE " + T + " DROP COLUMN IF EXISTS \"gone\"",
                "ALTER TABLE " + T + " ALTER COLUMN \"qty\" TYPE bigint USING \"qty\"::bigint",
                "ALTER TABLE " + T + " ADD COLUMN IF NOT EXISTS \"color\" text DEFAULT 'red'::text NOT NULL",
                // NOT NULL without a default would fail on a table with rows: the source's rows bring the values.
                "ALTER TABLE " + T + " ADD COLUMN IF NOT EXISTS \"n\" integer");
    }

    @Test
    void nothingToDoWhenTheTargetMatches() {
        TableChange change = alter(List.of(column("id", "integer", false, null, null), column("title", "text", true, null, "name")),
                List.of(new IndexDefinition("items_pkey", true, "USING btree (id)", "items_pkey", "PRIMARY KEY (id)", null)),
                List.of("gone"), List.of("old_index"));
        TargetDefinition now = target(columns(new TargetDefinition.Column("id", "integer", true, null, false),
                new TargetDefinition.Column("title", "text", false, null, false)),
                Map.of("items_pkey", new TargetDefinition.Index("items_pkey", "USING btree (id)", "items_pkey", "PRIMARY KEY (id)")));
        assertThat(TableDdl.columnChanges(change, T, now)).isEmpty();
        assertThat(TableDdl.indexChanges(change, T, "public", now)).isEmpty();
    }

    @Test
    void sequenceDefaultsAreLeftAlone() {
        TableChange change = alter(List.of(column("id", "integer", false, "nextval('public.items_id_seq'::regclass)", null)), List.of(),
                List.of(), List.of());
        TargetDefinition now = target(columns(new TargetDefinition.Column("id", "integer", true, null, false)), Map.of());
        assertThat(TableDdl.columnChanges(change, T, now)).isEmpty();
    }

    @Test
    void redefinedRenamedAndDroppedIndexes() {
        TableChange change = alter(List.of(), List.of(
                        new IndexDefinition("items_pkey", true, "USING btree (id, v)", "items_pkey", "PRIMARY KEY (id, v)", null),
                        new IndexDefinition("by_title_idx", false, "USING btree (title)", null, null, "by_title"),
                        new IndexDefinition("fresh", false, "USING hash (v)", null, null, null)),
                List.of(), List.of("dropped_one"));
        TargetDefinition now = target(Map.of(), Map.of(
                "items_pkey", new TargetDefinition.Index("items_pkey", "USING btree (id)", "items_pkey", "PRIMARY KEY (id)"),
                "by_title", new TargetDefinition.Index("by_title", "USING btree (title)", null, null),
                "dropped_one", new TargetDefinition.Index("dropped_one", "USING btree (x)", null, null),
                "targets_own", new TargetDefinition.Index("targets_own", "USING btree (y)", null, null)));
        assertThat(TableDdl.indexChanges(change, T, "public", now)).containsExactly(
                "DROP INDEX IF EXISTS \"public\".\"dropped_one\"",
                "ALTER TABLE " + T + " DROP CONSTRAINT IF EXISTS \"items_pkey\"",
                "ALTER TABLE " + T + " ADD CONSTRAINT \"items_pkey\" PRIMARY KEY (id, v)",
                "ALTER INDEX \"public\".\"by_title\" RENAME TO \"by_title_idx\"",
                "CREATE INDEX IF NOT EXISTS \"fresh\" ON " + T + " USING hash (v)");
    }

    @Test
    void partitionsAreCreatedUnderTheirParent() {
        TableChange change = new TableChange(ChangeType.CREATE, "\"public\".\"m_2024\"", List.of(), List.of(), null, null, List.of(), List.of(),
                List.of(), "\"public\".\"m\"", "FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')", null);
        assertThat(TableDdl.create(change, "\"public\".\"m_2024\"", "\"public\".\"m\"")).isEqualTo(
                "CREATE TABLE IF NOT EXISTS \"public\".\"m_2024\" PARTITION OF \"public\".\"m\" FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')");
    }

    private static TableChange withConstraints(List<ConstraintDefinition> constraints, List<String> dropped) {
        return new TableChange(ChangeType.ALTER, T, List.of("id"), List.of(), null, null, List.of(), List.of(), List.of(), null, null, null,
                constraints, dropped, false);
    }

    private static TargetDefinition withConstraints(Map<String, String> constraints, String parent) {
        return new TargetDefinition(true, Map.of(), Map.of(), constraints, parent);
    }

    @Test
    void checksAndForeignKeysAreAddedDroppedRedefinedAndValidated() {
        TableChange change = withConstraints(List.of(
                new ConstraintDefinition("qty_positive", ConstraintType.CHECK, "CHECK ((qty > 0))", null),
                new ConstraintDefinition("items_shop", ConstraintType.FOREIGN_KEY, "FOREIGN KEY (shop) REFERENCES \"public\".\"shops\"(id)",
                        "\"public\".\"shops\""),
                new ConstraintDefinition("name_short", ConstraintType.CHECK, "CHECK ((length(name) < 20))", null),
                new ConstraintDefinition("later", ConstraintType.CHECK, "CHECK ((qty < 100))", null)), List.of("gone"));
        TargetDefinition now = withConstraints(Map.of("gone", "CHECK ((qty < 5))", "name_short", "CHECK ((length(name) < 10))",
                "later", "CHECK ((qty < 100)) NOT VALID", "mine", "CHECK (true)"), null);
        // The target's copy of "shops" is named by table.name.format.
        assertThat(TableDdl.constraintChanges(change, T, now, id -> "\"copy\".\"shops\"")).containsExactly(
                "ALTER TABLE " + T + " DROP CONSTRAINT IF EXISTS \"gone\"",
                "ALTER TABLE " + T + " ADD CONSTRAINT \"qty_positive\" CHECK ((qty > 0))",
                "ALTER TABLE " + T + " ADD CONSTRAINT \"items_shop\" FOREIGN KEY (shop) REFERENCES \"copy\".\"shops\"(id)",
                "ALTER TABLE " + T + " DROP CONSTRAINT IF EXISTS \"name_short\"",
                "ALTER TABLE " + T + " ADD CONSTRAINT \"name_short\" CHECK ((length(name) < 20))",
                "ALTER TABLE " + T + " VALIDATE CONSTRAINT \"later\"");
    }

    @Test
    void aRenamedConstraintIsRenamedAndAForeignKeyToAMissingTableLeftOut() {
        TableChange change = withConstraints(List.of(new ConstraintDefinition("positive", ConstraintType.CHECK, "CHECK ((qty > 0))", null),
                new ConstraintDefinition("fk", ConstraintType.FOREIGN_KEY, "FOREIGN KEY (a) REFERENCES \"public\".\"x\"(id)",
                        "\"public\".\"x\"")), List.of("qty_check"));
        TargetDefinition now = withConstraints(Map.of("qty_check", "CHECK ((qty > 0))"), null);
        assertThat(TableDdl.constraintChanges(change, T, now, id -> null))
                .containsExactly("ALTER TABLE " + T + " RENAME CONSTRAINT \"qty_check\" TO \"positive\"");
        assertThat(TableDdl.constraintChanges(change, T, withConstraints(Map.of("positive", "CHECK ((qty > 0))"), null), id -> null)).isEmpty();
    }

    @Test
    void partitionsAreDetachedAndAttached() {
        String parent = "\"public\".\"m\"";
        TableChange detached = new TableChange(ChangeType.ALTER, T, List.of(), List.of(), null, null, List.of(), List.of(), List.of(), null,
                null, null);
        TableChange attached = new TableChange(ChangeType.ALTER, T, List.of(), List.of(), null, null, List.of(), List.of(), List.of(), parent,
                "FOR VALUES FROM (1) TO (5)", null);
        assertThat(TableDdl.partitionChanges(detached, T, withConstraints(Map.of(), parent), null))
                .containsExactly("ALTER TABLE " + parent + " DETACH PARTITION " + T);
        assertThat(TableDdl.partitionChanges(attached, T, withConstraints(Map.of(), null), parent))
                .containsExactly("ALTER TABLE " + parent + " ATTACH PARTITION " + T + " FOR VALUES FROM (1) TO (5)");
        assertThat(TableDdl.partitionChanges(attached, T, withConstraints(Map.of(), parent), parent)).isEmpty();
    }
}
