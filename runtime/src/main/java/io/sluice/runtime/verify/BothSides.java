package io.sluice.runtime.verify;

import java.sql.SQLException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs a query on the source and its twin on the target at once (each server scans its own
 * table; one after the other, a comparison would take the sum of both times instead of the
 * longer). Each side keeps to its own connection, so no connection is used by two threads.
 */
final class BothSides {

    /** A query of one side. */
    @FunctionalInterface
    interface Query<T> {
        T run() throws SQLException;
    }

    /** The two sides' results. */
    record Results<T>(T source, T target) {
    }

    private static final ExecutorService TARGET = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sluice-verify-target");
        t.setDaemon(true);
        return t;
    });

    private BothSides() {
    }

    static <T> Results<T> run(Query<T> source, Query<T> target) throws SQLException {
        Future<T> there = TARGET.submit(target::run);
        T here;
        try {
            here = source.run();
        } catch (SQLException | RuntimeException e) {
            try {
                there.get(); // the target's connection is free again before the error goes up
            } catch (ExecutionException | InterruptedException ignored) {
                // the source's error is the one reported
            }
            throw e;
        }
        try {
            return new Results<>(here, there.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("Interrupted while the target was compared", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        }
    }
}
