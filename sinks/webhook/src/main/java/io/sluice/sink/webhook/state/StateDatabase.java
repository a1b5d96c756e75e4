package io.sluice.sink.webhook.state;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.core.pgstate.OwnTables;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The PostgreSQL database where the webhook sink keeps what must outlive it: subscriptions, the
 * outbox of changes, each subscription's place in it, and the delivery log. Its tables live in
 * one schema the user names ({@code sluice} by default) and are made on first use.
 */
public final class StateDatabase {

    private final PgEndpoint endpoint;
    private final String schema;

    public StateDatabase(PgEndpoint endpoint, String schema) {
        this.endpoint = endpoint;
        this.schema = schema;
    }

    public PgEndpoint endpoint() {
        return endpoint;
    }

    public String schema() {
        return schema;
    }

    /** {@code "schema"."name"}, for SQL. */
    public String table(String name) {
        return Identifiers.quote(schema, name);
    }

    /** A connection in autocommit mode, named after what uses it. */
    public Connection open(String use) {
        return PgConnect.open(endpoint, "sluice webhooks: " + use);
    }

    /** Makes the schema and its tables where they are missing. */
    public void create() {
        String s = Identifiers.quote(schema);
        try (Connection c = open("setup"); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            // One session makes them at a time: tasks starting together would otherwise race on CREATE ... IF NOT EXISTS.
            st.execute("SELECT pg_advisory_xact_lock(hashtext(" + Identifiers.literal("sluice.webhook.setup:" + schema) + "))");
            st.execute("CREATE SCHEMA IF NOT EXISTS " + s);
            st.execute("CREATE SEQUENCE IF NOT EXISTS " + table("webhook_outbox_seq"));
            st.execute("CREATE TABLE IF NOT EXISTS " + table("webhook_outbox") + " ("
                    + "seq bigint PRIMARY KEY, delivery_id text NOT NULL, source text NOT NULL, relation text NOT NULL, operation text NOT NULL, "
                    + "key_hash integer NOT NULL, changed jsonb, lsn bigint NOT NULL, commit_time timestamptz NOT NULL, "
                    + "written_at timestamptz NOT NULL DEFAULT now(), body text NOT NULL, only_for text)");
            // Tables made before backfills lack their columns.
            // Looked for first: ADD COLUMN takes the table's exclusive lock even when the column is there.
            st.execute(OwnTables.columnUnlessThere(table("webhook_outbox"), "only_for", "text"));
            st.execute("CREATE INDEX IF NOT EXISTS webhook_outbox_written_at ON " + table("webhook_outbox") + " (written_at)");
            st.execute("CREATE TABLE IF NOT EXISTS " + table("webhook_subscriptions") + " ("
                    + "name text PRIMARY KEY, spec jsonb NOT NULL, declared text NOT NULL, status text NOT NULL, "
                    + "status_reason text, position bigint NOT NULL, failing_since timestamptz, "
                    + "created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(), "
                    + "backfill text, backfill_note text)");
            st.execute(OwnTables.columnUnlessThere(table("webhook_subscriptions"), "backfill", "text"));
            st.execute(OwnTables.columnUnlessThere(table("webhook_subscriptions"), "backfill_note", "text"));
            st.execute("CREATE TABLE IF NOT EXISTS " + table("webhook_attempts") + " ("
                    + "id bigserial PRIMARY KEY, subscription text NOT NULL, seq bigint NOT NULL, delivery_id text NOT NULL, "
                    + "attempt integer NOT NULL, at timestamptz NOT NULL, status integer, latency_ms integer, outcome text NOT NULL, "
                    + "response text, error text)");
            st.execute("CREATE INDEX IF NOT EXISTS webhook_attempts_by_subscription ON " + table("webhook_attempts")
                    + " (subscription, seq)");
            st.execute("CREATE TABLE IF NOT EXISTS " + table("webhook_failed") + " ("
                    + "subscription text NOT NULL, seq bigint NOT NULL, delivery_id text NOT NULL, failed_at timestamptz NOT NULL, "
                    + "status integer, error text, PRIMARY KEY (subscription, seq))");
            st.execute("CREATE TABLE IF NOT EXISTS " + table("webhook_replays") + " ("
                    + "subscription text NOT NULL, seq bigint NOT NULL, requested_at timestamptz NOT NULL DEFAULT now(), "
                    + "PRIMARY KEY (subscription, seq))");
            st.execute("CREATE TABLE IF NOT EXISTS " + table("webhook_snapshots") + " (source text PRIMARY KEY, database text, "
                    + "started_at timestamptz, finished_at timestamptz, streamed boolean NOT NULL DEFAULT false)");
            st.execute("CREATE TABLE IF NOT EXISTS " + table("webhook_positions") + " (connector text NOT NULL, topic text NOT NULL, "
                    + "kafka_partition integer NOT NULL, commit_lsn bigint NOT NULL, event bigint NOT NULL, "
                    + "PRIMARY KEY (connector, topic, kafka_partition))");
            st.execute("CREATE TABLE IF NOT EXISTS " + table("webhook_kafka_offsets") + " (connector text NOT NULL, topic text NOT NULL, "
                    + "kafka_partition integer NOT NULL, next_offset bigint NOT NULL, PRIMARY KEY (connector, topic, kafka_partition))");
            st.execute("CREATE TABLE IF NOT EXISTS " + table("webhook_heartbeats") + " (source text PRIMARY KEY, "
                    + "committed_at timestamptz NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
            st.execute("CREATE TABLE IF NOT EXISTS " + table("webhook_retention") + " (id integer PRIMARY KEY, removed_through bigint NOT NULL)");
            c.commit();
        } catch (SQLException e) {
            throw new ConnectException("Cannot make the webhook sink's tables in schema " + schema + " of " + endpoint.display()
                    + ": " + e.getMessage() + ". The state user needs CREATE on the database (or the schema made for it beforehand, "
                    + "with CREATE on it)", e);
        }
    }
}
