package io.sluice.sink.postgres.connections;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.sluice.schemas.postgres.PgEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets {@code session_replication_role = replica} on the sink's connections, so triggers and
 * foreign-key checks do not fire for rows the source already checked. A user who may not set it
 * is told once per target and user in the JVM (a worker runs many tasks, each with loading and
 * applying connections), and the sink goes on with them active.
 */
public final class ReplicaRole implements Consumer<Connection> {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaRole.class);

    /** Who has been told already, as user@target: said once per JVM, however many tasks and connections refuse. */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private final PgEndpoint endpoint;
    private final boolean enabled;
    private final AtomicBoolean refused = new AtomicBoolean();

    public ReplicaRole(PgEndpoint endpoint, boolean enabled) {
        this.endpoint = endpoint;
        this.enabled = enabled;
    }

    @Override
    public void accept(Connection c) {
        if (!enabled || refused.get()) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("SET session_replication_role = replica");
        } catch (SQLException e) {
            if (refused.compareAndSet(false, true) && WARNED.add(endpoint.user() + "@" + endpoint.display())) {
                LOG.warn("User {} may not set session_replication_role ({}); writing with triggers and foreign-key checks "
                        + "active. Grant it (GRANT SET ON PARAMETER session_replication_role TO {}) or connect as a superuser "
                        + "for faster writes that do not depend on table order.", endpoint.user(), e.getMessage(), endpoint.user());
            }
        }
    }
}
