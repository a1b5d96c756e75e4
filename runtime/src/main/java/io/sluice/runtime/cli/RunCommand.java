package io.sluice.runtime.cli;

import java.util.List;

import io.sluice.runtime.metrics.MetricsServer;
import io.sluice.runtime.pipeline.CannotStart;
import io.sluice.runtime.pipeline.NamedTarget;
import io.sluice.runtime.pipeline.PipelineFailure;
import io.sluice.runtime.pipeline.PipelineSpec;
import io.sluice.runtime.pipeline.StreamingPipeline;
import io.sluice.runtime.progress.PipelinePhase;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice run}: a snapshot when the pipeline has none, then every change, until stopped. */
@Command(name = "run", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Keeps a PostgreSQL database in step with another: a consistent snapshot (when the pipeline has none "
                + "yet), then every change, streamed from a replication slot, until stopped (Ctrl-C or SIGTERM; the same command "
                + "goes on later).",
                "The source needs wal_level=logical and a user with the REPLICATION attribute."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:stopped cleanly (a signal), with everything taken on the target",
                "1:the pipeline stopped on a failure; fix the cause and run the same command again",
                "2:the command line or the pipeline's configuration is wrong"})
public final class RunCommand extends PipelineCommand {

    @Option(names = "--fresh", description = "Forget an earlier run of this pipeline (its offsets and slot) and copy again")
    boolean fresh;

    @Option(names = "--metrics", paramLabel = "[HOST:]PORT", description = "Serve Prometheus metrics, /health and /ready on this "
            + "address (PORT alone: on the loopback interface; 0.0.0.0:PORT for all). Off unless given; see docs/metrics.md")
    String metrics;

    public RunCommand(Streams streams) {
        super(streams);
    }

    @Override
    boolean several() {
        return true;
    }

    @Override
    int run(PipelineSpec spec) {
        return run(spec, spec.sink().display(), new StreamingPipeline(spec, streams.out()));
    }

    @Override
    int run(List<NamedTarget> targets) {
        String names = String.join(", ", targets.stream().map(t -> t.name() + " (" + t.spec().sink().display() + ")").toList());
        return run(targets.get(0).spec(), names, new StreamingPipeline(targets, streams.out()));
    }

    private int run(PipelineSpec spec, String targets, StreamingPipeline pipeline) {
        PipelinePhase phase = new PipelinePhase();
        pipeline.phase(phase);
        if (cannotStart(pipeline.validate())) {
            return WRONG;
        }
        MetricsServer server;
        try {
            server = serveMetrics(metrics, phase, spec.sourceName(), targets);
        } catch (IllegalArgumentException e) {
            streams.err().println("sluice: " + e.getMessage());
            return WRONG;
        }
        try (server) {
            pipeline.run(fresh, streams.stop());
            return DONE;
        } catch (CannotStart e) {
            streams.err().println("sluice: " + e.getMessage());
            return FAILED;
        } catch (PipelineFailure e) {
            streams.err().println("sluice: the pipeline stopped: " + forCommandLine(e.getMessage()));
            streams.err().println(afterFailure("it goes on from where the target is"));
            return FAILED;
        } catch (Exception e) {
            streams.err().println("sluice: the pipeline stopped: " + e);
            return FAILED;
        }
    }
}
