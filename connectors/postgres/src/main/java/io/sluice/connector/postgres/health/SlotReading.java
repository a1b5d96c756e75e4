package io.sluice.connector.postgres.health;

/**
 * What the server says of a replication slot at one moment (pg_replication_slots).
 *
 * @param lagBytes    the server's WAL position (on a standby, what it replayed) minus the slot's confirmed_flush_lsn
 * @param walStatus   reserved, extended, unreserved or lost
 * @param safeWalSize bytes of WAL that can be written before the slot may be invalidated; null when
 *                    max_slot_wal_keep_size is unlimited (or the slot is lost)
 */
public record SlotReading(long lagBytes, String walStatus, Long safeWalSize) {

    /** The values wal_status takes, in the order a slot goes from safe to lost. */
    public static final java.util.List<String> STATUSES = java.util.List.of("reserved", "extended", "unreserved", "lost");
}
