package io.sluice.connector.postgres.health;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import io.sluice.connector.postgres.metrics.SourceMeters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the pipeline's replication slot on a thread of its own: every interval it reads the
 * slot's lag, {@code wal_status} and {@code safe_wal_size} from the server, shows them as
 * metrics, and logs a WARN when the slot comes into danger ({@link SlotWarnings}), again every
 * {@link #REPEAT_MILLIS} while it stays there, and an INFO once it is out of it. A reading that
 * fails (the source restarting) is tried again at the next interval on a new connection.
 */
public final class SlotHealth extends OwnConnection {

    private static final Logger LOG = LoggerFactory.getLogger(SlotHealth.class);
    /** How often a warning still true is logged again. */
    static final long REPEAT_MILLIS = 10 * 60_000L;
    private static final String QUERY = "SELECT pg_catalog.pg_wal_lsn_diff(CASE WHEN pg_catalog.pg_is_in_recovery() "
            + "THEN pg_catalog.pg_last_wal_replay_lsn() ELSE pg_catalog.pg_current_wal_lsn() END, confirmed_flush_lsn)::bigint, "
            + "wal_status, safe_wal_size FROM pg_catalog.pg_replication_slots WHERE slot_name = ?";

    /** Lines to log after a reading: warnings and the all-clear. */
    record Logged(List<String> warnings, List<String> cleared) {
    }

    private final String pipeline;
    private final String slot;
    private final SlotWarnings rules;
    private final Map<SlotWarnings.Risk, Long> warnedAt = new EnumMap<>(SlotWarnings.Risk.class);

    public SlotHealth(String pipeline, String slot, SlotWarnings rules, Supplier<Connection> connections) {
        super("sluice-slot-health-" + pipeline, connections);
        this.pipeline = pipeline;
        this.slot = slot;
        this.rules = rules;
    }

    /** Reads every {@code intervalMillis}, the first time now. */
    public void start(long intervalMillis) {
        every(0, intervalMillis);
    }

    @Override
    void once() {
        check();
    }

    private void check() {
        try {
            Optional<SlotReading> reading = read();
            if (reading.isEmpty()) {
                forgetSlot();
                return;
            }
            Map<SlotWarnings.Risk, String> risks = rules.of(reading.get());
            show(reading.get(), !risks.isEmpty());
            Logged logged = observe(risks, System.currentTimeMillis());
            logged.warnings().forEach(LOG::warn);
            logged.cleared().forEach(LOG::info);
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Reading the health of replication slot {} failed; tried again in the next interval", slot, e);
            closeConnection();
        }
    }

    private Optional<SlotReading> read() throws SQLException {
        try (PreparedStatement s = connection().prepareStatement(QUERY)) {
            s.setString(1, slot);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                long lag = rs.getLong(1);
                String status = rs.getString(2);
                long safe = rs.getLong(3);
                return Optional.of(new SlotReading(Math.max(0, lag), status, rs.wasNull() ? null : safe));
            }
        }
    }

    private void show(SlotReading reading, boolean atRisk) {
        SourceMeters.SLOT_LAG.labelValues(pipeline, slot).set(reading.lagBytes());
        if (reading.safeWalSize() == null) {
            SourceMeters.SAFE_WAL_SIZE.remove(pipeline, slot);
        } else {
            SourceMeters.SAFE_WAL_SIZE.labelValues(pipeline, slot).set(reading.safeWalSize());
        }
        for (String status : SlotReading.STATUSES) {
            SourceMeters.WAL_STATUS.labelValues(pipeline, slot, status).set(status.equals(reading.walStatus()) ? 1 : 0);
        }
        SourceMeters.AT_RISK.labelValues(pipeline, slot).set(atRisk ? 1 : 0);
        SourceMeters.SLOT_CHECKED.labelValues(pipeline, slot).set(System.currentTimeMillis() / 1000.0);
    }

    private void forgetSlot() {
        SourceMeters.SLOT_LAG.remove(pipeline, slot);
        SourceMeters.SAFE_WAL_SIZE.remove(pipeline, slot);
        SourceMeters.AT_RISK.remove(pipeline, slot);
        for (String status : SlotReading.STATUSES) {
            SourceMeters.WAL_STATUS.remove(pipeline, slot, status);
        }
    }

    /**
     * What to log for the risks of a reading at {@code now}: a risk new or last logged
     * {@link #REPEAT_MILLIS} ago is warned of; when the last risk is gone, the all-clear once.
     */
    Logged observe(Map<SlotWarnings.Risk, String> risks, long now) {
        List<String> warnings = new ArrayList<>();
        List<String> cleared = new ArrayList<>();
        boolean wasAtRisk = !warnedAt.isEmpty();
        warnedAt.keySet().retainAll(risks.keySet());
        risks.forEach((risk, message) -> {
            Long last = warnedAt.get(risk);
            if (last == null || now - last >= REPEAT_MILLIS) {
                warnings.add(message);
                warnedAt.put(risk, now);
            }
        });
        if (wasAtRisk && risks.isEmpty()) {
            cleared.add("Replication slot " + slot + " is out of danger again");
        }
        return new Logged(warnings, cleared);
    }

    @Override
    public void close() {
        super.close();
        forgetSlot();
    }
}
