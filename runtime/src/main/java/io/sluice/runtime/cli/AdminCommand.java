package io.sluice.runtime.cli;

import java.util.List;

import io.sluice.runtime.pipeline.NamedTarget;
import io.sluice.runtime.pipeline.PipelineAdmin;
import io.sluice.runtime.pipeline.PipelineSpec;

/** A command that inspects or changes a pipeline's state without moving rows: init, status, teardown, resync. */
abstract class AdminCommand extends PipelineCommand {

    /** Whether the command takes the pipeline as a whole, with any number of targets (status, resync); else one target. */
    private final boolean wholePipeline;

    AdminCommand(Streams streams) {
        this(streams, false);
    }

    AdminCommand(Streams streams, boolean wholePipeline) {
        super(streams);
        this.wholePipeline = wholePipeline;
    }

    @Override
    final boolean several() {
        return wholePipeline;
    }

    @Override
    final int run(PipelineSpec spec) {
        return run(List.of(new NamedTarget(null, spec)));
    }

    /** The work runs on the first target's pipeline: the source, the slot and the offsets are all targets' alike. */
    @Override
    final int run(List<NamedTarget> targets) {
        return guarded(new PipelineAdmin(targets.get(0).spec(), streams.out(), streams.err()), admin -> run(admin, targets));
    }

    /** Work on the whole pipeline, given its targets; by default, as on one. */
    int run(PipelineAdmin admin, List<NamedTarget> targets) throws Exception {
        return run(admin);
    }

    /** Work on the pipeline's state, which may fail on the source or a target. */
    @FunctionalInterface
    interface AdminWork {
        int run(PipelineAdmin admin) throws Exception;
    }

    /** Runs the work; a failure is said in one line (exit 1). */
    final int guarded(PipelineAdmin admin, AdminWork work) {
        String name = getClass().getAnnotation(picocli.CommandLine.Command.class).name();
        try {
            return work.run(admin);
        } catch (java.sql.SQLException | org.apache.kafka.connect.errors.ConnectException | IllegalStateException e) {
            streams.err().println("sluice " + name + ": " + e.getMessage());
            return FAILED;
        } catch (Exception e) {
            streams.err().println("sluice " + name + ": " + e);
            return FAILED;
        }
    }

    abstract int run(PipelineAdmin admin) throws Exception;
}
