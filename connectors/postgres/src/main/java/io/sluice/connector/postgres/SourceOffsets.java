package io.sluice.connector.postgres;

import java.util.Map;

import io.sluice.connector.postgres.replication.ChangeRecords;
import io.sluice.connector.postgres.snapshot.SnapshotRun;

/**
 * What a runtime driving the source may read of its records' source offsets and batches, so
 * that it needs none of the source's internals: whether a record ends the snapshot, whether it
 * is a streamed change, and whether a poll returned all the source had.
 */
public final class SourceOffsets {

    private SourceOffsets() {
    }

    /** Whether the record with this source offset is the snapshot's last: the stream begins after it. */
    public static boolean endsSnapshot(Map<String, ?> sourceOffset) {
        return sourceOffset != null && Boolean.TRUE.equals(sourceOffset.get(SnapshotRun.COMPLETED));
    }

    /** Whether the record with this source offset is a streamed change (it carries its transaction's commit position). */
    public static boolean streamed(Map<String, ?> sourceOffset) {
        return sourceOffset != null && sourceOffset.containsKey(ChangeRecords.COMMIT_LSN);
    }

    /** Whether a poll that returned this many records returned everything the source had ready (a batch short of full). */
    public static boolean drained(int polled) {
        return polled < PostgresSourceTask.MAX_BATCH;
    }
}
