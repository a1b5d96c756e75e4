package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.testing.webhook.TestReceiver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A webhook subscription made with {@code backfill=true} while `sluice run` streams under a
 * workload: what it receives (the reads of its backfill and the changes after it was made),
 * applied in order per key, is the source's table; another subscription gets nothing of the
 * backfill; a table the subscription does not take sends it nothing; and the re-sync's request
 * names the subscription in `sluice status`.
 */
@ExtendWith(PostgresExtension.class)
class WebhookBackfillIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    @Test
    void aSubscriptionMadeWithBackfillGetsTheCurrentRowsAndNoOtherDoes() throws Exception {
        TestDatabase source = TestDatabases.create(WebhookBackfillIT.class);
        String secret = io.sluice.sink.webhook.signing.SigningSecret.generate(new SecureRandom());
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread workload = null;
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try (TestReceiver early = new TestReceiver(List.of(secret)); TestReceiver late = new TestReceiver(List.of(secret))) {
            source.execute("CREATE TABLE orders (id int PRIMARY KEY, amount int NOT NULL)",
                    "INSERT INTO orders SELECT g, g FROM generate_series(1, 3000) g",
                    "CREATE TABLE notes (id int PRIMARY KEY, body text)",
                    "INSERT INTO notes SELECT g, 'n' || g FROM generate_series(1, 50) g");
            int apiPort = SluiceRuns.freePort();
            String api = "http://127.0.0.1:" + apiPort;
            String token = "backfill-it-token-0123456789abcdef";
            String[] pipeline = {"--source", SluiceRuns.url(source), "--target", "webhook", "--name", "hooks",
                    "--offsets", work.resolve("hooks.offsets").toString(),
                    "--set", "target.api.listen=127.0.0.1:" + apiPort, "--set", "target.api.token=" + token,
                    "--set", "target.delivery.allow.networks=127.0.0.1/32", "--set", "target.subscriptions=early",
                    "--set", "target.subscription.early.url=" + early.url(), "--set", "target.subscription.early.secrets=" + secret};
            CompletableFuture<Result> run = SluiceRuns.start(stop, SluiceRuns.with(SluiceRuns.with(new String[] {"run"}, pipeline),
                    "--set", "source.resync.chunk.rows=200"));
            SluiceRuns.waitFor(() -> readIds(early).size() == 3050, run, "the snapshot's 3050 rows at the first subscriber");

            workload = changes(source, writing);
            SluiceRuns.waitFor(() -> early.accepted().size() > 3100, run, "changes flowing to the first subscriber");
            Result made = webhooks("create", "late", "--url", late.url(), "--option", "tables=public.orders", "--option",
                    "secrets=" + secret, "--option", "backfill=true",
                    // One delivery at a time: the order they arrive in is the outbox's, across keys too (a key change spans two).
                    "--option", "max.in.flight=1", "--api", api, "--token", token);
            assertThat(made.exit()).as(made.out() + made.err()).isZero();
            assertThat(JSON.readTree(made.out()).path("backfill").path("state").asText()).as(made.out()).isEqualTo("pending");

            SluiceRuns.waitFor(() -> readIds(late).size() >= 2500, run, "the backfill's reads at the late subscriber");
            writing.set(false);
            workload.join();
            Map<Integer, Integer>[] seen = new Map[1];
            try {
                SluiceRuns.waitFor(() -> (seen[0] = applied(late)).equals(orders(source)), run,
                        "the late subscriber's reads and changes, applied in order, equal to the source's orders");
            } catch (AssertionError e) {
                Map<Integer, Integer> want = orders(source);
                Map<Integer, String> diff = new TreeMap<>();
                want.forEach((id, amount) -> {
                    if (!amount.equals(seen[0].get(id))) {
                        diff.put(id, "source " + amount + ", subscriber " + seen[0].get(id));
                    }
                });
                seen[0].keySet().stream().filter(id -> !want.containsKey(id)).forEach(id -> diff.put(id, "not at the source"));
                throw new AssertionError(e.getMessage() + "; " + diff.size() + " keys differ, e.g. "
                        + diff.entrySet().stream().limit(10).toList(), e);
            }

            assertThat(relations(late)).as("the late subscriber gets only the table it takes").containsExactly("public.orders");
            Map<String, Integer> earlyReads = new HashMap<>();
            for (JsonNode change : changes(early)) {
                if (change.path("operation").asText().equals("read")) {
                    earlyReads.merge(change.path("table").asText() + "/" + change.path("key").path("id").asText(), 1, Integer::sum);
                }
            }
            assertThat(earlyReads).as("the first subscriber got each row read once, by the snapshot, and nothing of the backfill")
                    .hasSize(3050).allSatisfy((key, n) -> assertThat(n).as(key).isEqualTo(1));

            Result got = webhooks("get", "late", "--api", api, "--token", token);
            assertThat(JSON.readTree(got.out()).path("backfill").path("state").asText()).as(got.out()).isEqualTo("started");
            // The request is marked done once the offsets past its last chunk are stored (every few seconds).
            java.util.regex.Pattern done = java.util.regex.Pattern.compile("(?s)late → .*backfill started \\(public.orders\\).*"
                    + "re-sync of public.orders for subscription late \\(request \\d+\\): done");
            String[] said = new String[1];
            try {
                SluiceRuns.waitFor(() -> done.matcher(said[0] = SluiceRuns.start(new CompletableFuture<>(),
                        SluiceRuns.with(new String[] {"status"}, pipeline)).get(60, TimeUnit.SECONDS).out()).find(), run,
                        "the backfill's request done in `sluice status`");
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + ": " + said[0], e);
            }
            SluiceRuns.stopCleanly(stop, run);
        } finally {
            writing.set(false);
            if (workload != null) {
                workload.join();
            }
            stop.complete(null);
            TestDatabases.drop(source);
        }
    }

    /** Changes to orders, about a hundred a second: updates, deletes, inserts of new keys, and a key changed now and then. */
    private static Thread changes(TestDatabase source, AtomicBoolean writing) {
        Thread t = new Thread(() -> {
            try (Connection c = source.connect(); Statement s = c.createStatement()) {
                int next = 100_000;
                while (writing.get()) {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    int id = 1 + r.nextInt(3000);
                    switch (r.nextInt(10)) {
                        case 0 -> s.execute("DELETE FROM orders WHERE id = " + id);
                        case 1 -> s.execute("INSERT INTO orders VALUES (" + next++ + ", 7)");
                        case 2 -> s.execute("UPDATE orders SET id = " + next++ + " WHERE id = " + id);
                        default -> s.execute("UPDATE orders SET amount = amount + 1 WHERE id = " + id);
                    }
                    Thread.sleep(10);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "orders-workload");
        t.start();
        return t;
    }

    /** The source's orders, id to amount. */
    private static Map<Integer, Integer> orders(TestDatabase source) throws Exception {
        Map<Integer, Integer> rows = new TreeMap<>();
        try (Connection c = source.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, amount FROM orders")) {
            while (rs.next()) {
                rows.put(rs.getInt(1), rs.getInt(2));
            }
        }
        return rows;
    }

    /** The subscriber's changes, each delivery once, in the order they arrived (which keeps each key's order). */
    private static List<JsonNode> changes(TestReceiver receiver) {
        Set<String> ids = new HashSet<>();
        return receiver.accepted().stream().filter(r -> !r.id().startsWith("msg_test_") && ids.add(r.id())).map(TestReceiver.Received::json)
                .toList();
    }

    /** The keys the subscriber got a read of, as table/id. */
    private static Set<String> readIds(TestReceiver receiver) {
        Set<String> keys = new HashSet<>();
        for (JsonNode change : changes(receiver)) {
            if (change.path("operation").asText().equals("read")) {
                keys.add(change.path("table").asText() + "/" + change.path("key").path("id").asText());
            }
        }
        return keys;
    }

    private static Set<String> relations(TestReceiver receiver) {
        Set<String> relations = new HashSet<>();
        for (JsonNode change : changes(receiver)) {
            relations.add(change.path("schema").asText() + "." + change.path("table").asText());
        }
        return relations;
    }

    /** The subscriber's changes applied in order: what it would hold, id to amount. */
    private static Map<Integer, Integer> applied(TestReceiver receiver) {
        Map<Integer, Integer> rows = new TreeMap<>();
        for (JsonNode change : changes(receiver)) {
            String op = change.path("operation").asText();
            if (op.equals("delete")) {
                rows.remove(change.path("key").path("id").asInt());
            } else {
                if (op.equals("update") && change.path("before").hasNonNull("id")) {
                    rows.remove(change.path("before").path("id").asInt()); // a key change arrives as one update
                }
                rows.put(change.path("after").path("id").asInt(), change.path("after").path("amount").asInt());
            }
        }
        return rows;
    }

    private static Result webhooks(String... args) throws Exception {
        String[] all = new String[args.length + 1];
        all[0] = "webhooks";
        System.arraycopy(args, 0, all, 1, args.length);
        return SluiceRuns.start(new CompletableFuture<>(), all).get(60, TimeUnit.SECONDS);
    }
}
