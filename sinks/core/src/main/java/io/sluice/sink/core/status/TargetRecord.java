package io.sluice.sink.core.status;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * What a sink records on its target of one source, as the {@code sluice} command asks before a
 * run (where to start) and for {@code sluice status}: the snapshot's state and whether streamed
 * changes are there.
 *
 * @param snapshotFinished the snapshot is recorded as finished
 * @param snapshotStarted  the snapshot is recorded as started and not finished
 * @param finishedAt       when it finished; null when not finished
 * @param streamed         the target holds streamed changes of the source
 * @param targets          the tables (indexes) the snapshot filled, as messages name them
 * @param sources          the quoted source table of each, in the same order
 */
public record TargetRecord(boolean snapshotFinished, boolean snapshotStarted, OffsetDateTime finishedAt, boolean streamed,
                           List<String> targets, List<String> sources) {

    public TargetRecord {
        targets = List.copyOf(targets);
        sources = List.copyOf(sources);
    }

    /** Nothing recorded of the source. */
    public static TargetRecord nothing() {
        return new TargetRecord(false, false, null, false, List.of(), List.of());
    }
}
