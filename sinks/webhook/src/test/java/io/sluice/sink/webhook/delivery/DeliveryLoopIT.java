package io.sluice.sink.webhook.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.webhook.http.AddressGuard;
import io.sluice.sink.webhook.http.WebhookClient;
import io.sluice.sink.webhook.state.OutboxEntry;
import io.sluice.sink.webhook.state.OutboxTable;
import io.sluice.sink.webhook.state.PositionTable;
import io.sluice.sink.webhook.state.StateDatabase;
import io.sluice.sink.webhook.state.SubscriptionTable;
import io.sluice.sink.webhook.subscription.Subscription;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.testing.webhook.TestReceiver;
import io.sluice.testing.webhook.TestReceiver.Received;
import io.sluice.testing.webhook.TestReceiver.Reply;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * One subscription's {@link DeliveryLoop} against a real state database and a real HTTP receiver
 * whose answers are drawn: delivered, failed and tried again (500, a timeout), slow down (429 with
 * {@code Retry-After}, 503), failed for good (400), gone (410); with the loop stopped and started
 * again from its stored place at drawn moments. Invariants:
 * <ul>
 *   <li>in one run of a loop, a key's changes reach the receiver in their order: a request is sent
 *       again as it was until it is settled, and nothing of a key goes before what was sent of it;</li>
 *   <li>the stored place never passes a change that did not get a final answer (delivered in time,
 *       failed for good, gone), so a restart loses nothing;</li>
 *   <li>every attempt the receiver saw is in the delivery log once, each change always under its
 *       own id, every change failed for good is listed as failed;</li>
 *   <li>an active subscription ends with every change settled; a 410 disables it, a change failed
 *       for good pauses it when it says {@code on.failure=pause}.</li>
 * </ul>
 */
class DeliveryLoopIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger TRIES = new AtomicInteger();
    /** The subscription's timeout: a reply later than this is no answer, and the change is sent again. */
    private static final long TIMEOUT_MILLIS = 300;
    /** Answers the receiver gives: 204 and 200 in time; 202 only after the subscription's timeout. */
    private static final int LATE = 202;

    private static TestDatabase database;

    @BeforeContainer
    static void start() throws Exception {
        database = TestDatabases.create(DeliveryLoopIT.class);
    }

    @AfterContainer
    static void stop() throws Exception {
        if (database != null) {
            TestDatabases.drop(database);
        }
    }

    /** How the subscription sends: lanes, changes per request, and what a change failed for good does. */
    record Shape(int inFlight, int batchSize, boolean pauseOnFailure) {
    }

    @Property(tries = 40)
    void aKeysChangesArriveInOrderAndThePlaceNeverPassesAChangeWithoutAFinalAnswer(
            @ForAll("shapes") Shape shape, @ForAll("changes") List<Integer> keys, @ForAll("replies") List<Answer> replies,
            @ForAll("restarts") List<Integer> restartsAfter) throws Exception {
        StateDatabase state = new StateDatabase(PgEndpoint.parse(database.url()), "delivery_" + TRIES.incrementAndGet());
        state.create();
        SubscriptionTable subscriptions = new SubscriptionTable(state);
        try (TestReceiver receiver = new TestReceiver(List.of());
             WebhookClient client = new WebhookClient(AddressGuard.allowing("127.0.0.1/32"), 16, 1_000);
             Connection c = state.open("test")) {
            receiver.answering(n -> n <= replies.size() ? replies.get(n - 1).reply : Reply.ok());
            subscriptions.create(c, spec(shape, receiver.url()), "api");
            List<String> ids = append(state, c, keys);
            long last = keys.size();

            List<Integer> runEnds = new ArrayList<>(); // how many requests the receiver had when each run ended
            for (int after : restartsAfter) {
                Subscription now = subscriptions.get(c, "s").orElseThrow();
                if (now.status() != Subscription.Status.ACTIVE) {
                    break; // paused or disabled: no process starts its loop
                }
                Run run = Run.start(now, state, client);
                awaitUntil(() -> receiver.received().size() >= after || !run.thread().isAlive() || run.loop().position() >= last,
                        "request " + after + " or the end");
                run.stop();
                runEnds.add(receiver.received().size());
                assertPlaceOnlyPastFinalAnswers(subscriptions.get(c, "s").orElseThrow().position(), receiver.received(), ids);
            }
            Subscription now = subscriptions.get(c, "s").orElseThrow();
            if (now.status() == Subscription.Status.ACTIVE) {
                Run run = Run.start(now, state, client);
                awaitUntil(() -> !run.thread().isAlive() || run.loop().position() >= last, "every change settled");
                run.stop();
            }
            List<Received> received = receiver.received();
            runEnds.add(received.size());

            Subscription end = subscriptions.get(c, "s").orElseThrow();
            assertPlaceOnlyPastFinalAnswers(end.position(), received, ids);
            assertInOrderPerKeyInEachRun(received, runEnds, ids, keys);
            assertEveryAttemptLoggedOnceUnderItsId(state, c, received, ids);
            boolean gone = received.stream().anyMatch(r -> r.answered() == 410);
            boolean failedForGood = received.stream().anyMatch(r -> r.answered() == 400);
            if (gone) {
                assertThat(end.status()).as("a 410 disables it").isEqualTo(Subscription.Status.DISABLED);
            } else if (failedForGood && shape.pauseOnFailure()) {
                assertThat(end.status()).as("a change failed for good pauses it").isEqualTo(Subscription.Status.PAUSED);
            } else {
                assertThat(end.status()).isEqualTo(Subscription.Status.ACTIVE);
                assertThat(end.position()).as("every change settled").isEqualTo(last);
            }
        }
    }

    @Provide
    Arbitrary<Shape> shapes() {
        return Combinators.combine(Arbitraries.integers().between(1, 4), Arbitraries.of(1, 3), Arbitraries.of(false, true))
                .as(Shape::new);
    }

    /** The key of each change, in the outbox's order. */
    @Provide
    Arbitrary<List<Integer>> changes() {
        return Arbitraries.integers().between(0, 4).list().ofMinSize(1).ofMaxSize(40);
    }

    /** What the receiver answers to a request. */
    enum Answer {
        OK(new Reply(204, null, 0)), OK_200(new Reply(200, null, 0)), ERROR(new Reply(500, null, 0)), SLOW_DOWN(new Reply(429, "0", 0)),
        UNAVAILABLE(new Reply(503, null, 0)), TOO_LATE(new Reply(LATE, null, 2 * TIMEOUT_MILLIS)), BAD_REQUEST(new Reply(400, null, 0)),
        GONE(new Reply(410, null, 0));

        final Reply reply;

        Answer(Reply reply) {
            this.reply = reply;
        }
    }

    /** The answers to the first requests, in order; later ones are 204. A 410 is drawn rarely: it ends the subscription. */
    @Provide
    Arbitrary<List<Answer>> replies() {
        return Arbitraries.frequency(Tuple.of(600, Answer.OK), Tuple.of(60, Answer.OK_200), Tuple.of(180, Answer.ERROR),
                Tuple.of(60, Answer.SLOW_DOWN), Tuple.of(60, Answer.UNAVAILABLE), Tuple.of(60, Answer.TOO_LATE),
                Tuple.of(60, Answer.BAD_REQUEST), Tuple.of(15, Answer.GONE)).list().ofMaxSize(60);
    }

    /** After how many requests (of all runs) each restart comes. */
    @Provide
    Arbitrary<List<Integer>> restarts() {
        return Arbitraries.integers().between(0, 30).list().ofMaxSize(3).map(l -> l.stream().sorted().toList());
    }

    private static SubscriptionSpec spec(Shape shape, String url) {
        Map<String, String> options = Map.of("url", url, "max.in.flight", Integer.toString(shape.inFlight()),
                "batch.max.size", Integer.toString(shape.batchSize()), "timeout.ms", Long.toString(TIMEOUT_MILLIS),
                "retry.initial.ms", "5", "retry.max.ms", "40", "on.failure", shape.pauseOnFailure() ? "pause" : "continue");
        List<String> errors = new ArrayList<>();
        SubscriptionSpec spec = SubscriptionSpec.parse("s", options::get, "subscription.s.", errors);
        assertThat(errors).isEmpty();
        return spec;
    }

    /** Appends change {@code i} (numbered from 1, its outbox row) of key {@code keys[i-1]}; returns the delivery ids by change. */
    private static List<String> append(StateDatabase state, Connection c, List<Integer> keys) throws Exception {
        List<OutboxEntry> entries = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        ids.add(null);
        for (int i = 1; i <= keys.size(); i++) {
            String id = "msg_change_" + i;
            ids.add(id);
            String body = "{\"id\":\"" + id + "\",\"operation\":\"update\",\"schema\":\"app\",\"table\":\"k\",\"key\":{\"id\":" + keys.get(i - 1)
                    + "},\"after\":{\"id\":" + keys.get(i - 1) + ",\"n\":" + i + "},\"source\":{\"name\":\"src\"}}";
            entries.add(new OutboxEntry(id, "src", "app.k", "update", keys.get(i - 1), null, 1_000L + i, 1_700_000_000_000L + i,
                    body.getBytes(StandardCharsets.UTF_8)));
        }
        long lastRow = new OutboxTable(state).append(c, entries, new PositionTable(state, "test"), Map.of(), Map.of());
        assertThat(lastRow).isEqualTo(keys.size());
        return ids;
    }

    /** A loop on a thread of its own. */
    private record Run(DeliveryLoop loop, Thread thread) {

        static Run start(Subscription subscription, StateDatabase state, WebhookClient client) {
            DeliveryLoop loop = new DeliveryLoop(subscription, state, client, System::currentTimeMillis, "delivery-loop-it");
            Thread thread = new Thread(loop, "delivery-loop-it");
            thread.start(); // it polls the outbox at once
            return new Run(loop, thread);
        }

        void stop() throws InterruptedException {
            loop.stop();
            thread.join(30_000);
            assertThat(thread.isAlive()).as("the loop stopped").isFalse();
        }
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    /** Waits for a condition the loop brings about; a minute without it is a hang, not a slow machine. */
    private static void awaitUntil(Condition condition, String what) throws Exception {
        long until = System.currentTimeMillis() + 60_000;
        while (!condition.holds()) {
            assertThat(System.currentTimeMillis()).as(what + " within a minute").isLessThan(until);
            Thread.sleep(2);
        }
    }

    /** The changes (by number) a request carried: one change's body, or an array of them. */
    private static List<Integer> changesOf(Received r) {
        JsonNode body = r.json();
        List<Integer> changes = new ArrayList<>();
        for (JsonNode change : body.isArray() ? body : List.of(body)) {
            changes.add(change.path("after").path("n").asInt());
        }
        return changes;
    }

    /** Whether the loop heard this answer as final: delivered in time, failed for good, or gone. */
    private static boolean finalAnswer(Received r) {
        return r.answered() == 200 || r.answered() == 204 || r.answered() == 400 || r.answered() == 410;
    }

    private static void assertPlaceOnlyPastFinalAnswers(long place, List<Received> received, List<String> ids) {
        Set<Integer> answered = new HashSet<>();
        for (Received r : received) {
            if (finalAnswer(r)) {
                answered.addAll(changesOf(r));
            }
        }
        for (int change = 1; change <= place; change++) {
            assertThat(answered).as("the place is %d: change %d (%s) got a final answer", place, change, ids.get(change)).contains(change);
        }
    }

    /**
     * In each run, the requests that carry a key's changes: each either sends again exactly what
     * the one before sent of that key (a retry), or only changes later than all of those.
     */
    private static void assertInOrderPerKeyInEachRun(List<Received> received, List<Integer> runEnds, List<String> ids, List<Integer> keys) {
        int from = 0;
        for (int end : runEnds) {
            Map<Integer, List<Integer>> previous = new HashMap<>();
            for (Received r : received.subList(from, end)) {
                Map<Integer, List<Integer>> byKey = new HashMap<>();
                for (int change : changesOf(r)) {
                    byKey.computeIfAbsent(keys.get(change - 1), k -> new ArrayList<>()).add(change);
                }
                byKey.forEach((key, changes) -> {
                    assertThat(changes).as("key %d in one request", key).isSorted();
                    List<Integer> before = previous.get(key);
                    if (before != null && !before.equals(changes)) {
                        assertThat(changes.get(0)).as("key %d: change %d (%s) sent after %s in one run", key, changes.get(0),
                                ids.get(changes.get(0)), before).isGreaterThan(before.get(before.size() - 1));
                    }
                    previous.put(key, changes);
                });
            }
            from = end;
        }
    }

    private static void assertEveryAttemptLoggedOnceUnderItsId(StateDatabase state, Connection c, List<Received> received, List<String> ids)
            throws Exception {
        Map<Integer, Integer> sent = new HashMap<>();
        Set<Integer> settledByFailure = new HashSet<>();
        Set<Integer> delivered = new HashSet<>();
        for (Received r : received) {
            List<Integer> changes = changesOf(r);
            if (changes.size() == 1 && !r.json().isArray()) {
                assertThat(r.id()).as("the webhook-id of change " + changes.get(0)).isEqualTo(ids.get(changes.get(0)));
            } else {
                for (JsonNode change : r.json()) {
                    assertThat(change.path("id").asText()).isEqualTo(ids.get(change.path("after").path("n").asInt()));
                }
            }
            for (int change : changes) {
                sent.merge(change, 1, Integer::sum);
                if (r.answered() == 400 || r.answered() == 410) {
                    settledByFailure.add(change);
                } else if (r.answered() == 200 || r.answered() == 204) {
                    delivered.add(change);
                }
            }
        }
        Map<Integer, Integer> logged = new HashMap<>();
        Set<Integer> listedFailed = new HashSet<>();
        try (Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT seq, count(*) FROM " + state.table("webhook_attempts") + " GROUP BY seq")) {
                while (rs.next()) {
                    logged.put((int) rs.getLong(1), rs.getInt(2));
                }
            }
            try (ResultSet rs = st.executeQuery("SELECT seq FROM " + state.table("webhook_failed"))) {
                while (rs.next()) {
                    listedFailed.add((int) rs.getLong(1));
                }
            }
        }
        assertThat(logged).as("attempts in the delivery log, by change").isEqualTo(sent);
        settledByFailure.removeAll(delivered);
        assertThat(listedFailed).as("changes failed for good").containsAll(settledByFailure);
    }
}
