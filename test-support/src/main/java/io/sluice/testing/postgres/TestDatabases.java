package io.sluice.testing.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and drops test databases on the shared {@link PostgresServer}. {@link PostgresExtension}
 * uses it for JUnit classes; property tests (jqwik) call it from their own lifecycle hooks.
 */
public final class TestDatabases {

    private static final Logger LOG = LoggerFactory.getLogger(TestDatabases.class);

    private TestDatabases() {
    }

    /** A new, empty database whose name starts with {@code t_<owner>_}. */
    public static TestDatabase create(Class<?> owner) throws SQLException {
        return create(owner, null);
    }

    /** A new, empty database stored in the given tablespace (null: the server's default). */
    public static TestDatabase create(Class<?> owner, String tablespace) throws SQLException {
        return create(PostgresServer.shared(), owner, tablespace);
    }

    /** A new, empty database on another server, such as one of another version ({@link PostgresServer#launch(String, int, String...)}). */
    public static TestDatabase create(PostgresServer server, Class<?> owner) throws SQLException {
        return create(server, owner, null);
    }

    private static TestDatabase create(PostgresServer server, Class<?> owner, String tablespace) throws SQLException {
        String name = databaseName(owner);
        admin(server, "CREATE DATABASE " + name + (tablespace == null ? "" : " TABLESPACE " + tablespace));
        LOG.info("Test database {} on {}", name, server.origin());
        return new TestDatabase(server, name);
    }

    /** The database of this name on another server that has it: a standby's copy of a primary's. */
    public static TestDatabase on(PostgresServer server, String name) {
        return new TestDatabase(server, name);
    }

    /** Drops the database, ending its replication connections and dropping its slots first. */
    public static void drop(TestDatabase db) throws SQLException {
        String slots = "FROM pg_replication_slots WHERE database = '" + db.name() + "'";
        SQLException last = null;
        for (int attempt = 0; attempt < 20; attempt++) {
            try {
                admin(db.server(),
                        "SELECT pg_terminate_backend(active_pid) " + slots + " AND active_pid IS NOT NULL",
                        "SELECT pg_drop_replication_slot(slot_name) " + slots + " AND NOT active",
                        "DROP DATABASE IF EXISTS " + db.name() + " WITH (FORCE)");
                return;
            } catch (SQLException e) {
                // A terminated wal sender can hold its slot for a moment after the signal.
                last = e;
                sleep(250);
            }
        }
        throw last;
    }

    private static String databaseName(Class<?> owner) {
        String base = owner.getSimpleName().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_");
        if (base.length() > 40) {
            base = base.substring(0, 40);
        }
        return "t_" + base + "_" + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 30), 36);
    }

    /** Runs statements on the server's administration database. */
    static void admin(PostgresServer server, String... statements) throws SQLException {
        try (Connection c = server.connect(server.adminDatabase()); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A test on a fresh source and target database of its own, both dropped after it, pass or fail. */
    @FunctionalInterface
    public interface SourceAndTarget {
        void run(TestDatabase source, TestDatabase target) throws Exception;
    }

    public static void withSourceAndTarget(Class<?> owner, SourceAndTarget test) throws Exception {
        withSourceAndTarget(PostgresServer.shared(), PostgresServer.shared(), owner, test);
    }

    /** {@link #withSourceAndTarget(Class, SourceAndTarget)} with the source and the target on servers of their own. */
    public static void withSourceAndTarget(PostgresServer sourceServer, PostgresServer targetServer, Class<?> owner, SourceAndTarget test)
            throws Exception {
        TestDatabase source = create(sourceServer, owner);
        TestDatabase target = create(targetServer, owner);
        try {
            test.run(source, target);
        } finally {
            drop(source);
            drop(target);
        }
    }
}
