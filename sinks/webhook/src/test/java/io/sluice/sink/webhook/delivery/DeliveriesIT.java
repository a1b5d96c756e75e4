package io.sluice.sink.webhook.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

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
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * {@link Deliveries} of several processes (tasks, {@code sluice} commands) on one state database,
 * each holding the subscriptions it claimed: processes start and stop, the state database drops
 * every claims session at once, subscriptions are paused and resumed, changes keep coming.
 * Invariants: once things are quiet, each active subscription is delivered by exactly one process
 * and a paused one by none; every change reaches every subscription; a key's changes are first
 * accepted in their order, whichever process sent them.
 */
class DeliveriesIT {

    private static final AtomicInteger TRIES = new AtomicInteger();
    private static final int SUBSCRIPTIONS = 3;
    private static final int KEYS = 4;

    private static TestDatabase database;

    @BeforeContainer
    static void start() throws Exception {
        database = TestDatabases.create(DeliveriesIT.class);
    }

    @AfterContainer
    static void stop() throws Exception {
        if (database != null) {
            TestDatabases.drop(database);
        }
    }

    enum Kind { START, CLOSE, DROP_CLAIMS, APPEND, PAUSE, RESUME }

    /** A step; {@code n} picks the process, the subscription or how many changes, as the kind needs. */
    record Step(Kind kind, int n) {
    }

