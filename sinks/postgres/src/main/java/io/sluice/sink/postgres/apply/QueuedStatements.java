package io.sluice.sink.postgres.apply;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * The set-based statements of one target transaction, each with what to do with the number of
 * rows it changed. Queued, they go to the target together, in one round trip, once every table's
 * rows are staged: a live stream's transactions are small, and their time went mostly to round
 * trips, one per statement. Immediate, each runs as it comes; that is the way back when statements
 * sent together fail where one at a time would not (see {@link SegmentWriter}).
 */
final class QueuedStatements {

    private final boolean immediate;
    private final List<String> statements = new ArrayList<>();
    private final List<IntConsumer> rowCounts = new ArrayList<>();
    private final List<String> afterwards = new ArrayList<>();

    private QueuedStatements(boolean immediate) {
        this.immediate = immediate;
    }

    /** Statements that wait for {@link #run}. */
    static QueuedStatements queued() {
        return new QueuedStatements(false);
    }

    /** Statements that run as they are added. */
    static QueuedStatements immediate() {
        return new QueuedStatements(true);
    }

    boolean isImmediate() {
        return immediate;
    }

    /**
     * A statement, and what to do with the number of rows it changed (negative when the target
     * did not say). Runs now when immediate.
     */
    void add(Statement s, String sql, IntConsumer rows) throws SQLException {
        if (immediate) {
            rows.accept(s.executeUpdate(sql));
        } else {
            statements.add(sql);
            rowCounts.add(rows);
        }
    }

    /**
     * A statement that the row count of a queued one called for: it runs after them, in a round
     * trip of its own. Only for what queued statements' results decide, which is rare.
     */
    void afterwards(String sql) {
        afterwards.add(sql);
    }

    /** Sends the queued statements in one round trip and hands each its row count; then what they called for. */
    void run(Statement s) throws SQLException {
        if (statements.isEmpty()) {
            return;
        }
        for (String sql : statements) {
            s.addBatch(sql);
        }
        int[] counts;
        try {
            counts = s.executeBatch();
        } finally {
            s.clearBatch();
        }
        List<IntConsumer> handlers = List.copyOf(rowCounts);
        statements.clear();
        rowCounts.clear();
        for (int i = 0; i < handlers.size(); i++) {
            handlers.get(i).accept(i < counts.length ? counts[i] : -1);
        }
        List<String> next = List.copyOf(afterwards);
        afterwards.clear();
        for (String sql : next) {
            s.executeUpdate(sql);
        }
    }
}
