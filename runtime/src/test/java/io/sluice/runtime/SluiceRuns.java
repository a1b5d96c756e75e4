package io.sluice.runtime;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.testing.postgres.TestDatabase;

/** The sluice command run in-process by the tests, as a user runs it, and what they wait for. */
final class SluiceRuns {

    record Result(int exit, String out, String err) {
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    private SluiceRuns() {
    }

    /** Starts the command on a thread; it runs until it ends or {@code stop} completes. */
    static CompletableFuture<Result> start(CompletableFuture<Void> stop, String... args) {
        return CompletableFuture.supplyAsync(() -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = Sluice.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                    stop);
            return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        });
    }

    /** Waits up to two minutes for the condition; fails at once, with the command's output, if the command ends first. */
    static void waitFor(Condition condition, CompletableFuture<Result> run, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!condition.holds()) {
            if (run.isDone()) {
                Result r = run.get();
                throw new AssertionError("sluice ended (exit " + r.exit() + ") while waiting for " + what + ":\n" + r.out() + r.err());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    /**
     * Waits until a query on the source and one on the target give the same text (a target table not made yet is no answer);
     * fails with both last answers.
     */
    static void awaitSame(TestDatabase source, String sourceQuery, TestDatabase target, String targetQuery, CompletableFuture<Result> run,
                          String what) throws Exception {
        String[] last = new String[2];
        try {
            waitFor(() -> {
                last[0] = source.queryText(sourceQuery);
                try {
                    last[1] = target.queryText(targetQuery);
                } catch (java.sql.SQLException e) {
                    last[1] = e.getMessage(); // not made yet
                }
                return last[0].equals(last[1]);
            }, run, what);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + " (source " + last[0] + ", target " + last[1] + ")", e);
        }
    }

    /** Stops a running command as Ctrl-C does and checks that it ended cleanly (exit 0); its result. */
    static Result stopCleanly(CompletableFuture<Void> stop, CompletableFuture<Result> run) throws Exception {
        stop.complete(null);
        Result result = run.get(60, TimeUnit.SECONDS);
        if (result.exit() != 0) {
            throw new AssertionError("sluice ended with exit " + result.exit() + " after a stop:\n" + result.out() + result.err());
        }
        return result;
    }

    /** The command with more arguments after it. */
    static String[] with(String[] command, String... more) {
        String[] all = java.util.Arrays.copyOf(command, command.length + more.length);
        System.arraycopy(more, 0, all, command.length, more.length);
        return all;
    }

    /** A port nothing listens on now, for a command's --metrics. */
    static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    /** The database's URL as the command takes it. */
    static String url(TestDatabase db) {
        return "postgres://" + db.user() + ":" + db.password() + "@" + db.host() + ":" + db.port() + "/" + db.name() + "?sslmode=disable";
    }

    /** The URL of a database reached through a proxy. */
    static String url(TestDatabase db, io.sluice.testing.network.TcpProxy proxy) {
        return "postgres://" + db.user() + ":" + db.password() + "@" + proxy.host() + ":" + proxy.port() + "/" + db.name()
                + "?sslmode=disable";
    }
}