    @Property(tries = 12)
    void eachActiveSubscriptionIsDeliveredByOneProcessAndGetsEveryChangeInOrderPerKey(@ForAll("steps") List<Step> steps)
            throws Exception {
        StateDatabase state = new StateDatabase(PgEndpoint.parse(database.url()), "deliveries_" + TRIES.incrementAndGet());
        state.create();
        SubscriptionTable subscriptions = new SubscriptionTable(state);
        List<TestReceiver> receivers = new ArrayList<>();
        List<Deliveries> processes = new ArrayList<>();
        try (WebhookClient client = new WebhookClient(AddressGuard.allowing("127.0.0.1/32"), 32, 1_000);
             Connection c = state.open("test")) {
            for (int s = 0; s < SUBSCRIPTIONS; s++) {
                TestReceiver receiver = new TestReceiver(List.of());
                receiver.answering(n -> n % 7 == 3 ? new Reply(500, null, 0) : Reply.ok());
                receivers.add(receiver);
                subscriptions.create(c, spec("s" + s, receiver.url()), "api");
            }
            List<Integer> keys = new ArrayList<>(); // the key of change n at index n - 1
            for (Step step : steps) {
                switch (step.kind()) {
                    case START -> {
                        Deliveries process = new Deliveries(state, client, new Deliveries.Retention(86_400_000L, 86_400_000L, 86_400_000L),
                                System::currentTimeMillis, "deliveries-it");
                        process.start();
                        processes.add(process);
                    }
                    case CLOSE -> {
                        if (!processes.isEmpty()) {
                            processes.remove(step.n() % processes.size()).close();
                        }
                    }
                    case DROP_CLAIMS -> {
                        try (Statement st = c.createStatement()) {
                            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                                    + "AND application_name = 'sluice webhooks: delivery claims'");
                        }
                    }
                    case APPEND -> append(state, c, keys, step.n());
                    case PAUSE, RESUME -> {
                        subscriptions.setStatus(c, "s" + step.n() % SUBSCRIPTIONS,
                                step.kind() == Kind.PAUSE ? Subscription.Status.PAUSED : Subscription.Status.ACTIVE, "by the test");
                        processes.forEach(Deliveries::refresh);
                    }
                }
            }
            // Quiet from here: one process at least, every subscription active.
            if (processes.isEmpty()) {
                Deliveries process = new Deliveries(state, client, new Deliveries.Retention(86_400_000L, 86_400_000L, 86_400_000L),
                        System::currentTimeMillis, "deliveries-it");
                process.start();
                processes.add(process);
            }
            for (int s = 0; s < SUBSCRIPTIONS; s++) {
                subscriptions.setStatus(c, "s" + s, Subscription.Status.ACTIVE, null);
            }
            processes.forEach(Deliveries::refresh);
            long last = keys.size();
            long until = System.currentTimeMillis() + 60_000;
            while (!settled(subscriptions, c, last) || !eachHeldOnce(processes)) {
                assertThat(System.currentTimeMillis()).as("every subscription settled and held by one process within a minute; held: "
                        + held(processes)).isLessThan(until);
                Thread.sleep(10);
            }
            for (int s = 0; s < SUBSCRIPTIONS; s++) {
                assertEveryChangeFirstAcceptedInOrderPerKey("s" + s, receivers.get(s).accepted(), keys);
            }
        } finally {
            processes.forEach(Deliveries::close);
            receivers.forEach(TestReceiver::close);
        }
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(new Step(Kind.START, 0))),
                Tuple.of(2, Arbitraries.integers().between(0, 2).map(n -> new Step(Kind.CLOSE, n))),
                Tuple.of(1, Arbitraries.just(new Step(Kind.DROP_CLAIMS, 0))),
                Tuple.of(4, Arbitraries.integers().between(1, 30).map(n -> new Step(Kind.APPEND, n))),
                Tuple.of(1, Arbitraries.integers().between(0, SUBSCRIPTIONS - 1).map(n -> new Step(Kind.PAUSE, n))),
                Tuple.of(1, Arbitraries.integers().between(0, SUBSCRIPTIONS - 1).map(n -> new Step(Kind.RESUME, n))));
        return step.list().ofMinSize(1).ofMaxSize(14);
    }

    private static SubscriptionSpec spec(String name, String url) {
        Map<String, String> options = Map.of("url", url, "max.in.flight", "2", "timeout.ms", "1000", "retry.initial.ms", "5",
                "retry.max.ms", "40");
        List<String> errors = new ArrayList<>();
        SubscriptionSpec spec = SubscriptionSpec.parse(name, options::get, "subscription." + name + ".", errors);
        assertThat(errors).isEmpty();
        return spec;
    }

    /** Appends {@code count} changes after those in {@code keys}, each of a key drawn in turn. */
    private static void append(StateDatabase state, Connection c, List<Integer> keys, int count) throws Exception {
        List<OutboxEntry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int n = keys.size() + 1;
            int key = (n * 7 + n / 3) % KEYS;
            keys.add(key);
            String body = "{\"id\":\"msg_" + n + "\",\"operation\":\"update\",\"schema\":\"app\",\"table\":\"k\",\"key\":{\"id\":" + key
                    + "},\"after\":{\"id\":" + key + ",\"n\":" + n + "},\"source\":{\"name\":\"src\"}}";
            entries.add(new OutboxEntry("msg_" + n, "src", "app.k", "update", key, null, 1_000L + n, 1_700_000_000_000L + n,
                    body.getBytes(StandardCharsets.UTF_8)));
        }
        new OutboxTable(state).append(c, entries, new PositionTable(state, "test"), Map.of(), Map.of());
    }

    private static boolean settled(SubscriptionTable subscriptions, Connection c, long last) throws Exception {
        for (Subscription s : subscriptions.all(c)) {
            if (s.position() < last) {
                return false;
            }
        }
        return true;
    }

    /** Which processes run a loop for each subscription. */
    private static Map<String, List<Integer>> held(List<Deliveries> processes) {
        Map<String, List<Integer>> held = new HashMap<>();
        for (int p = 0; p < processes.size(); p++) {
            for (String name : processes.get(p).loops().keySet()) {
                held.computeIfAbsent(name, n -> new ArrayList<>()).add(p);
            }
        }
        return held;
    }

    private static boolean eachHeldOnce(List<Deliveries> processes) {
        Map<String, List<Integer>> held = held(processes);
        for (int s = 0; s < SUBSCRIPTIONS; s++) {
            if (held.getOrDefault("s" + s, List.of()).size() != 1) {
                return false;
            }
        }
        return held.size() == SUBSCRIPTIONS;
    }

    private static void assertEveryChangeFirstAcceptedInOrderPerKey(String subscription, List<Received> accepted, List<Integer> keys) {
        Set<Integer> firsts = new LinkedHashSet<>();
        for (Received r : accepted) {
            firsts.add(r.json().path("after").path("n").asInt());
        }
        assertThat(firsts).as(subscription + ": every change accepted").hasSize(keys.size());
        Map<Integer, Integer> newest = new HashMap<>();
        for (int change : firsts) {
            int key = keys.get(change - 1);
            Integer before = newest.put(key, change);
            assertThat(before == null || before < change).as("%s, key %d: change %d first accepted after change %d", subscription, key,
                    change, before).isTrue();
        }
    }
}
