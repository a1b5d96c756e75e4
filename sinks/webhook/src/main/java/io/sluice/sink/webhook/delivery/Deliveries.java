package io.sluice.sink.webhook.delivery;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.retry.RetryPolicy;
import io.sluice.sink.webhook.http.WebhookClient;
import io.sluice.sink.webhook.metrics.SubscriptionMeters;
import io.sluice.sink.webhook.state.OutboxRetention;
import io.sluice.sink.webhook.state.OutboxTable;
import io.sluice.sink.webhook.state.StateDatabase;
import io.sluice.sink.webhook.state.SubscriptionTable;
import io.sluice.sink.webhook.subscription.Subscription;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the delivery loops of the subscriptions this process holds. Each active subscription is
 * delivered by exactly one process at a time: the one whose session holds the subscription's
 * advisory lock in the state database. Every task of the sink (and every {@code sluice}
 * process on the same state database) tries to take the subscriptions nobody holds, so
 * deliveries go on when a worker dies, and the lock goes with the dead session. The outbox's
 * notifications (and this process's own writes) wake the loops at once; a poll each second
 * catches what a lost notification would miss.
 */
public final class Deliveries implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Deliveries.class);

    /** Pauses while the state database fails: the same backoff as every loop waiting for a database (no timeout: it waits). */
    static final RetryPolicy STATE_DATABASE_RETRY = RetryPolicy.reconnecting(0);
    static final long REFRESH_MILLIS = 2_000;

    private record Running(DeliveryLoop loop, Thread thread, java.time.Instant updatedAt) {
    }

    /** How long the outbox and the log keep what they hold ({@link OutboxRetention}). */
    public record Retention(long retentionMillis, long maxAgeMillis, long logRetentionMillis) {
    }

    static final long CLEAN_MILLIS = 60_000;

    private final StateDatabase state;
    private final WebhookClient client;
    private final SubscriptionTable subscriptions;
    private final LongSupplier clock;
    private final Retention retention;
    private final OutboxRetention cleaner;
    private long lastClean;
    private final Map<String, Running> running = new HashMap<>();
    private final Thread thread;
    private final Object wake = new Object();
    private volatile boolean stopping;
    private volatile boolean refreshNow;
    private Connection claims;
    private final String target;
    /** The subscriptions whose state the metrics show. */
    private final java.util.Set<String> shown = new java.util.HashSet<>();

    /** @param target the target label of the subscriptions' metrics */
    public Deliveries(StateDatabase state, WebhookClient client, Retention retention, LongSupplier clock, String target) {
        this.target = target;
        this.retention = retention;
        this.cleaner = new OutboxRetention(state);
        this.state = state;
        this.client = client;
        this.subscriptions = new SubscriptionTable(state);
        this.clock = clock;
        this.thread = new Thread(this::loop, "sluice-webhook-deliveries");
        thread.setDaemon(true);
    }

    /** Told the subscriptions each time they are read (every {@value #REFRESH_MILLIS} ms or so), on the deliveries' thread. */
    private java.util.function.Consumer<List<Subscription>> watcher = all -> {
    };

    /** Someone to tell the subscriptions each time they are read (before {@link #start}): the backfills. */
    public void watch(java.util.function.Consumer<List<Subscription>> watcher) {
        this.watcher = watcher;
    }

    public void start() {
        thread.start();
    }

    /** Rows up to this number are in the outbox (this process wrote them): the loops read them now. */
    public void appended(long last) {
        synchronized (running) {
            for (Running r : running.values()) {
                r.loop().appended(last);
            }
        }
    }

    /** The subscriptions changed (through the API): they are read again now. */
    public void refresh() {
        refreshNow = true;
        synchronized (wake) {
            wake.notifyAll();
        }
    }

    /** The delivery loops running here, by subscription name. */
    public Map<String, DeliveryLoop> loops() {
        synchronized (running) {
            Map<String, DeliveryLoop> loops = new HashMap<>();
            running.forEach((name, r) -> loops.put(name, r.loop()));
            return loops;
        }
    }

    private void loop() {
        int failures = 0;
        long lastRefresh = 0;
        while (!stopping) {
            try {
                if (claims == null) {
                    claims = state.open("delivery claims");
                    try (Statement st = claims.createStatement()) {
                        st.execute("LISTEN " + Identifiers.quote(OutboxTable.channel(state)));
                    }
                    lastRefresh = 0;
                }
                long now = clock.getAsLong();
                if (refreshNow || now - lastRefresh >= REFRESH_MILLIS) {
                    refreshNow = false;
                    List<Subscription> all = subscriptions.all(claims);
                    reconcile(all);
                    watcher.accept(all);
                    lastRefresh = now;
                }
                if (now - lastClean >= CLEAN_MILLIS) {
                    lastClean = now;
                    clean();
                }
                PGNotification[] notes = claims.unwrap(PGConnection.class).getNotifications(200);
                if (notes != null) {
                    long last = 0;
                    for (PGNotification n : notes) {
                        try {
                            last = Math.max(last, Long.parseLong(n.getParameter()));
                        } catch (NumberFormatException ignored) {
                            // not ours
                        }
                    }
                    if (last > 0) {
                        appended(last);
                    }
                }
                failures = 0;
            } catch (SQLException | RuntimeException e) {
                if (stopping) {
                    break;
                }
                long pause = STATE_DATABASE_RETRY.pause(++failures);
                LOG.warn("Webhook deliveries: the state database at {} failed ({}); trying again in {} ms. Subscriptions held here "
                        + "go on; their claims are taken again", state.endpoint().display(), e.getMessage(), pause);
                stopAll(); // the claims went with the session: another process may take the subscriptions now
                closeClaims();
                sleep(pause);
            }
        }
        stopAll();
        closeClaims();
    }

    private void clean() throws SQLException {
        OutboxRetention.Removed removed = cleaner.clean(claims, retention.retentionMillis(), retention.maxAgeMillis(),
                retention.logRetentionMillis());
        if (!removed.missedBy().isEmpty()) {
            LOG.warn("Removed changes older than outbox.max.age.ms ({} ms) from the webhook outbox that subscription(s) {} had not got: "
                    + "they were paused or failing for that long. Those changes are lost to them", retention.maxAgeMillis(),
                    String.join(", ", removed.missedBy()));
        }
        if (removed.changes() > 0 || removed.attempts() > 0) {
            LOG.info("Webhook outbox retention: removed {} change(s) and {} logged attempt(s)", removed.changes(), removed.attempts());
        }
    }

    /** Starts the loops of active subscriptions nobody holds, and stops those that changed, paused or went. */
    private void reconcile(List<Subscription> all) throws SQLException {
        Map<String, Subscription> byName = new HashMap<>();
        for (Subscription s : all) {
            byName.put(s.name(), s);
        }
        showStates(byName);
        synchronized (running) {
            for (Map.Entry<String, Running> e : Map.copyOf(running).entrySet()) {
                Subscription s = byName.get(e.getKey());
                Running r = e.getValue();
                boolean ended = !r.thread().isAlive();
                boolean changed = s == null || s.status() != Subscription.Status.ACTIVE || !s.updatedAt().equals(r.updatedAt());
                if (ended || changed) {
                    r.loop().stop();
                    join(r.thread());
                    running.remove(e.getKey());
                    unlock(e.getKey());
                }
            }
            for (Subscription s : all) {
                if (s.status() != Subscription.Status.ACTIVE || running.containsKey(s.name())) {
                    continue;
                }
                if (!tryLock(s.name())) {
                    continue; // another process delivers it
                }
                // Read again now that it is ours: the process that held it may have moved its place since the list was read.
                Subscription fresh = subscriptions.get(claims, s.name()).orElse(null);
                if (fresh == null || fresh.status() != Subscription.Status.ACTIVE) {
                    unlock(s.name());
                    continue;
                }
                DeliveryLoop loop = new DeliveryLoop(fresh, state, client, clock, target);
                Thread t = new Thread(loop, "sluice-webhook-" + s.name());
                t.setDaemon(true);
                running.put(s.name(), new Running(loop, t, fresh.updatedAt()));
                t.start();
            }
        }
    }

    /** Shows every subscription's state as the state database has it; the series of those gone are removed. */
    private void showStates(Map<String, Subscription> byName) {
        for (String gone : java.util.Set.copyOf(shown)) {
            if (!byName.containsKey(gone)) {
                SubscriptionMeters.forget(target, gone);
                shown.remove(gone);
            }
        }
        byName.forEach((name, s) -> {
            SubscriptionMeters.state(target, name, s.status());
            shown.add(name);
        });
    }

    private boolean tryLock(String name) throws SQLException {
        try (PreparedStatement st = claims.prepareStatement("SELECT pg_try_advisory_lock(hashtext(?))")) {
            st.setString(1, lockName(name));
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private void unlock(String name) throws SQLException {
        try (PreparedStatement st = claims.prepareStatement("SELECT pg_advisory_unlock(hashtext(?))")) {
            st.setString(1, lockName(name));
            st.execute();
        }
    }

    private String lockName(String subscription) {
        return "sluice.webhook.subscription:" + state.schema() + ":" + subscription;
    }

    private void stopAll() {
        synchronized (running) {
            running.values().forEach(r -> r.loop().stop());
            running.values().forEach(r -> join(r.thread()));
            running.clear();
        }
    }

    private static void join(Thread t) {
        try {
            t.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void sleep(long millis) {
        synchronized (wake) {
            try {
                wake.wait(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stopping = true;
            }
        }
    }

    private void closeClaims() {
        PgConnect.closeQuietly(claims);
        claims = null;
    }

    @Override
    public void close() {
        stopping = true;
        refresh();
        try {
            thread.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
