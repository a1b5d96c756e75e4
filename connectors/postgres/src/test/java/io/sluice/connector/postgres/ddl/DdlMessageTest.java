package io.sluice.connector.postgres.ddl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SchemaChangeEvents.ChangeType;
import io.sluice.schemas.envelope.SchemaChangeEvents.ConstraintDefinition;
import io.sluice.schemas.envelope.SchemaChangeEvents.ConstraintType;
import io.sluice.schemas.envelope.SchemaChangeEvents.TableChange;
import org.junit.jupiter.api.Test;

class DdlMessageTest {

    /** Everything in "public" but the table "hidden". */
    private static final DdlMessage.Selection SELECTION = (schema, name, ancestors) -> schema.equals("public") && !name.equals("hidden");

    private static String table(String columnType, String typeName, String constraints) {
        return """
                {"oid": 7, "schema": "public", "name": "stock", "columns": [{"num": 1, "name": "id", "type": "integer", "typeName": "int4",
                 "notNull": true}, {"num": 2, "name": "v", "type": "%s", "typeName": "%s", "notNull": false}],
                 "primaryKey": ["id"], "indexes": [], "ancestors": [], "constraints": %s}""".formatted(columnType, typeName, constraints);
    }

    private static DdlMessage message(String statement, String before, String after) {
        return message(statement, before, after, false);
    }

