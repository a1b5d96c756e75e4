package io.sluice.schemas.types;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.List;

import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(PostgresExtension.class)
class TypeCatalogIT {

    @BeforeAll
    static void tables(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE with_pk (a int, b text, c int, PRIMARY KEY (c, a))",
                "CREATE TABLE with_identity_index (a int NOT NULL, b text NOT NULL, c int)",
                "CREATE UNIQUE INDEX with_identity_index_b ON with_identity_index (b)",
                "ALTER TABLE with_identity_index REPLICA IDENTITY USING INDEX with_identity_index_b",
                "CREATE TABLE \"Mixed Case\" (\"Id\" int PRIMARY KEY)",
                "CREATE TABLE without_key (a int, b text)",
                "CREATE TYPE pair AS (x int, y text)",
                "ALTER TYPE pair ADD ATTRIBUTE z numeric(5,1)",
                "ALTER TYPE pair DROP ATTRIBUTE y",
                "CREATE TABLE uses_pair (p pair, ps pair[])");
    }

    @Test
    void primaryKeyColumnsComeInKeyOrder(TestDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            assertThat(new TypeCatalog(c).keyColumns("public", "with_pk")).containsExactly("c", "a");
            assertThat(new TypeCatalog(c).keyColumns("public", "Mixed Case")).containsExactly("Id");
        }
    }

    @Test
    void replicaIdentityIndexIsTheKeyWhenThereIsNoPrimaryKey(TestDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            assertThat(new TypeCatalog(c).keyColumns("public", "with_identity_index")).containsExactly("b");
        }
    }

    @Test
    void tableWithNeitherHasNoKey(TestDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            assertThat(new TypeCatalog(c).keyColumns("public", "without_key")).isEmpty();
        }
    }

    @Test
    void compositeTypesListTheirLiveAttributesWithModifiers(TestDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            List<PgColumn> columns = new TypeCatalog(c).columns("public", "uses_pair");
            PgType pair = columns.get(0).type();
            assertThat(pair.kind()).isEqualTo(PgType.Kind.COMPOSITE);
            assertThat(pair.fields()).extracting(PgAttribute::name).containsExactly("x", "z");
            assertThat(pair.fields().get(1).typmod()).isEqualTo((5 << 16 | 1) + 4);
            PgType array = columns.get(1).type();
            assertThat(array.kind()).isEqualTo(PgType.Kind.ARRAY);
            assertThat(array.related()).isEqualTo(pair);
            assertThat(columns.get(1).declaredType()).isEqualTo("pair[]");
        }
    }
}
