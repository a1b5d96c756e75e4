package io.sluice.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the {@code table} label bounded: the first {@link #MAX} tables a process measures get a
 * series of their own, any beyond them are counted together as {@value #OTHER}. A database of
 * thousands of tables then makes thousands of series per family at most, never millions, and
 * the totals stay right.
 */
public final class TableLabels {

    /** Tables with series of their own, per process. */
    public static final int MAX = 1000;
    /** The label value of every table beyond {@link #MAX}. */
    public static final String OTHER = "_other";

    private static final Logger LOG = LoggerFactory.getLogger(TableLabels.class);
    private static final Set<String> SEEN = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private TableLabels() {
    }

    /** The label value for a table: its name, or {@value #OTHER} past the bound. */
    public static String of(String table) {
        if (SEEN.contains(table)) {
            return table;
        }
        if (SEEN.size() < MAX) {
            SEEN.add(table);
            return table;
        }
        if (WARNED.compareAndSet(false, true)) {
            LOG.warn("More than {} tables are measured in this process: the metrics of {} and later ones are labelled table=\"{}\"",
                    MAX, table, OTHER);
        }
        return OTHER;
    }
}
