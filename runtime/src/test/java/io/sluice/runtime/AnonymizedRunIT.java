package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.transforms.transformer.CheckDigits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.runtime.SluiceRuns.Result;

/**
 * A customers table anonymized in strict mode by {@code sluice run}, snapshot then streaming,
 * checked on the real target: every sensitive column rewritten into a valid value of its
 * format, keys and joins intact, the snapshot's raw tuples and streamed changes rewritten
 * alike, and a column added later by DDL stopping the pipeline before any of its values reach
 * the target.
 */
@ExtendWith(PostgresExtension.class)
class AnonymizedRunIT {

    private static final int CUSTOMERS = 3000;

    @TempDir
    Path work;

    @Test
    void strictRulesAnonymizeTheSnapshotAndTheStreamAndStopANewColumn() throws Exception {
        TestDatabase source = TestDatabases.create(AnonymizedRunIT.class);
        TestDatabase target = TestDatabases.create(AnonymizedRunIT.class);
        source.execute("""
                CREATE TABLE customers (
                    id bigint PRIMARY KEY, email text UNIQUE NOT NULL, first_name text, last_name text, login text, phone text,
                    iban text, card text, birthday date, salary numeric(10,2), profile jsonb, tags text[], created_at timestamptz)""",
                """
                INSERT INTO customers
                SELECT g, 'person' || g || '@mail' || (g % 7) || '.org', 'First' || g, 'Last' || g, 'login' || g,
                       '+49 30 ' || lpad(g::text, 7, '0'), 'DE89370400440532013000', '4111 1111 1111 1111',
                       date '1960-01-01' + (g * 7) % 15000, 1000 + g * 3.17,
                       jsonb_build_object('contact', jsonb_build_object('email', 'p' || g || '@home.net'), 'vip', g % 2 = 0),
                       ARRAY['alt' || g || '@x.org'], timestamptz '2024-01-01 10:00:00+00' + g * interval '1 hour'
                  FROM generate_series(1, $CUSTOMERS) g""".replace("$CUSTOMERS", Integer.toString(CUSTOMERS)),
                "CREATE TABLE orders (id bigint PRIMARY KEY, customer_id bigint REFERENCES customers, customer_email text, total numeric(8,2))",
                "INSERT INTO orders SELECT g, 1 + g % " + CUSTOMERS + ", 'person' || (1 + g % " + CUSTOMERS + ") || '@mail' || ((1 + g % "
                        + CUSTOMERS + ") % 7) || '.org', g * 1.5 FROM generate_series(1, 5000) g",
                // No rule changes this table: its raw COPY tuples pass through untouched.
                "CREATE TABLE plans (id int PRIMARY KEY, name text NOT NULL, price numeric(6,2))",
                "INSERT INTO plans SELECT g, 'plan ' || g, g * 9.99 FROM generate_series(1, 50) g");
        Path pipeline = work.resolve("pipeline.yaml");
        Files.writeString(pipeline, """
                name: anon
                source:
                  url: %s
                  status.update.interval.ms: 200
                target:
                  url: %s
                transforms:
                  transforms: anonymize
                  transforms.anonymize.type: io.sluice.transforms.anonymize.Anonymize
                  transforms.anonymize.mode: strict
                  transforms.anonymize.secret: a secret for this test only
                  transforms.anonymize.rules: |
                    *.*.id = keep
                    public.customers.email = email(keep_domain=true)   # one address, one fake, in both tables
                    public.orders.customer_email = email(keep_domain=true)
                    public.customers.first_name = first_name
                    public.customers.last_name = last_name
                    public.customers.login = template(text="{first_name}.{last_name}")
                    public.customers.phone = phone(keep_prefix=2)
                    public.customers.iban = iban
                    public.customers.card = credit_card
                    public.customers.birthday = date_shift(max_days=180, keep_year=true)
                    public.customers.salary = noise(percent=10)
                    public.customers.profile = json("$.contact.email" = email)
                    public.customers.tags = array(each=email)
                    public.customers.created_at = keep
                    public.orders.customer_id = keep
                    public.orders.total = keep
                    public.plans.* = keep
                offsets: %s
                """.formatted(SluiceRuns.url(source), SluiceRuns.url(target), work.resolve("anon.offsets")));
        // Rules that do not fit are all reported before anything runs: every table's problems and a table that is not there.
        Path wrong = work.resolve("wrong.yaml");
        Files.writeString(wrong, Files.readString(pipeline)
                .replace("public.customers.salary = noise(percent=10)", "public.customers.salary = mask")
                .replace("public.orders.total = keep", "public.orders.totl = keep\n    public.custmers.email = email"));
        Result refused = SluiceRuns.start(new CompletableFuture<>(), "snapshot", "--config", wrong.toString()).get(60, TimeUnit.SECONDS);
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).contains("the pipeline cannot start")
                .contains("column salary (rule 'public.customers.salary = mask'): mask writes text but the column holds numeric")
                .contains("table public.orders").contains("column total: no rule matches it")
                .contains("names column totl, which the table does not have")
                .contains("names table public.custmers, which is not among the tables read");
        assertThat(count(target, "SELECT count(*) FROM pg_tables WHERE tablename = 'customers'")).isZero();

