package io.sluice.sink.webhook;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.sluice.sink.webhook.state.StateDatabase;
import io.sluice.sink.webhook.state.SubscriptionTable;
import io.sluice.sink.webhook.subscription.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the backfills subscriptions wait for to the source. Each pending one is locked in the
 * state database while the source is asked (so two tasks never both ask), and marked requested
 * only after the source took the requests: a crash in between asks again, which sends the rows
 * twice rather than never. Without a way to ask the source (a Connect cluster), the
 * subscription's note and one warning say which {@code INSERT} does it.
 */
final class WebhookBackfills {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookBackfills.class);

    private final StateDatabase state;
    private final SubscriptionTable subscriptions;
    private final BackfillRequests requests;
    /** Subscriptions already told how to ask by hand, so the warning comes once per process. */
    private final Set<String> told = new HashSet<>();

    /** @param requests how to ask the source; null when this sink cannot (a Connect cluster) */
    WebhookBackfills(StateDatabase state, BackfillRequests requests) {
        this.state = state;
        this.subscriptions = new SubscriptionTable(state);
        this.requests = requests;
    }

    /** Called with the subscriptions as read: asks for the pending backfills, if any. */
    void seen(List<Subscription> all) {
        if (all.stream().noneMatch(s -> s.backfill() == Subscription.Backfill.PENDING)) {
            return;
        }
        try (Connection c = state.open("backfills")) {
            c.setAutoCommit(false);
            try {
                for (Subscription s : subscriptions.lockPendingBackfills(c)) {
                    ask(c, s);
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            LOG.warn("Cannot hand the webhook backfills to the source for now ({}); trying again shortly", e.getMessage());
        }
    }

    private void ask(Connection c, Subscription s) throws SQLException {
        if (requests == null) {
            String how = "this sink cannot ask the source itself (on a Kafka Connect cluster it holds no source): on the source, "
                    + "INSERT INTO sluice_signals.requests (pipeline, kind, target, subscription) VALUES ('<pipeline>', 'resync', "
                    + "'<schema.table>', '" + s.name() + "') for each of its tables (docs/webhooks.md, Backfills)";
            if (!how.equals(s.backfillNote())) {
                subscriptions.setBackfill(c, s.name(), Subscription.Backfill.PENDING, how);
            }
            if (told.add(s.name())) {
                LOG.warn("Webhook subscription {} waits for its backfill: {}", s.name(), how);
            }
            return;
        }
        try {
            List<String> tables = requests.request(s.name(), table -> s.spec().wants(table, "read"));
            if (tables.isEmpty()) {
                subscriptions.setBackfill(c, s.name(), Subscription.Backfill.REQUESTED, "the pipeline streams no table it takes");
                LOG.warn("Webhook subscription {} asked for a backfill, but the pipeline streams none of its tables ({})", s.name(),
                        s.spec().options().get("tables"));
            } else {
                subscriptions.setBackfill(c, s.name(), Subscription.Backfill.REQUESTED, String.join(", ", tables));
                LOG.info("Asked the source to re-sync {} for webhook subscription {} alone (its backfill)", tables, s.name());
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            if (io.sluice.schemas.postgres.PgConnect.worthRetrying(e)) {
                LOG.warn("Cannot reach the source to ask for the backfill of webhook subscription {} for now ({}); trying again shortly",
                        s.name(), why);
                return;
            }
            subscriptions.setBackfill(c, s.name(), Subscription.Backfill.FAILED, why + "; ask again with `sluice webhooks backfill "
                    + s.name() + "` once that is mended");
            LOG.error("Cannot ask the source for the backfill of webhook subscription {}: {}", s.name(), why);
        }
    }
}
