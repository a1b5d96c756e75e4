package io.sluice.runtime;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.runtime.cli.Arguments;
import io.sluice.runtime.pipeline.CannotStart;
import io.sluice.runtime.pipeline.PipelineAdmin;
import io.sluice.runtime.pipeline.PipelineFailure;
import io.sluice.runtime.pipeline.PipelineSpec;
import io.sluice.runtime.pipeline.SnapshotPipeline;
import io.sluice.runtime.pipeline.StreamingPipeline;
import io.sluice.schemas.SluiceVersion;

/** The {@code sluice} command. Exit codes: 0 done, 1 the run failed, 2 the command line is wrong. */
public final class Sluice {

    private Sluice() {
    }

    public static void main(String[] args) {
        // SIGINT and SIGTERM stop a running pipeline gracefully: the JVM waits for it to finish.
        CompletableFuture<Void> stop = new CompletableFuture<>();
        CountDownLatch finished = new CountDownLatch(1);
        AtomicInteger exit = new AtomicInteger();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.complete(null);
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
        finished.countDown();
        System.exit(exit.get());
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, out, err, new CompletableFuture<>());
    }

    /** Runs a command; a running pipeline stops gracefully when {@code stop} completes. */
    public static int run(String[] args, PrintStream out, PrintStream err, Future<?> stop) {
        Arguments arguments;
        try {
            arguments = Arguments.parse(args);
        } catch (Arguments.UsageException e) {
            if (e.getMessage() != null) {
                err.println("sluice: " + e.getMessage());
                err.println();
            }
            (e.getMessage() == null ? out : err).print(Arguments.USAGE);
            return e.getMessage() == null ? 0 : 2;
        }
        if (arguments.command().equals("version")) {
            out.println("sluice " + SluiceVersion.get());
            return 0;
        }
        PipelineSpec spec;
        try {
            spec = spec(arguments);
        } catch (IllegalArgumentException e) {
            err.println("sluice: " + e.getMessage());
            return 2;
        }
        switch (arguments.command()) {
            case "run" -> {
                return stream(spec, arguments, out, err, stop);
            }
            case "init", "status", "teardown" -> {
                return administer(spec, arguments.command(), out, err);
            }
            default -> {
                // the snapshot command, below
            }
        }
        SnapshotPipeline pipeline = new SnapshotPipeline(spec, out);
        if (cannotStart(pipeline.validate(), err)) {
            return 2;
        }
        try {
            pipeline.run(arguments.fresh());
            return 0;
        } catch (PipelineFailure e) {
            err.println("sluice: the snapshot failed: " + e.getMessage());
            err.println("Fix the cause and run the same command again: finished work is kept (details in .sluice/sluice.log).");
            return 1;
        } catch (Exception e) {
            err.println("sluice: the snapshot failed: " + e);
            return 1;
        }
    }

    /** Prints the problems that keep a pipeline from starting; true when there are some. */
    private static boolean cannotStart(List<String> problems, PrintStream err) {
        if (problems.isEmpty()) {
            return false;
        }
        err.println("sluice: the pipeline cannot start:");
        problems.forEach(p -> err.println("  " + p));
        return true;
    }

    private static int stream(PipelineSpec spec, Arguments arguments, PrintStream out, PrintStream err, Future<?> stop) {
        StreamingPipeline pipeline = new StreamingPipeline(spec, out);
        if (cannotStart(pipeline.validate(), err)) {
            return 2;
        }
        try {
            pipeline.run(arguments.fresh(), stop);
            return 0;
        } catch (CannotStart e) {
            err.println("sluice: " + e.getMessage());
            return 1;
        } catch (PipelineFailure e) {
            err.println("sluice: the pipeline stopped: " + e.getMessage());
            err.println("Fix the cause and run the same command again: it goes on from where the target is "
                    + "(details in .sluice/sluice.log).");
            return 1;
        } catch (Exception e) {
            err.println("sluice: the pipeline stopped: " + e);
            return 1;
        }
    }

    private static int administer(PipelineSpec spec, String command, PrintStream out, PrintStream err) {
        PipelineAdmin admin = new PipelineAdmin(spec, out, err);
        try {
            return switch (command) {
                case "init" -> admin.init();
                case "status" -> admin.status();
                default -> admin.teardown();
            };
        } catch (java.sql.SQLException | org.apache.kafka.connect.errors.ConnectException | IllegalStateException e) {
            err.println("sluice " + command + ": " + e.getMessage());
            return 1;
        } catch (Exception e) {
            err.println("sluice " + command + ": " + e);
            return 1;
        }
    }

    static PipelineSpec spec(Arguments a) {
        PipelineSpec base = a.config() != null ? PipelineSpec.fromYaml(a.config()) : null;
        Map<String, String> source = new LinkedHashMap<>(base != null ? base.source() : Map.of());
        Map<String, String> target = new LinkedHashMap<>(base != null ? base.target() : Map.of());
        if (a.source() != null) {
            source.put("url", a.source());
        }
        if (a.target() != null) {
            target.put("url", a.target());
        }
        source.putAll(a.sourceSettings());
        target.putAll(a.targetSettings());
        String name = a.name() != null ? a.name() : base != null ? base.name() : null;
        return PipelineSpec.of(name, source, target, base != null ? base.transforms() : Map.of(),
                a.offsets() != null ? a.offsets() : base != null ? base.offsets() : null);
    }
}
