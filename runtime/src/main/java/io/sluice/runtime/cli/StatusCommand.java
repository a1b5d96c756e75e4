package io.sluice.runtime.cli;

import io.sluice.runtime.pipeline.PipelineAdmin;
import picocli.CommandLine.Command;

/** {@code sluice status}. */
@Command(name = "status", sortOptions = false, usageHelpAutoWidth = true,
        description = "Shows the slot's lag, the snapshot and the position recorded on the target, and the apply rate.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the status was read",
                "1:it could not be done; the message says why",
                "2:the command line or the pipeline's configuration is wrong"})
public final class StatusCommand extends AdminCommand {

    public StatusCommand(Streams streams) {
        super(streams, true);
    }

    @Override
    int run(PipelineAdmin admin) throws Exception {
        return admin.status();
    }

    @Override
    int run(PipelineAdmin admin, java.util.List<io.sluice.runtime.pipeline.NamedTarget> targets) throws Exception {
        return admin.status(targets);
    }
}
