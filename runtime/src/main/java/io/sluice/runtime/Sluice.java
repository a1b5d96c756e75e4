package io.sluice.runtime;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.runtime.cli.Arguments;
import io.sluice.runtime.pipeline.PipelineSpec;
import io.sluice.runtime.pipeline.SnapshotPipeline;
import io.sluice.schemas.SluiceVersion;

/** The {@code sluice} command. Exit codes: 0 done, 1 the run failed, 2 the command line is wrong. */
public final class Sluice {

    private Sluice() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
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
        SnapshotPipeline pipeline = new SnapshotPipeline(spec, out);
        List<String> problems = pipeline.validate();
        if (!problems.isEmpty()) {
            err.println("sluice: the pipeline cannot start:");
            problems.forEach(p -> err.println("  " + p));
            return 2;
        }
        try {
            SnapshotPipeline.Outcome outcome = pipeline.run(arguments.fresh());
            if (outcome == SnapshotPipeline.Outcome.ALREADY_DONE) {
                out.println("The snapshot of pipeline " + spec.name() + " finished in an earlier run (" + spec.offsets()
                        + "). Use --fresh to copy again.");
            }
            return 0;
        } catch (SnapshotPipeline.PipelineFailure e) {
            err.println("sluice: the snapshot failed: " + e.getMessage());
            err.println("Fix the cause and run the same command again: finished work is kept (details in .sluice/sluice.log).");
            return 1;
        } catch (Exception e) {
            err.println("sluice: the snapshot failed: " + e);
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