        String[] config = {"--config", pipeline.toString()};
        Result init = SluiceRuns.start(new CompletableFuture<>(), "init", config[0], config[1]).get(60, TimeUnit.SECONDS);
        assertThat(init.exit()).as(init.err()).isZero();

        CompletableFuture<Void> stop = new CompletableFuture<>();
        CompletableFuture<Result> run = SluiceRuns.start(stop, "run", config[0], config[1]);
        SluiceRuns.waitFor(() -> count(target, "SELECT count(*) FROM pg_tables WHERE tablename = 'orders'") == 1
                && count(target, "SELECT count(*) FROM orders") == 5000 && count(target, "SELECT count(*) FROM customers") == CUSTOMERS,
                run, "the snapshot");
        // The snapshot's rows came as raw COPY tuples, rewritten inside them; a streamed change comes as a struct. The same
        // values must get the same fakes on both paths, or a row would change on the target when an untouched column changes.
        String rewrittenColumns = "(SELECT id, email, first_name, last_name, login, phone, iban, card, birthday, salary, profile::text, "
                + "tags::text FROM customers WHERE id BETWEEN 10 AND 30)";
        String fromSnapshot = target.checksum(rewrittenColumns);
        source.execute("UPDATE customers SET created_at = created_at + interval '1 second' WHERE id BETWEEN 10 AND 30");
        SluiceRuns.waitFor(() -> count(target, "SELECT count(*) FROM customers WHERE id BETWEEN 10 AND 30 "
                + "AND created_at = timestamptz '2024-01-01 10:00:01+00' + id * interval '1 hour'") == 21, run, "the streamed update");
        assertThat(target.checksum(rewrittenColumns)).as("rows rewritten from raw tuples and from streamed structs").isEqualTo(fromSnapshot);

        source.execute("INSERT INTO customers (id, email, first_name, last_name, login, phone, birthday, salary) "
                        + "VALUES (-1, 'streamed@mail1.org', 'Stream', 'Ed', 'stream.ed', '+1 555 0100', '2000-02-29', 5.55)",
                "UPDATE customers SET email = 'changed@mail2.org', first_name = 'Changed' WHERE id = 7");
        SluiceRuns.waitFor(() -> count(target, "SELECT count(*) FROM customers WHERE id = -1") == 1
                && count(target, "SELECT count(*) FROM customers WHERE id = 7 AND email LIKE '%@mail2.org'") == 1, run, "the streamed changes");

