package io.sluice.sink.postgres.apply;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.sluice.schemas.postgres.KeyOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the target's key columns sort by, per table, read once, and whether a re-synced chunk's
 * key range (in the source's order) means the same rows on the target; where it does not, that is
 * said once per table. Shared by the tables' writers for as long as the sink runs: a chunk's range
 * comes with its own key-shaped writer each time.
 */
final class TargetKeyOrders {

    private static final Logger LOG = LoggerFactory.getLogger(TargetKeyOrders.class);

    private final Map<String, List<String>> orders = new HashMap<>();
    private final Set<String> said = new HashSet<>();

    /**
     * Whether the target's table sorts its key as the source does.
     *
     * @param quoted the target table, quoted
     * @param target its name for messages
     */
    synchronized boolean alike(Connection c, String quoted, String target, List<String> keys, List<String> source) throws SQLException {
        List<String> mine = orders.get(quoted);
        if (mine == null) {
            mine = KeyOrder.of(c, quoted, keys);
            orders.put(quoted, mine);
        }
        if (mine.equals(source)) {
            return true;
        }
        if (said.add(quoted)) {
            LOG.warn("{} is being re-synced, but its key columns {} sort by {} on the source and by {} on the target (another "
                    + "collation), so a key range of the source is not one of the target: its rows are written again, but rows the "
                    + "source does not have are left in {}", target, keys, source, mine, target);
        }
        return false;
    }

    /** The target's tables may have changed (DDL): their orders are read again. */
    synchronized void forget() {
        orders.clear();
    }
}
