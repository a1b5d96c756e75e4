package io.sluice.connector.postgres.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import io.sluice.connector.postgres.selection.TablePattern;
import io.sluice.connector.postgres.selection.TableSelector;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tables whose updates PostgreSQL refuses once published are named, with the fix; those it
 * accepts are not. Checked against the server's own verdict: an update of a named table fails
 * once it is in a publication, and succeeds after the suggested fix.
 */
@ExtendWith(PostgresExtension.class)
class ReplicaIdentitiesIT {

    @Test
    void tablesWhoseUpdatesWouldBeRefusedAreNamedWithTheFix(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE keyed (id int PRIMARY KEY, v int)",
                "CREATE TABLE loose (v int)",
                "CREATE TABLE full_row (v int)", "ALTER TABLE full_row REPLICA IDENTITY FULL",
                "CREATE TABLE nothing (id int PRIMARY KEY, v int)", "ALTER TABLE nothing REPLICA IDENTITY NOTHING",
                "CREATE TABLE by_index (id int NOT NULL, v int)", "CREATE UNIQUE INDEX by_index_id ON by_index (id)",
                "ALTER TABLE by_index REPLICA IDENTITY USING INDEX by_index_id",
                "CREATE TABLE parts (v int, at int) PARTITION BY RANGE (at)",
                "CREATE TABLE parts_a PARTITION OF parts FOR VALUES FROM (0) TO (10)");
        for (String table : List.of("keyed", "loose", "full_row", "nothing", "by_index", "parts")) {
            db.execute("INSERT INTO " + table + (table.equals("loose") || table.equals("full_row") ? " VALUES (1)" : " VALUES (1, 1)"));
        }
        try (Connection c = db.connect()) {
            var tables = new TableSelector(List.of(TablePattern.parse("public.*")), List.of()).select(c, c.getCatalog());
            List<String> problems = ReplicaIdentities.problems(c, tables);
            assertThat(problems).hasSize(3);
            assertThat(problems.get(0)).startsWith("\"public\".\"loose\" has no primary key and no replica identity index")
                    .contains("ALTER TABLE \"public\".\"loose\" REPLICA IDENTITY FULL");
            assertThat(problems.get(1)).startsWith("\"public\".\"nothing\" has REPLICA IDENTITY NOTHING");
            assertThat(problems.get(2)).startsWith("\"public\".\"parts_a\" has no primary key");

            db.execute("CREATE PUBLICATION everything FOR TABLE keyed, loose, full_row, nothing, by_index, parts_a");
            for (String table : List.of("keyed", "full_row", "by_index")) {
                db.execute("UPDATE " + table + " SET v = 2");
            }
            for (String table : List.of("loose", "nothing", "parts_a")) {
                assertThatThrownBy(() -> db.execute("UPDATE " + table + " SET v = 2")).as(table).isInstanceOf(SQLException.class)
                        .hasMessageContaining("does not have a replica identity");
            }
            db.execute("ALTER TABLE loose REPLICA IDENTITY FULL", "UPDATE loose SET v = 2");
            assertThat(ReplicaIdentities.problems(c, tables)).hasSize(2);
        }
    }
}