        // Nothing sensitive of the source is on the target.
        assertThat(count(target, "SELECT count(*) FROM customers WHERE email LIKE 'person%' OR email LIKE 'streamed%' OR email LIKE 'changed%' "
                + "OR first_name LIKE 'First%' OR first_name IN ('Stream', 'Changed') OR last_name LIKE 'Last%' OR login LIKE 'login%' "
                + "OR iban = 'DE89370400440532013000' OR card = '4111 1111 1111 1111' OR profile::text LIKE '%@home.net%' "
                + "OR tags::text LIKE '%alt%'")).isZero();
        assertThat(count(target, "SELECT count(*) FROM orders WHERE customer_email LIKE 'person%'")).isZero();
        // Keys, kept columns and the joins through the rewritten email hold.
        assertThat(target.checksum("(SELECT id, created_at FROM customers)")).isEqualTo(source.checksum("(SELECT id, created_at FROM customers)"));
        assertThat(target.checksum("(SELECT id, customer_id, total FROM orders)"))
                .isEqualTo(source.checksum("(SELECT id, customer_id, total FROM orders)"));
        assertThat(count(target, "SELECT count(*) FROM orders o JOIN customers c ON c.email = o.customer_email AND c.id = o.customer_id"))
                .isEqualTo(count(source, "SELECT count(*) FROM orders o JOIN customers c ON c.email = o.customer_email AND c.id = o.customer_id"))
                .isGreaterThan(4000);
        assertThat(count(target, "SELECT count(DISTINCT email) FROM customers")).isEqualTo(CUSTOMERS + 1);
        assertThat(target.checksum("plans")).isEqualTo(source.checksum("plans"));

        // Each rewritten value is valid for its format, compared with its source row.
        Map<Long, Object[]> original = rows(source);
        Map<Long, Object[]> anonymized = rows(target);
        assertThat(anonymized.keySet()).isEqualTo(original.keySet());
        for (var e : anonymized.entrySet()) {
            Object[] a = e.getValue();
            Object[] o = original.get(e.getKey());
            String email = (String) a[0];
            assertThat(email).matches("[a-z]+\\.[a-z]+\\.[0-9]+@mail[0-9]\\.org").endsWith(((String) o[0]).substring(((String) o[0]).indexOf('@')));
            assertThat((String) a[3]).as("login from the fake names").isEqualTo(a[1] + "." + a[2]);
            assertThat(((String) a[4]).replaceAll("[0-9]", "#")).isEqualTo(((String) o[4]).replaceAll("[0-9]", "#"));
            assertThat((String) a[4]).startsWith(((String) o[4]).substring(0, 3));
            if (o[5] != null) {
                assertThat(CheckDigits.ibanValid(((String) a[5]).replace(" ", ""))).isTrue();
                assertThat(CheckDigits.luhnValid(((String) a[6]).replace(" ", ""))).isTrue();
            }
            LocalDate born = (LocalDate) o[7];
            LocalDate shifted = (LocalDate) a[7];
            assertThat(shifted.getYear()).isEqualTo(born.getYear());
            assertThat(Math.abs(ChronoUnit.DAYS.between(born, shifted))).isBetween(1L, 180L);
            BigDecimal salary = (BigDecimal) o[8];
            BigDecimal noisy = (BigDecimal) a[8];
            assertThat(noisy.scale()).isEqualTo(2);
            assertThat(noisy.subtract(salary).abs()).isLessThanOrEqualTo(salary.movePointLeft(1).add(new BigDecimal("0.01")));
        }
        String profile = target.queryText("SELECT profile::text FROM customers WHERE id = 1");
        assertThat(profile).contains("\"vip\": false").containsPattern("\"email\": \"[a-z]+\\.[a-z]+\\.[0-9]+@example\\.com\"");

        // A column added by DDL has no rule: strict mode stops the pipeline before a value of it reaches the target.
        source.execute("ALTER TABLE customers ADD COLUMN ssn text",
                "INSERT INTO customers (id, email, ssn) VALUES (-2, 'late@mail3.org', '078-05-1120')");
        Result stopped = run.get(120, TimeUnit.SECONDS);
        assertThat(stopped.exit()).isNotZero();
        assertThat(stopped.out() + stopped.err()).contains("column ssn: no rule matches it").contains("public.customers");
        assertThat(count(target, "SELECT count(*) FROM customers WHERE id = -2")).isZero();
        stop.complete(null);
    }

    private static Map<Long, Object[]> rows(TestDatabase db) throws Exception {
        Map<Long, Object[]> rows = new HashMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, email, first_name, last_name, login, phone, iban, card, birthday, salary FROM customers")) {
            while (rs.next()) {
                rows.put(rs.getLong(1), new Object[] {rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6),
                        rs.getString(7), rs.getString(8), rs.getObject(9, LocalDate.class), rs.getBigDecimal(10)});
            }
        }
        return rows;
    }

    private static long count(TestDatabase db, String sql) throws Exception {
        return db.queryLong(sql);
    }
}
