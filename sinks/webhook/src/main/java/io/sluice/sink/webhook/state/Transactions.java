package io.sluice.sink.webhook.state;

import java.sql.Connection;
import java.sql.SQLException;

/** Runs work in one transaction on a connection in autocommit mode, and leaves it in autocommit mode. */
final class Transactions {

    @FunctionalInterface
    interface Work<T> {
        T run() throws SQLException;
    }

    private Transactions() {
    }

    /** Commits what the work did, or rolls it back when it throws. */
    static <T> T run(Connection c, Work<T> work) throws SQLException {
        c.setAutoCommit(false);
        try {
            T result = work.run();
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            try {
                c.setAutoCommit(true);
            } catch (SQLException ignored) {
                // the connection is broken; the caller opens another
            }
        }
    }
}
