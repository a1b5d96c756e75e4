package io.sluice.connector.postgres.snapshot;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.metrics.SourceMeters;
import io.sluice.metrics.TableLabels;

/**
 * Shows a snapshot's progress as metrics: rows and bytes read per table, tables done and left,
 * and the time left at the rate so far. Brought up to date from the tables' progress at most
 * once a second, from the task's thread, so the readers' hot path is not touched.
 */
final class SnapshotMeters {

    private static final long EVERY_NANOS = 1_000_000_000L;

    private final String pipeline;
    private final long startNanos = System.nanoTime();
    private final Map<TableProgress, long[]> shown = new HashMap<>();
    private long lastNanos;

    SnapshotMeters(String pipeline) {
        this.pipeline = pipeline;
    }

    /** Updates the meters when a second has passed since the last time, or always when {@code now}. */
    void update(List<TableProgress> tables, boolean now) {
        long t = System.nanoTime();
        if (!now && t - lastNanos < EVERY_NANOS) {
            return;
        }
        lastNanos = t;
        long done = 0;
        long rowsRead = 0;
        long rowsLeft = 0;
        for (TableProgress table : tables) {
            long[] before = shown.computeIfAbsent(table, x -> new long[2]);
            long rows = table.rows();
            long bytes = table.bytes();
            String label = TableLabels.of(table.plan().table().qualifiedName());
            if (rows > before[0]) {
                SourceMeters.SNAPSHOT_ROWS.labelValues(pipeline, label).inc(rows - before[0]);
            }
            if (bytes > before[1]) {
                SourceMeters.SNAPSHOT_BYTES.labelValues(pipeline, label).inc(bytes - before[1]);
            }
            before[0] = rows;
            before[1] = bytes;
            rowsRead += rows;
            if (table.isComplete()) {
                done++;
            } else {
                rowsLeft += Math.max(0, table.plan().estimatedRows() - rows);
            }
        }
        SourceMeters.SNAPSHOT_TABLES.labelValues(pipeline, "done").set(done);
        SourceMeters.SNAPSHOT_TABLES.labelValues(pipeline, "left").set(tables.size() - done);
        double seconds = (t - startNanos) / 1e9;
        double rate = seconds <= 0 ? 0 : rowsRead / seconds;
        SourceMeters.SNAPSHOT_SECONDS_LEFT.labelValues(pipeline)
                .set(done == tables.size() ? 0 : rate <= 0 ? -1 : rowsLeft / rate);
    }
}
