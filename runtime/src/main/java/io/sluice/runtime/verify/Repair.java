package io.sluice.runtime.verify;

import java.io.PrintStream;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.SourceAdmin;

/**
 * {@code sluice verify --repair}: asks the running pipeline, through its signal table, to re-sync
 * what differs, and waits until it has. A table whose differences are all named keys gets those
 * rows re-synced (a key the source lacks is deleted on the target); a table compared as a whole,
 * one with ranges too large to name, or one missing on the target, is re-synced whole. The
 * pipeline reads them as it reads any re-sync (DBLog's watermarks), so the stream keeps flowing
 * and a row changed meanwhile keeps its newer change.
 */
final class Repair {

    private Repair() {
    }

    /** Requests and waits; true when every request is done, false (said why) when one failed or time ran out. */
    static boolean run(SourceAdmin admin, Map<ComparedTable, TableComparison.Outcome> outcomes, long waitMillis, PrintStream out,
                       PrintStream err) throws SQLException {
        Map<Long, String> requests = new LinkedHashMap<>();
        for (Map.Entry<ComparedTable, TableComparison.Outcome> e : outcomes.entrySet()) {
            ComparedTable t = e.getKey();
            TableComparison.Outcome o = e.getValue();
            if (o != null && (o.equal() || o.unsettled() != null)) {
                continue;
            }
            if (o != null && t.keyed() && o.found().ranges.isEmpty()) {
                List<String[]> keys = new ArrayList<>();
                o.found().keys().forEach(k -> keys.add(k.toArray(new String[0])));
                long id = admin.requestRepair(t.source(), keys);
                requests.put(id, t.name());
                out.println("Repairing " + keys.size() + (keys.size() == 1 ? " row of " : " rows of ") + t.name() + " (request " + id + ")");
            } else {
                long id = admin.requestResync(t.source());
                requests.put(id, t.name());
                out.println("Re-syncing " + t.name() + " whole (request " + id + "): "
                        + (o == null ? "the target lacks it" : !t.keyed() ? "it is compared as a whole" : "some ranges hold too many rows to name"));
            }
        }
        return await(admin, requests, waitMillis, out, err);
    }

    /** Waits for the requests (id to the table's name); true when every one is done, false (said why) when one failed or time ran out. */
    static boolean await(SourceAdmin admin, Map<Long, String> requests, long waitMillis, PrintStream out, PrintStream err)
            throws SQLException {
        long deadline = System.nanoTime() + waitMillis * 1_000_000L;
        for (Map.Entry<Long, String> r : requests.entrySet()) {
            while (true) {
                SourceAdmin.Resync request = admin.resync(r.getKey()).orElseThrow(() -> new IllegalStateException("request " + r.getKey()
                        + " is gone from the signal table (deleted, or the pipeline was torn down)"));
                if (request.done()) {
                    out.println("  " + r.getValue() + ": done (" + request.rows() + " rows)");
                    break;
                }
                if (request.failed()) {
                    err.println("sluice verify: the repair of " + r.getValue() + " failed: " + request.message());
                    return false;
                }
                if (System.nanoTime() > deadline) {
                    err.println("sluice verify: the repair of " + r.getValue() + " did not end within " + waitMillis / 1000 + " s; it goes "
                            + "on in the pipeline (sluice status shows it)");
                    return false;
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return true;
    }
}