    /** @param before null for a table new to the triggers */
    private static DdlMessage message(String statement, String before, String after, boolean hasRows) {
        String json = "{\"tag\": \"ALTER TABLE\", \"statement\": \"" + statement + "\", \"tables\": ["
                + after.substring(0, after.lastIndexOf('}')) + ", \"previous\": " + before + ", \"hasRows\": " + hasRows + "}]}";
        return DdlMessage.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void constraintsNameTheirTableAsAnIdAndLeaveOutForeignKeysToTablesNotCarried() {
        String constraints = """
                [{"name": "positive", "type": "c", "definition": "CHECK ((v > 0))"},
                 {"name": "to_shops", "type": "f", "definition": "FOREIGN KEY (v) REFERENCES public.\\"Shops\\"(id)",
                  "references": ["public", "Shops", "public.\\"Shops\\""]},
                 {"name": "to_hidden", "type": "f", "definition": "FOREIGN KEY (v) REFERENCES public.hidden(id)",
                  "references": ["public", "hidden", "public.hidden"]}]""";
        DdlMessage ddl = message("ALTER TABLE stock ADD ...", table("integer", "int4", "[{\"name\": \"old\", \"type\": \"c\", "
                + "\"definition\": \"CHECK (true)\"}]"), table("integer", "int4", constraints));
        TableChange change = ddl.changes(SELECTION).get(0);
        assertThat(change.constraints()).containsExactly(
                new ConstraintDefinition("positive", ConstraintType.CHECK, "CHECK ((v > 0))", null),
                new ConstraintDefinition("to_shops", ConstraintType.FOREIGN_KEY, "FOREIGN KEY (v) REFERENCES \"public\".\"Shops\"(id)",
                        "\"public\".\"Shops\""));
        assertThat(change.droppedConstraints()).containsExactly("old");
        assertThat(change.rowsFollow()).isFalse();
    }

    @Test
    void rowsAreCopiedAgainAfterAConversionTheTargetCannotRepeat() {
        assertThat(rewrites("ALTER TABLE stock ALTER v TYPE bigint", "integer", "int4", "bigint", "int8")).isFalse();
        assertThat(rewrites("ALTER TABLE stock ALTER v TYPE varchar(20)", "character varying(10)", "varchar", "character varying(20)",
                "varchar")).isFalse();
        assertThat(rewrites("ALTER TABLE stock ALTER v TYPE text", "integer", "int4", "text", "text")).isFalse();
        assertThat(rewrites("ALTER TABLE stock ALTER v TYPE bigint USING v * 2", "integer", "int4", "bigint", "int8")).isTrue();
        assertThat(rewrites("alter table stock alter v type int using length(v)", "text", "text", "integer", "int4")).isTrue();
        // Depends on the session's time zone, which may differ between source and sink.
        assertThat(rewrites("ALTER TABLE stock ALTER v TYPE timestamptz", "timestamp without time zone", "timestamp",
                "timestamp with time zone", "timestamptz")).isTrue();
        assertThat(rewrites("ALTER TABLE stock ALTER v TYPE text", "double precision", "float8", "text", "text")).isTrue();
        // A USING elsewhere in the statement copies as well: safe, if not needed.
        assertThat(rewrites("ALTER TABLE stock ADD EXCLUDE USING gist (v WITH =)", "integer", "int4", "integer", "int4")).isFalse();
    }

    @Test
    void withCopiesOnColumnChangeEveryChangeAnIndexCannotTakeInPlaceCopiesTheRows() {
        DdlMessage.Selection copying = DdlMessage.Selection.of(SELECTION, true, false);
        String stock = table("integer", "int4", "[]");
        // A type change a PostgreSQL target repeats by a cast: copied only when asked to.
        DdlMessage typeChange = message("ALTER TABLE stock ALTER v TYPE bigint", stock, table("bigint", "int8", "[]"));
        assertThat(typeChange.rewritten(SELECTION)).isEmpty();
        assertThat(typeChange.rewritten(copying)).hasSize(1);
        assertThat(typeChange.changes(copying).get(0).rowsFollow()).isTrue();
        // A renamed column, a dropped one, one added with a default, a new key.
        assertThat(message("ALTER TABLE stock RENAME v TO w", stock, stock.replace("\"name\": \"v\"", "\"name\": \"w\""))
                .rewritten(copying)).hasSize(1);
        String dropped = stock.replace(", {\"num\": 2, \"name\": \"v\", \"type\": \"integer\", \"typeName\": \"int4\", \"notNull\": false}", "");
        assertThat(dropped).doesNotContain("\"v\"");
        assertThat(message("ALTER TABLE stock DROP v", stock, dropped).rewritten(copying)).hasSize(1);
        String added = stock.replace("\"notNull\": false}]", "\"notNull\": false}, {\"num\": 3, \"name\": \"color\", \"type\": \"text\", "
                + "\"typeName\": \"text\", \"notNull\": false, \"default\": \"'red'::text\"}]");
        assertThat(added).contains("color");
        assertThat(message("ALTER TABLE stock ADD color text DEFAULT 'red'", stock, added).rewritten(copying)).hasSize(1);
        String addedBare = added.replace(", \"default\": \"'red'::text\"", "");
        assertThat(message("ALTER TABLE stock ADD color text", stock, addedBare).rewritten(copying)).as("a new column all NULL").isEmpty();
        assertThat(message("ALTER TABLE stock ADD PRIMARY KEY", stock, stock.replace("\"primaryKey\": [\"id\"]", "\"primaryKey\": [\"id\", \"v\"]"))
                .rewritten(copying)).hasSize(1);
        assertThat(message("COMMENT ON TABLE stock IS 'x'", stock, stock).rewritten(copying)).as("nothing changed").isEmpty();
    }

    @Test
    void aTableSelectedWithRowsSaysTheyFollow() {
        String stock = table("integer", "int4", "[]");
        for (boolean rows : new boolean[] {true, false}) {
            String json = "{\"tag\": \"CREATE TABLE AS\", \"statement\": \"CREATE TABLE stock AS ...\", \"tables\": ["
                    + stock.substring(0, stock.lastIndexOf('}')) + ", \"hasRows\": " + rows + "}]}";
            DdlMessage ddl = DdlMessage.parse(json.getBytes(StandardCharsets.UTF_8));
            TableChange change = ddl.changes(SELECTION).get(0);
            assertThat(change.type()).isEqualTo(io.sluice.schemas.envelope.SchemaChangeEvents.ChangeType.CREATE);
            assertThat(change.rowsFollow()).as("created with rows: %s", rows).isEqualTo(rows);
            assertThat(ddl.arrivedWithRows(SELECTION)).hasSize(rows ? 1 : 0);
        }
    }

    private static boolean rewrites(String statement, String from, String fromName, String to, String toName) {
        DdlMessage ddl = message(statement, table(from, fromName, "[]"), table(to, toName, "[]"));
        boolean rewritten = !ddl.rewritten(SELECTION).isEmpty();
        List<TableChange> changes = ddl.changes(SELECTION);
        assertThat(changes.get(0).rowsFollow()).isEqualTo(rewritten);
        return rewritten;
    }

    @Test
    void aTableAttachedToATreePublishedThroughItsRootGoesAsDroppedElseItStaysATable() {
        String standalone = "{\"oid\": 9, \"schema\": \"public\", \"name\": \"feb\", \"columns\": [], \"primaryKey\": [], \"indexes\": [], "
                + "\"constraints\": [], \"ancestors\": []}";
        String partition = standalone.replace("\"ancestors\": []", "\"ancestors\": [[\"public\", \"events\"]]");
        DdlMessage attach = message("ALTER TABLE events ATTACH PARTITION feb ...", standalone, partition);
        List<TableChange> throughRoots = attach.changes(DdlMessage.Selection.of(SELECTION, false, true));
        assertThat(forSinks(throughRoots, false)).singleElement().satisfies(c -> {
            assertThat(c.type()).isEqualTo(io.sluice.schemas.envelope.SchemaChangeEvents.ChangeType.DROP);
            assertThat(c.id()).isEqualTo("\"public\".\"feb\"");
        });
        // A sink that keeps the tree drops its copy too and makes an empty partition: the rows follow as the root's inserts.
        assertThat(forSinks(throughRoots, true)).extracting(TableChange::type, TableChange::id, TableChange::rowsFollow, TableChange::publishedAs)
                .containsExactly(tuple(ChangeType.DROP, "\"public\".\"feb\"", false, null),
                        tuple(ChangeType.CREATE, "\"public\".\"feb\"", false, "\"public\".\"events\""));
        assertThat(attach.changes(DdlMessage.Selection.of(SELECTION, false, false))).singleElement()
                .satisfies(c -> assertThat(c.type()).isEqualTo(io.sluice.schemas.envelope.SchemaChangeEvents.ChangeType.ALTER));
        // Detached: one more table for every sink; a tree-keeping one drops the partition first, and the copy fills it.
        DdlMessage detach = message("ALTER TABLE events DETACH PARTITION feb", partition, standalone, true);
        List<TableChange> detached = detach.changes(DdlMessage.Selection.of(SELECTION, false, true));
        assertThat(forSinks(detached, false)).extracting(TableChange::type, TableChange::rowsFollow)
                .containsExactly(tuple(ChangeType.CREATE, true));
        assertThat(forSinks(detached, true)).extracting(TableChange::type, TableChange::rowsFollow, TableChange::publishedAs)
                .containsExactly(tuple(ChangeType.DROP, false, "\"public\".\"events\""), tuple(ChangeType.CREATE, true, null));
        // Detached out of the selection: its rows left the root as deletes; the partition leaves a tree-keeping sink's tree.
        DdlMessage away = message("ALTER TABLE events DETACH PARTITION feb", partition, standalone.replace("\"feb\"", "\"hidden\""), true);
        List<TableChange> gone = away.changes(DdlMessage.Selection.of(SELECTION, false, true));
        assertThat(forSinks(gone, false)).isEmpty();
        assertThat(forSinks(gone, true)).extracting(TableChange::type, TableChange::id)
                .containsExactly(tuple(ChangeType.DROP, "\"public\".\"feb\""));
        // A partition created in the tree: nothing to a sink that knows the root only; a partition to one that keeps the tree.
        DdlMessage created = message("CREATE TABLE feb PARTITION OF events ...", null, partition);
        List<TableChange> made = created.changes(DdlMessage.Selection.of(SELECTION, false, true));
        assertThat(forSinks(made, false)).isEmpty();
        assertThat(forSinks(made, true)).extracting(TableChange::type, TableChange::view, TableChange::publishedAs)
                .containsExactly(tuple(ChangeType.CREATE, SchemaChangeEvents.PartitionView.TREE, "\"public\".\"events\""));
        // Partitions as tables of their own: every change for every sink.
        assertThat(created.changes(DdlMessage.Selection.of(SELECTION, false, false))).extracting(TableChange::view)
                .containsExactly(SchemaChangeEvents.PartitionView.BOTH);
        // Renamed out of the selection, a table's copy stays, through roots or not.
        DdlMessage hide = message("ALTER TABLE feb RENAME TO hidden", standalone, standalone.replace("\"feb\"", "\"hidden\""));
        assertThat(hide.changes(DdlMessage.Selection.of(SELECTION, false, true))).isEmpty();
    }

    private static List<TableChange> forSinks(List<TableChange> changes, boolean keepsTrees) {
        return changes.stream().filter(c -> c.view().isFor(keepsTrees)).toList();
    }
}
