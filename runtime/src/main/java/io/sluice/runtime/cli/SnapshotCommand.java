package io.sluice.runtime.cli;

import io.sluice.runtime.metrics.MetricsServer;
import io.sluice.runtime.pipeline.PipelineFailure;
import io.sluice.runtime.pipeline.PipelineSpec;
import io.sluice.runtime.pipeline.SnapshotPipeline;
import io.sluice.runtime.progress.PipelinePhase;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice snapshot}: one consistent copy, then the indexes and constraints. */
@Command(name = "snapshot", sortOptions = false, usageHelpAutoWidth = true,
        description = "Copies once: a consistent snapshot read in parallel, loaded with binary COPY, then indexes and constraints "
                + "built in parallel.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the target holds the snapshot, indexes and constraints included",
                "1:the snapshot failed; fix the cause and run the same command again (finished work is kept)",
                "2:the command line or the pipeline's configuration is wrong"})
public final class SnapshotCommand extends PipelineCommand {

    @Option(names = "--fresh", description = "Forget an earlier run of this pipeline (its offsets and slot) and copy again")
    boolean fresh;

    @Option(names = "--metrics", paramLabel = "[HOST:]PORT", description = "Serve Prometheus metrics, /health and /ready on this "
            + "address (PORT alone: on the loopback interface; 0.0.0.0:PORT for all). Off unless given; see docs/metrics.md")
    String metrics;

    public SnapshotCommand(Streams streams) {
        super(streams);
    }

    @Override
    int run(PipelineSpec spec) {
        PipelinePhase phase = new PipelinePhase();
        SnapshotPipeline pipeline = new SnapshotPipeline(spec, streams.out()).phase(phase);
        if (cannotStart(pipeline.validate())) {
            return WRONG;
        }
        MetricsServer server;
        try {
            server = serveMetrics(metrics, phase, spec);
        } catch (IllegalArgumentException e) {
            streams.err().println("sluice: " + e.getMessage());
            return WRONG;
        }
        try (server) {
            pipeline.run(fresh);
            return DONE;
        } catch (PipelineFailure e) {
            streams.err().println("sluice: the snapshot failed: " + forCommandLine(e.getMessage()));
            streams.err().println(afterFailure("finished work is kept"));
            return FAILED;
        } catch (Exception e) {
            streams.err().println("sluice: the snapshot failed: " + e);
            return FAILED;
        }
    }
}
