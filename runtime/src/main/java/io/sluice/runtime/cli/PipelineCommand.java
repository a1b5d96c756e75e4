package io.sluice.runtime.cli;

import java.util.List;
import java.util.concurrent.Callable;

import io.sluice.runtime.logging.CommandLogging;
import io.sluice.runtime.metrics.MetricsAddress;
import io.sluice.runtime.metrics.MetricsServer;
import io.sluice.runtime.pipeline.NamedTarget;
import io.sluice.runtime.pipeline.PipelineSpec;
import io.sluice.runtime.progress.PipelinePhase;
import picocli.CommandLine.Mixin;

/**
 * What the pipeline commands share: the pipeline options, where to write, and the exit codes —
 * 0 done, 1 the run failed (the message says why), 2 the command line or the pipeline cannot work
 * as given (the message says what to change).
 */
abstract class PipelineCommand implements Callable<Integer> {

    static final int DONE = 0;
    static final int FAILED = 1;
    static final int WRONG = 2;

    @Mixin
    PipelineOptions options;

    final Streams streams;

    PipelineCommand(Streams streams) {
        this.streams = streams;
    }

    @Override
    public final Integer call() {
        List<NamedTarget> targets;
        try {
            targets = several() ? options.targets() : List.of(new NamedTarget(null, options.spec()));
        } catch (IllegalArgumentException e) {
            streams.err().println("sluice: " + e.getMessage());
            return WRONG;
        }
        return targets.size() == 1 ? run(targets.get(0).spec()) : run(targets);
    }

    abstract int run(PipelineSpec spec);

    /** Whether the command takes several targets ({@link #run(List)}). */
    boolean several() {
        return false;
    }

    /** Runs the command into several targets, when it takes them. */
    int run(List<NamedTarget> targets) {
        throw new IllegalStateException("sluice " + getClass().getSimpleName() + " takes one target");
    }

    /**
     * A failure's message as the command line reads it: the connectors name their keys, and where
     * the command has an option for the key, the option is named too.
     */
    static String forCommandLine(String message) {
        if (message != null && message.contains("table.exists=")) {
            return message + " (on the command line: --table-exists truncate, or --table-exists append)";
        }
        return message;
    }

    /** The line after a failure: what to do, and where the details are. */
    static String afterFailure(String whatIsKept) {
        return "Fix the cause and run the same command again: " + whatIsKept + " (details in " + CommandLogging.logFile() + ").";
    }

    /**
     * Starts serving metrics on {@code --metrics}, or nothing when it is not given.
     *
     * @throws IllegalArgumentException when the address is wrong or cannot be served on, saying which
     */
    static MetricsServer serveMetrics(String address, PipelinePhase phase, PipelineSpec spec) {
        return serveMetrics(address, phase, spec.sourceName(), spec.sink().display());
    }

    /** As {@link #serveMetrics(String, PipelinePhase, PipelineSpec)}, the targets as the status page names them. */
    static MetricsServer serveMetrics(String address, PipelinePhase phase, String pipeline, String targets) {
        if (address == null) {
            return null;
        }
        java.net.InetSocketAddress at = MetricsAddress.parse(address);
        try {
            return MetricsServer.start(at, phase, pipeline, targets);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("--metrics " + address + ": cannot serve on " + at + " (" + e.getMessage()
                    + "); choose another port");
        }
    }

    /** Prints the problems that keep a pipeline from starting; true when there are some. */
    boolean cannotStart(List<String> problems) {
        if (problems.isEmpty()) {
            return false;
        }
        streams.err().println("sluice: the pipeline cannot start:");
        problems.forEach(p -> streams.err().println("  " + p));
        return true;
    }
}
