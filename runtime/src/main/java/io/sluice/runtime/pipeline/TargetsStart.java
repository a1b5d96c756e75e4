package io.sluice.runtime.pipeline;

import java.io.PrintStream;
import java.nio.file.Files;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.connector.postgres.SourceAdmin;
import io.sluice.runtime.targets.Target;

/**
 * Where a streaming run of a pipeline starts, from what each of its targets records (see
 * {@link StartingPoint}), and the slot and offsets an earlier run left that it forgets.
 */
final class TargetsStart {

    private final PipelineSpec spec;
    private final List<NamedTarget> targets;
    private final PrintStream out;

    TargetsStart(PipelineSpec spec, List<NamedTarget> targets, PrintStream out) {
        this.spec = spec;
        this.targets = targets;
        this.out = out;
    }

    /**
     * Decides from what the targets record where this run starts (see {@link StartingPoint}):
     * local offsets the target knows nothing of are forgotten with their slot, and a target that
     * holds the copy when no local offsets do is streamed into from the slot. Several targets
     * must agree, since one slot feeds them all; a target detached (or being re-synced after it
     * was) is not asked, as what it records is behind the slot by design.
     *
     * @param detached the targets' names to leave out
     */
    void decide(PostgresSourceConfig config, Map<String, String> overrides, java.util.function.Predicate<String> detached) throws Exception {
        boolean slotExists = new SourceAdmin(spec.source()).slot().isPresent();
        StartingPoint.Local local = new StartingPoint.Local(Files.exists(spec.offsets()), false, spec.offsets().toString());
        boolean copies = copies(config, overrides);
        List<StartingPoint.Decision> decisions = new java.util.ArrayList<>();
        List<NamedTarget> asked = new java.util.ArrayList<>();
        for (NamedTarget named : targets) {
            if (named.name() != null && detached.test(named.name())) {
                continue;
            }
            asked.add(named);
            Target target = named.spec().sink();
            decisions.add(StartingPoint.forRun(spec.name(), target.display(), config.slotName(), target.read(spec.sourceName(), false,
                    spec.source()), local, copies, slotExists));
        }
        if (decisions.isEmpty()) {
            return; // every target detached or being re-synced: the local offsets are where the others were
        }
        StartingPoint.Decision decision = decisions.get(0);
        for (int i = 0; i < decisions.size(); i++) {
            StartingPoint.Decision d = decisions.get(i);
            if (d.action() == StartingPoint.Action.REFUSE) {
                throw new CannotStart((targets.size() > 1) ? "target " + asked.get(i).name() + ": " + d.message() : d.message());
            }
            if (d.action() != decision.action() || d.forgetLocal() != decision.forgetLocal()) {
                StringBuilder why = new StringBuilder("The targets of pipeline " + spec.name() + " are not at one point, and one slot feeds "
                        + "them all:");
                for (int j = 0; j < decisions.size(); j++) {
                    StartingPoint.Decision each = decisions.get(j);
                    why.append("\n  ").append(asked.get(j).name()).append(": ").append(each.message() != null ? each.message()
                            : each.action() == StartingPoint.Action.COPY ? "no copy yet: it would be copied" : "goes on from the local offsets");
                }
                why.append("\nRun with --fresh (and --table-exists truncate) to copy into all of them again; adding a target to a "
                        + "running pipeline with a re-sync of that target alone is planned (docs/fan-out.md).");
                throw new CannotStart(why.toString());
            }
        }
        for (int i = 0; i < decisions.size(); i++) {
            if (decisions.get(i).message() != null) {
                out.println(decisions.get(i).message());
            }
        }
        if (decision.forgetLocal()) {
            Files.deleteIfExists(spec.offsets());
            dropSlot(config);
        }
        if (decision.action() == StartingPoint.Action.STREAM_FROM_SLOT) {
            overrides.put(PostgresSourceConfig.SNAPSHOT_MODE, "never");
        }
    }

    /** Whether the run takes a snapshot when it has none: snapshot.mode, as this run overrides it, is not never. */
    static boolean copies(PostgresSourceConfig config, Map<String, String> overrides) {
        String mode = overrides.getOrDefault(PostgresSourceConfig.SNAPSHOT_MODE, config.snapshotMode().name());
        return !mode.equalsIgnoreCase("never");
    }

    /** Drops the pipeline's slot so a fresh run takes its snapshot from a new one. */
    void dropSlot(PostgresSourceConfig config) throws SQLException {
        if (new SourceAdmin(spec.source()).dropSlot()) {
            out.println("Dropped replication slot " + config.slotName() + " of the earlier run");
        }
    }
}
