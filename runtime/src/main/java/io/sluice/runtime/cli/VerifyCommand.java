package io.sluice.runtime.cli;

import io.sluice.runtime.pipeline.PipelineSpec;
import io.sluice.runtime.verify.Verification;
import picocli.CommandLine.Command;

/** {@code sluice verify}. */
@Command(name = "verify", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Compares a PostgreSQL target with its source, table by table: row counts and a hash of every row, per key "
                + "range where they differ, down to the keys missing, added or changed. Row filters and column lists are taken "
                + "into account; anonymized columns are left out, and said so.",
                "While the pipeline streams, it compares both at one consistent point (the source's snapshot at a position, the "
                        + "target once it has applied past it, the changes in between accounted for), and the pipeline keeps "
                        + "flowing. With the pipeline stopped (or after `sluice snapshot`), it compares the two as they are.",
                "An OpenSearch target is compared document by document: the document the sink would write for each source row "
                        + "(its id and body) against those of the table's alias, by id.",
                "Give the same pipeline options as `sluice run` (at least --source, --target and --name, or --config); --tables "
                        + "narrows the comparison to some of its tables."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every table is equal", "1:some table differs; the report names it, its ranges and keys",
                "2:could not compare (the command line, the pipeline, a server); the message says why"})
public final class VerifyCommand extends PipelineCommand {

    @picocli.CommandLine.Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "300",
            description = "How long to wait for the target to apply what the source had at the comparison's point (default: ${DEFAULT-VALUE})")
    long waitSeconds;

    @picocli.CommandLine.Option(names = "--repair", description = "Re-sync what differs through the running pipeline (the rows by key, "
            + "or the whole table where the differences are not narrowed down to rows), then compare again; the exit code is that "
            + "comparison's")
    boolean repair;

    @picocli.CommandLine.Option(names = "--jobs", paramLabel = "N", defaultValue = "2",
            description = "Tables compared at once, each on a connection of its own to either server, all in one snapshot (default: "
                    + "${DEFAULT-VALUE})")
    int jobs;

    public VerifyCommand(Streams streams) {
        super(streams);
    }

    @Override
    int run(PipelineSpec spec) {
        try {
            return Verification.run(spec, new Verification.Settings(waitSeconds * 1000, repair, jobs), streams.out(),
                    streams.err());
        } catch (java.sql.SQLException | org.apache.kafka.connect.errors.ConnectException | IllegalStateException
                 | IllegalArgumentException e) {
            streams.err().println("sluice verify: " + e.getMessage());
            return WRONG;
        }
    }
}
