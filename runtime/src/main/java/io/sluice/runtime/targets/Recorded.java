package io.sluice.runtime.targets;

import java.util.List;

/**
 * What a target records of a pipeline, which decides where a run starts.
 *
 * @param snapshotFinished the target records the pipeline's snapshot as finished
 * @param snapshotStarted  the target records the snapshot as started and not finished
 * @param finishedAt       when it finished (for messages); null when not finished
 * @param hasPosition      the target records streamed changes of the pipeline
 * @param missingTables    tables (indexes) the snapshot loaded that the target no longer has
 * @param emptiedTables    tables (indexes) the snapshot loaded that are empty on the target while the source's are not
 */
public record Recorded(boolean snapshotFinished, boolean snapshotStarted, String finishedAt, boolean hasPosition, List<String> missingTables,
                       List<String> emptiedTables) {

    /** How many rows (documents) a target table holds: -1 when it is gone, 0 when empty; enough to tell which. */
    @FunctionalInterface
    interface Probe {
        long rows(String target) throws Exception;
    }

    /**
     * What a target records of a snapshot, with the tables it filled checked: gone, or (for a
     * finished snapshot, when asked) empty while the source table has rows.
     *
     * @param targets the tables (indexes) the snapshot filled, as messages name them
     * @param sources the quoted source table of each, in the same order; null where unknown
     */
    static Recorded of(boolean finished, String finishedAt, boolean position, List<String> targets, List<String> sources,
                       boolean checkEmptied, Probe probe, java.util.Map<String, String> sourceKeys) throws Exception {
        List<String> missing = new java.util.ArrayList<>();
        List<String> empty = new java.util.ArrayList<>();
        List<String> emptySources = new java.util.ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            long rows = probe.rows(targets.get(i));
            if (rows < 0) {
                missing.add(targets.get(i));
            } else if (checkEmptied && finished && rows == 0) {
                empty.add(targets.get(i));
                emptySources.add(i < sources.size() ? sources.get(i) : null);
            }
        }
        List<String> emptied = empty.isEmpty() ? List.of() : SourceTables.withRows(sourceKeys, empty, emptySources);
        return new Recorded(finished, !finished, finished ? finishedAt : null, position, missing, emptied);
    }

    public static Recorded nothing() {
        return new Recorded(false, false, null, false, List.of(), List.of());
    }

    public boolean knowsPipeline() {
        return snapshotFinished || snapshotStarted || hasPosition;
    }
}
