package io.sluice.testing.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives each test class a fresh database on the shared {@link PostgresServer}, injected as a
 * {@link TestDatabase} parameter, and drops it (with its replication slots) after the class.
 * <pre>{@code
 * @ExtendWith(PostgresExtension.class)
 * class SnapshotIT {
 *     @Test void copies(TestDatabase db) { ... }
 * }
 * }</pre>
 */
public final class PostgresExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresExtension.class);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(PostgresExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) throws SQLException {
        PostgresServer server = PostgresServer.shared();
        String name = databaseName(context.getRequiredTestClass());
        admin(server, "CREATE DATABASE " + name);
        LOG.info("Test database {} on {}", name, server.origin());
        context.getStore(NAMESPACE).put(TestDatabase.class, new TestDatabase(server, name));
    }

    @Override
    public void afterAll(ExtensionContext context) throws SQLException {
        TestDatabase db = context.getStore(NAMESPACE).remove(TestDatabase.class, TestDatabase.class);
        if (db != null) {
            drop(db);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestDatabase.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        TestDatabase db = context.getStore(NAMESPACE).get(TestDatabase.class, TestDatabase.class);
        if (db == null) {
            throw new ParameterResolutionException("No test database: register PostgresExtension on the test class");
        }
        return db;
    }

    private static String databaseName(Class<?> testClass) {
        String base = testClass.getSimpleName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_");
        if (base.length() > 40) {
            base = base.substring(0, 40);
        }
        return "t_" + base + "_" + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 30), 36);
    }

    private static void drop(TestDatabase db) throws SQLException {
        // Slots pin a database: end their wal senders and drop them, or DROP DATABASE fails.
        admin(db.server(),
                "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE database = '" + db.name() + "' AND active_pid IS NOT NULL",
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = '" + db.name() + "'",
                "DROP DATABASE IF EXISTS " + db.name() + " WITH (FORCE)");
    }

    private static void admin(PostgresServer server, String... statements) throws SQLException {
        try (Connection c = server.connect(server.adminDatabase()); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
