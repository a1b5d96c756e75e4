package io.sluice.runtime;

import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.runtime.cli.SluiceCommand;
import io.sluice.runtime.cli.Streams;

/** The {@code sluice} command (see {@link SluiceCommand}). Exit codes: 0 done, 1 the run failed, 2 the command line is wrong. */
public final class Sluice {

    private Sluice() {
    }

    public static void main(String[] args) {
        // SIGINT and SIGTERM stop a running pipeline gracefully: the JVM waits for it to finish.
        CompletableFuture<Void> stop = new CompletableFuture<>();
        CountDownLatch finished = new CountDownLatch(1);
        AtomicInteger exit = new AtomicInteger();
        // Set when main exits by itself: then the JVM's own exit code stands, and halting would cut
        // off the other shutdown hooks (a flight recording's dump at exit among them).
        AtomicBoolean exiting = new AtomicBoolean();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.complete(null);
            if (exiting.get()) {
                return;
            }
            try {
                if (finished.await(60, TimeUnit.SECONDS)) {
                    // A signal makes the JVM exit with 128 + its number; a pipeline that stopped
                    // cleanly on it exits with the command's own code instead (0), as scripts expect.
                    System.out.flush();
                    System.err.flush();
                    Runtime.getRuntime().halt(exit.get());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "sluice-shutdown"));
        exit.set(run(args, System.out, System.err, stop));
        exiting.set(true);
        finished.countDown();
        System.exit(exit.get());
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, out, err, new CompletableFuture<>());
    }

    /** Runs a command; a running pipeline stops gracefully when {@code stop} completes. */
    public static int run(String[] args, PrintStream out, PrintStream err, Future<?> stop) {
        return SluiceCommand.execute(new Streams(out, err, stop), args);
    }
}
