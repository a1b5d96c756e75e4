package io.sluice.connector.postgres.health;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Decides what a slot reading warns of, and says it: the WAL the slot keeps past what the server
 * reserves ({@code wal_status} not {@code reserved}), little WAL left before the server may
 * invalidate it ({@code safe_wal_size} under a threshold), and lag past a threshold. Each
 * message says what will happen and what to do. Pure: {@link SlotHealth} reads, this judges.
 */
public final class SlotWarnings {

    /** What a reading can warn of. */
    public enum Risk {
        /** wal_status is extended, unreserved or lost. */
        WAL_STATUS,
        /** safe_wal_size is below its threshold. */
        SAFE_WAL_LOW,
        /** The slot holds more WAL than its threshold. */
        LAG_HIGH
    }

    private final String slot;
    private final long lagWarnBytes;
    private final long safeWalWarnBytes;

    /**
     * @param lagWarnBytes     {@code slot.lag.warn.bytes}; 0 never warns of lag
     * @param safeWalWarnBytes {@code slot.safe.wal.warn.bytes}; 0 never warns of it
     */
    public SlotWarnings(String slot, long lagWarnBytes, long safeWalWarnBytes) {
        this.slot = slot;
        this.lagWarnBytes = lagWarnBytes;
        this.safeWalWarnBytes = safeWalWarnBytes;
    }

    /** The risks a reading shows, each with its message; empty when the slot is healthy. */
    public Map<Risk, String> of(SlotReading reading) {
        Map<Risk, String> risks = new EnumMap<>(Risk.class);
        String status = reading.walStatus() == null ? "reserved" : reading.walStatus();
        switch (status) {
            case "reserved" -> { }
            case "extended" -> risks.put(Risk.WAL_STATUS, "Replication slot " + slot + " keeps WAL beyond max_wal_size (wal_status "
                    + "extended, " + size(reading.lagBytes()) + " behind): the pipeline is not confirming changes as fast as they come. "
                    + "It is safe while max_slot_wal_keep_size allows; see that the pipeline is running and its target keeps up");
            case "unreserved" -> risks.put(Risk.WAL_STATUS, "Replication slot " + slot + " is about to be invalidated (wal_status "
                    + "unreserved): its WAL passed max_slot_wal_keep_size and the next checkpoint removes it. The pipeline must "
                    + "catch up now, or it will have to copy everything again (sluice run --fresh); raising max_slot_wal_keep_size "
                    + "(a reload) buys time");
            case "lost" -> risks.put(Risk.WAL_STATUS, "Replication slot " + slot + " was invalidated (wal_status lost): the WAL it "
                    + "needed is gone, so changes since its position cannot be streamed. Copy again (sluice run --fresh, or reset the "
                    + "connector's offsets)");
            default -> risks.put(Risk.WAL_STATUS, "Replication slot " + slot + " has wal_status " + status);
        }
        Long safe = reading.safeWalSize();
        if (safeWalWarnBytes > 0 && safe != null && safe < safeWalWarnBytes && !"lost".equals(status)) {
            risks.put(Risk.SAFE_WAL_LOW, "Replication slot " + slot + " will be invalidated after " + size(Math.max(0, safe))
                    + " more WAL (safe_wal_size, below slot.safe.wal.warn.bytes = " + size(safeWalWarnBytes) + "); the pipeline "
                    + "would then have to copy everything again. See that it is running and its target keeps up, or raise "
                    + "max_slot_wal_keep_size on the source");
        }
        if (lagWarnBytes > 0 && reading.lagBytes() > lagWarnBytes) {
            risks.put(Risk.LAG_HIGH, "Replication slot " + slot + " holds " + size(reading.lagBytes()) + " of WAL the pipeline has "
                    + "not confirmed (past slot.lag.warn.bytes = " + size(lagWarnBytes) + "): the source keeps it on disk until the "
                    + "target has applied it. See that the pipeline is running and its target keeps up");
        }
        return risks;
    }

    /** A size as people read it: 1.5 GiB, 300 MiB, 12 kiB, 17 bytes. */
    static String size(long bytes) {
        String[] units = {"kiB", "MiB", "GiB", "TiB"};
        if (bytes < 1024) {
            return bytes + " bytes";
        }
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, value < 10 ? "%.1f %s" : "%.0f %s", value, units[unit]);
    }
}
