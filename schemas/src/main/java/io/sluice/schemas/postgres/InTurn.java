package io.sluice.schemas.postgres;

import java.sql.Connection;
import java.sql.SQLException;

import io.sluice.schemas.naming.Identifiers;

/**
 * Catalog work that concurrent sessions must take in turns: two concurrent {@code CREATE ... IF
 * NOT EXISTS} of one object can both miss it, and one then fails on the catalog's unique index.
 * The work runs under a transaction-scoped advisory lock, in the caller's transaction when one is
 * open (the lock is then held until it ends), else in a transaction of its own.
 */
public final class InTurn {

    /** Work done on the connection inside the transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private InTurn() {
    }

    /** The statement that takes the turn named {@code name}: a transaction-scoped advisory lock on its hash. */
    public static String lock(String name) {
        return "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext(" + Identifiers.literal(name) + "))";
    }

    /** Runs the work after taking the turn named {@code name}. */
    public static <T> T run(Connection c, String name, Work<T> work) throws SQLException {
        return inTransaction(c, conn -> {
            try (var s = conn.createStatement()) {
                s.execute(lock(name));
            }
            return work.run(conn);
        });
    }

    /**
     * Runs work that takes its turn itself (its lock in the same round trip as its statements): in
     * the caller's open transaction, else in one of its own, committed, or rolled back on failure.
     */
    public static <T> T inTransaction(Connection c, Work<T> work) throws SQLException {
        boolean own = c.getAutoCommit();
        if (own) {
            c.setAutoCommit(false);
        }
        try {
            T result = work.run(c);
            if (own) {
                c.commit();
            }
            return result;
        } catch (SQLException | RuntimeException e) {
            if (own) {
                c.rollback();
            }
            throw e;
        } finally {
            if (own) {
                c.setAutoCommit(true);
            }
        }
    }
}
