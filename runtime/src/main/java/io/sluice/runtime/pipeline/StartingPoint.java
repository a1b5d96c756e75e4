package io.sluice.runtime.pipeline;

import java.util.List;

import io.sluice.runtime.targets.Recorded;

/**
 * Where a run of the {@code sluice} command starts, decided by what the target records of the
 * pipeline. The target is the truth: local files under {@code .sluice/} only cache what it
 * says, so when they disagree the target wins, and the command says so in one line. A command
 * that would otherwise exit 0 over a target that does not hold the copy copies again instead.
 */
final class StartingPoint {

    /** What the run does. */
    enum Action {
        /** Copy from scratch (a run's first snapshot, or again). */
        COPY,
        /** Go on from the local offsets: an interrupted snapshot, or streaming. */
        RESUME,
        /** Nothing to do: the target holds the finished snapshot ({@code sluice snapshot}). */
        DONE,
        /** Stream from the existing slot without local offsets: the target holds the copy and the position. */
        STREAM_FROM_SLOT,
        /** Stop with the message: going on would leave a target missing part of the copy. */
        REFUSE
    }

    /**
     * @param action      what to do
     * @param message     the line to print (null when there is nothing to say)
     * @param forgetLocal delete the local offsets (and for a streaming run drop the slot): they describe another copy
     */
    record Decision(Action action, String message, boolean forgetLocal) {
    }

    /**
     * What is left locally of earlier runs.
     *
     * @param offsets  the offsets file exists
     * @param done     the snapshot command's finished marker exists
     * @param file     the offsets file, for messages
     */
    record Local(boolean offsets, boolean done, String file) {

        boolean any() {
            return offsets || done;
        }
    }

    private StartingPoint() {
    }

    /** For {@code sluice snapshot}. */
    static Decision forSnapshot(String pipeline, String target, Recorded t, Local local) {
        if (t.snapshotFinished()) {
            List<String> damage = damage(t);
            if (damage.isEmpty()) {
                return new Decision(Action.DONE, "The snapshot of pipeline " + pipeline + " finished at " + t.finishedAt() + " (recorded on the "
                        + "target " + target + "). Use --fresh to copy again.", false);
            }
            return new Decision(Action.COPY, "The target " + target + " records the snapshot of pipeline " + pipeline + " as finished at "
                    + t.finishedAt() + ", but " + String.join("; ", damage) + " (dropped or emptied since): its tables win over the record, "
                    + "so the snapshot is copied again.", true);
        }
        if (t.snapshotStarted() && local.offsets() && t.missingTables().isEmpty()) {
            return new Decision(Action.RESUME, null, false);
        }
        if (t.snapshotStarted()) {
            return new Decision(Action.COPY, unfinished(pipeline, target, t, local), local.any());
        }
        if (local.any()) {
            return new Decision(Action.COPY, "Local state " + local.file() + " says pipeline " + pipeline + " " + (local.done()
                    ? "finished its snapshot" : "began a snapshot") + ", but the target " + target + " has no record of it (a new or "
                    + "recreated database, or another one): the target wins, so the snapshot is copied again.", true);
        }
        return new Decision(Action.COPY, null, false);
    }

    /**
     * For {@code sluice run}.
     *
     * @param copies     the pipeline takes a snapshot (snapshot.mode is not never)
     * @param slotExists the pipeline's replication slot exists on the source
     */
    static Decision forRun(String pipeline, String target, String slot, Recorded t, Local local, boolean copies, boolean slotExists) {
        if (local.offsets()) {
            if (copies && !t.knowsPipeline()) {
                return new Decision(Action.COPY, "Local state " + local.file() + " says pipeline " + pipeline + " ran before, but the target "
                        + target + " has no record of it (a new or recreated database, or another one): the target wins, so the pipeline "
                        + "starts over with a new snapshot (replication slot " + slot + " is made again).", true);
            }
            if (!t.missingTables().isEmpty()) {
                return copies && t.snapshotStarted() ? new Decision(Action.COPY, unfinished(pipeline, target, t, local), true)
                        : refuseMissing(pipeline, target, t);
            }
            return new Decision(Action.RESUME, null, false);
        }
        if (copies && t.snapshotFinished()) {
            if (!t.missingTables().isEmpty()) {
                return refuseMissing(pipeline, target, t);
            }
            if (!slotExists) {
                return new Decision(Action.REFUSE, "The target " + target + " holds the copy of pipeline " + pipeline + " (snapshot finished at "
                        + t.finishedAt() + "), but the source has no replication slot " + slot + ", so the changes made since are lost to "
                        + "Sluice. Run `sluice run` with --fresh --table-exists truncate to copy again.", false);
            }
            return new Decision(Action.STREAM_FROM_SLOT, "No local state for pipeline " + pipeline + " (" + local.file() + "); the target "
                    + target + " holds its copy (snapshot finished at " + t.finishedAt() + "), so changes are streamed from replication slot "
                    + slot + " on from where the target is.", false);
        }
        if (copies && t.snapshotStarted()) {
            return new Decision(Action.COPY, unfinished(pipeline, target, t, local), false);
        }
        return new Decision(Action.COPY, null, false);
    }

    /** An unfinished snapshot that cannot be resumed: no local offsets to resume from, or tables it loaded are gone. */
    private static String unfinished(String pipeline, String target, Recorded t, Local local) {
        String why = t.missingTables().isEmpty() ? "there is no local state (" + local.file() + ") to resume it from"
                : "the target lacks " + list(t.missingTables()) + " it was loading";
        return "The target " + target + " records an unfinished snapshot of pipeline " + pipeline + ", but " + why
                + ": the tables that snapshot created are made again and the snapshot is copied again.";
    }

    private static Decision refuseMissing(String pipeline, String target, Recorded t) {
        return new Decision(Action.REFUSE, "The target " + target + " lacks " + list(t.missingTables()) + ", which the snapshot of pipeline "
                + pipeline + " copied (dropped since?): streaming into it would leave them missing. Run `sluice run` with --fresh "
                + "(and --table-exists truncate, to reload the tables it still has) to copy again.", false);
    }

    private static List<String> damage(Recorded t) {
        List<String> damage = new java.util.ArrayList<>();
        if (!t.missingTables().isEmpty()) {
            damage.add("it lacks " + list(t.missingTables()));
        }
        if (!t.emptiedTables().isEmpty()) {
            damage.add(list(t.emptiedTables()) + (t.emptiedTables().size() == 1 ? " is" : " are") + " empty while the source's "
                    + (t.emptiedTables().size() == 1 ? "is" : "are") + " not");
        }
        return damage;
    }

    private static String list(List<String> tables) {
        return (tables.size() == 1 ? "table " : "tables ") + String.join(", ", tables.subList(0, Math.min(5, tables.size())))
                + (tables.size() > 5 ? " and " + (tables.size() - 5) + " more" : "");
    }
}
