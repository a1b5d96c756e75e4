package io.sluice.runtime.cli;

import io.sluice.runtime.pipeline.PipelineAdmin;
import io.sluice.runtime.pipeline.PipelineSpec;

/** A command that inspects or changes a pipeline's state without moving rows: init, status, teardown. */
abstract class AdminCommand extends PipelineCommand {

    AdminCommand(Streams streams) {
        super(streams);
    }

    @Override
    final int run(PipelineSpec spec) {
        return guarded(new PipelineAdmin(spec, streams.out(), streams.err()), this::run);
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
