package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Column lists through the snapshot and the stream into PostgreSQL: the target's tables have
 * exactly the listed columns and the key's, with the indexes and constraints that hold on them
 * (none over a column left out), and their values equal the source's; a column added later does
 * not flow; what PostgreSQL would refuse of a list stops the run naming the key.
 */
@ExtendWith(PostgresExtension.class)
class ColumnListIT {

    private static final String COLUMNS = "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns "
            + "WHERE table_schema = 'public' AND table_name = ";

    @TempDir
    Path work;

    @Test
    void theTargetHasExactlyTheListedColumns() throws Exception {
        TestDatabase source = TestDatabases.create(ColumnListIT.class);
        TestDatabase target = TestDatabases.create(ColumnListIT.class);
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try {
            source.execute("CREATE TABLE customers (id int PRIMARY KEY, email text NOT NULL UNIQUE, region text, score int "
                            + "CHECK (score >= 0), note text NOT NULL DEFAULT 'x')",
                    "CREATE INDEX customers_region_score ON customers (region, score)",
                    "CREATE INDEX customers_note ON customers (lower(note))",
                    "CREATE TABLE orders (id int PRIMARY KEY, customer_id int REFERENCES customers, amount numeric, secret text NOT NULL)",
                    "INSERT INTO customers SELECT g, 'c' || g || '@x.org', CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END, g % 100, 'n' || g "
                            + "FROM generate_series(1, 2000) g",
                    "INSERT INTO orders SELECT g, 1 + g % 2000, g * 1.5, 's' || g FROM generate_series(1, 5000) g");
            CompletableFuture<Result> run = SluiceRuns.start(stop, "run", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target), "--name", "narrow", "--offsets", work.resolve("narrow.offsets").toString(),
                    "--columns", "public.customers=region, score", "--columns", "public.orders=customer_id,amount",
                    "--set", "source.status.update.interval.ms=200");
            String customers = "SELECT count(*) || ':' || sum(hashtext(id || '/' || coalesce(region, '-') || '/' || coalesce(score, -1))) "
                    + "FROM customers";
            String orders = "SELECT count(*) || ':' || sum(hashtext(id || '/' || customer_id || '/' || amount)) FROM orders";
            SluiceRuns.awaitSame(source, customers, target, customers, run, "the snapshot's customers");
            SluiceRuns.awaitSame(source, orders, target, orders, run, "the snapshot's orders");
            assertThat(target.queryText(COLUMNS + "'customers'")).isEqualTo("id,region,score");
            assertThat(target.queryText(COLUMNS + "'orders'")).isEqualTo("id,customer_id,amount");
            SluiceRuns.waitFor(() -> target.queryLong("SELECT count(*) FROM pg_indexes WHERE indexname = 'customers_region_score'") == 1
                    && target.queryLong("SELECT count(*) FROM pg_constraint WHERE conrelid = 'orders'::regclass AND contype = 'f'") == 1,
                    run, "the index and the foreign key over listed columns");
            assertThat(target.queryLong("SELECT count(*) FROM pg_indexes WHERE tablename = 'customers' AND indexdef ILIKE '%email%'"))
                    .as("the unique index over email, left out").isZero();
            assertThat(target.queryLong("SELECT count(*) FROM pg_indexes WHERE indexname = 'customers_note'")).isZero();
            assertThat(target.queryLong("SELECT count(*) FROM pg_constraint WHERE conrelid = 'customers'::regclass AND contype = 'c'"))
                    .as("the check over score").isEqualTo(1);

            source.execute("UPDATE customers SET region = 'apac' WHERE id % 7 = 0",
                    "UPDATE customers SET email = 'moved' || id || '@x.org' WHERE id % 5 = 0", // only a column left out
                    "DELETE FROM orders WHERE id % 11 = 0", "DELETE FROM customers WHERE id > 1990 AND id NOT IN (SELECT customer_id FROM orders)",
                    "INSERT INTO customers VALUES (3001, 'new@x.org', 'eu', 5, 'y')",
                    "INSERT INTO orders VALUES (9001, 3001, 12.5, 'hidden')",
                    "UPDATE orders SET amount = amount + 1, secret = 'changed' WHERE id % 13 = 0");
            SluiceRuns.awaitSame(source, customers, target, customers, run, "the customers after the changes");
            SluiceRuns.awaitSame(source, orders, target, orders, run, "the orders after the changes");
            // A column added later is in no list: it does not flow, the target does not get it.
            source.execute("ALTER TABLE customers ADD COLUMN tier int", "UPDATE customers SET tier = 1, score = score + 1 WHERE id < 10");
            SluiceRuns.awaitSame(source, customers, target, customers, run, "the customers after a column was added");
            assertThat(target.queryText(COLUMNS + "'customers'")).isEqualTo("id,region,score");
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    @Test
    void whatPostgresWouldRefuseOfAListStopsTheRunNamingTheKey() throws Exception {
        TestDatabase source = TestDatabases.create(ColumnListIT.class);
        TestDatabase target = TestDatabases.create(ColumnListIT.class);
        try {
            source.execute("CREATE TABLE customers (id int PRIMARY KEY, email text, region text)",
                    "CREATE TABLE logs (at timestamptz, line text)", "ALTER TABLE logs REPLICA IDENTITY FULL");
            assertThat(refused(source, target, "public.customers=region, regoin")).contains("table.columns.public.customers names regoin")
                    .contains("not a column");
            assertThat(refused(source, target, "public.logs=line")).contains("table.columns.public.logs leaves out columns")
                    .contains("REPLICA IDENTITY FULL".substring(0, 17));
            assertThat(refused(source, target, "public.customers=region,,email")).contains("empty column name");
            assertThat(source.queryLong("SELECT count(*) FROM pg_publication")).isZero();
            assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).isZero();
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private String refused(TestDatabase source, TestDatabase target, String columns) throws Exception {
        Result r = SluiceRuns.start(new CompletableFuture<>(), "run", "--source", SluiceRuns.url(source), "--target", SluiceRuns.url(target),
                "--name", "refused", "--offsets", work.resolve("refused.offsets").toString(), "--columns", columns).get(120, TimeUnit.SECONDS);
        assertThat(r.exit()).as(r.out() + r.err()).isNotZero();
        return r.out() + r.err();
    }
}
