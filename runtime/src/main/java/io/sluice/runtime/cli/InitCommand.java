package io.sluice.runtime.cli;

import io.sluice.runtime.pipeline.PipelineAdmin;
import picocli.CommandLine.Command;

/** {@code sluice init}. */
@Command(name = "init", sortOptions = false, usageHelpAutoWidth = true,
        description = "Checks that the source can stream and creates the publication (run does it too).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the source can stream; the publication exists",
                "1:it could not be done; the message says why",
                "2:the command line or the pipeline's configuration is wrong"})
public final class InitCommand extends AdminCommand {

    public InitCommand(Streams streams) {
        super(streams);
    }

    @Override
    int run(PipelineAdmin admin) throws Exception {
        return admin.init();
    }
}
