package io.sluice.runtime.cli;

import java.util.List;

import io.sluice.runtime.pipeline.PipelineAdmin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice resync}. */
@Command(name = "resync", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Copies tables again while the pipeline runs: asks the running `sluice run` (through the source's signal "
                + "table) to read each table again in chunks by key, between the changes it streams, and waits until it did. Rows "
                + "changed, deleted or added on a PostgreSQL target behind Sluice's back end equal to the source's; a pipeline with "
                + "several targets hands them to every target.",
                "Give the same pipeline options as `sluice run` (at least --source and --name or --config)."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every table was re-synced (with --detach: requested)",
                "1:a re-sync failed or did not end within --timeout; the message says why",
                "2:the command line or the pipeline's configuration is wrong"})
public final class ResyncCommand extends AdminCommand {

    @Parameters(paramLabel = "TABLE", arity = "1..*", description = "Tables to copy again, as schema.table")
    List<String> tables;

    @Option(names = "--subscription", paramLabel = "NAME",
            description = "Copy the rows for this webhook subscription alone (its backfill: the others get nothing of it)")
    String subscription;

    @Option(names = "--detach", description = "Return once the requests are written; `sluice status` shows how they go")
    boolean detach;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "0",
            description = "Give up waiting after this long (the re-sync goes on); 0 waits until it ends")
    long timeoutSeconds;

    /** A pipeline with several targets: the running pipeline hands the rows read again to every target. */
    public ResyncCommand(Streams streams) {
        super(streams, true);
    }

    @Override
    int run(PipelineAdmin admin) throws Exception {
        return admin.resync(tables, subscription, detach, timeoutSeconds * 1000L);
    }
}
