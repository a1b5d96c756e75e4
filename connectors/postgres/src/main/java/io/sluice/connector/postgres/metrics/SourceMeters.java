package io.sluice.connector.postgres.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.sluice.metrics.SluiceMetrics;

/**
 * The source's metric families (docs/metrics.md): what is decoded from the slot, the slot's
 * health as the server reports it, and the snapshot's progress. Every series is labelled with
 * the pipeline ({@code topic.prefix}).
 */
public final class SourceMeters {

    public static final Counter CHANGES = SluiceMetrics.counter("sluice_source_changes_total",
            "Row changes decoded from the replication slot, by operation (insert, update, delete, truncate), selected or not",
            "pipeline", "op");
    public static final Counter TRANSACTIONS = SluiceMetrics.counter("sluice_source_transactions_total",
            "Transactions decoded from the replication slot", "pipeline");
    public static final Counter RECONNECTS = SluiceMetrics.counter("sluice_source_reconnects_total",
            "Times the stream was lost (source restarted, network, failover) and streaming started again", "pipeline");
    public static final Gauge SLOT_LAG = SluiceMetrics.gauge("sluice_source_slot_lag_bytes",
            "WAL the slot still holds: the server's current WAL position minus the slot's confirmed_flush_lsn, as the server says",
            "pipeline", "slot");
    public static final Gauge SAFE_WAL_SIZE = SluiceMetrics.gauge("sluice_source_slot_safe_wal_size_bytes",
            "WAL that can still be written before the slot is in danger of being invalidated (pg_replication_slots.safe_wal_size); "
                    + "absent when max_slot_wal_keep_size is unlimited", "pipeline", "slot");
    public static final Gauge WAL_STATUS = SluiceMetrics.gauge("sluice_source_slot_wal_status",
            "1 for the slot's wal_status now (reserved, extended, unreserved, lost), 0 for the others", "pipeline", "slot", "status");
    public static final Gauge AT_RISK = SluiceMetrics.gauge("sluice_source_slot_at_risk",
            "1 while the slot's health gives a warning (wal_status past reserved, safe_wal_size below slot.safe.wal.warn.bytes, "
                    + "lag past slot.lag.warn.bytes), else 0", "pipeline", "slot");
    public static final Gauge SLOT_CHECKED = SluiceMetrics.gauge("sluice_source_slot_checked_timestamp_seconds",
            "When the slot's health was last read from the server (Unix time)", "pipeline", "slot");
    public static final Counter SNAPSHOT_ROWS = SluiceMetrics.counter("sluice_snapshot_rows_total",
            "Rows read by the snapshot, per table", "pipeline", "table");
    public static final Counter SNAPSHOT_BYTES = SluiceMetrics.counter("sluice_snapshot_bytes_total",
            "Bytes of rows read by the snapshot (as sent by COPY), per table", "pipeline", "table");
    public static final Gauge SNAPSHOT_TABLES = SluiceMetrics.gauge("sluice_snapshot_tables",
            "Tables of the snapshot by state: done (every row read) or left", "pipeline", "state");
    public static final Gauge SNAPSHOT_SECONDS_LEFT = SluiceMetrics.gauge("sluice_snapshot_remaining_seconds",
            "Estimated time until the snapshot has read every row, from the tables' sizes and the rate so far; -1 while unknown",
            "pipeline");

    public static final Counter RESYNC_ROWS = SluiceMetrics.counter("sluice_resync_rows_total",
            "Rows of tables re-synced while streaming (sluice resync), handed to the targets, per table", "pipeline", "table");
    public static final Counter RESYNC_CHUNKS = SluiceMetrics.counter("sluice_resync_chunks_total",
            "Chunks of tables re-synced while streaming, handed to the targets, per table", "pipeline", "table");
    public static final Gauge RESYNC_RUNNING = SluiceMetrics.gauge("sluice_resync_running_tables",
            "Tables being re-synced now (one at a time; requests wait in the signal table), 0 when none is", "pipeline");

    private SourceMeters() {
    }
}
