package io.sluice.runtime.cli;

import io.sluice.runtime.pipeline.PipelineAdmin;
import picocli.CommandLine.Command;

/** {@code sluice teardown}. */
@Command(name = "teardown", sortOptions = false, usageHelpAutoWidth = true,
        description = "Drops the pipeline's slot and publication and forgets its progress; the target's tables and rows stay.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the pipeline is torn down",
                "1:it could not be done; the message says why",
                "2:the command line or the pipeline's configuration is wrong"})
public final class TeardownCommand extends AdminCommand {

    public TeardownCommand(Streams streams) {
        super(streams);
    }

    @Override
    int run(PipelineAdmin admin) throws Exception {
        return admin.teardown();
    }
}
