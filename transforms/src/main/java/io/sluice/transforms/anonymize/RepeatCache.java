package io.sluice.transforms.anonymize;

import java.math.BigDecimal;
import java.util.concurrent.ConcurrentHashMap;

import io.sluice.transforms.transformer.ColumnRewrite;

/**
 * Remembers a costly deterministic rewrite's recent outputs, so a value that repeats (an account
 * number many rows share, a hashed code) is rewritten once rather than once per row. It holds at most
 * {@value #CAPACITY} values, starting over when full, and turns itself off on a column whose
 * values rarely repeat (emails, ids), where remembering would cost more than it saves.
 */
final class RepeatCache implements ColumnRewrite {

    static final int CAPACITY = 8192;
    /** Lookups before deciding whether the column repeats enough to keep remembering. */
    private static final int TRIAL = 20_000;

    private final ColumnRewrite rewrite;
    private final ConcurrentHashMap<Object, Object> recent = new ConcurrentHashMap<>();
    // Counted without synchronization: a few lost counts between threads do not change the decision.
    private int lookups;
    private int hits;
    private volatile boolean on = true;
    private boolean decided;

    private RepeatCache(ColumnRewrite rewrite) {
        this.rewrite = rewrite;
    }

    static ColumnRewrite wrap(ColumnRewrite rewrite) {
        return rewrite == null || rewrite == ColumnRewrite.IDENTITY ? rewrite : new RepeatCache(rewrite);
    }

    @Override
    public Object apply(Object value, Row row) {
        if (!on || !immutable(value)) {
            return rewrite.apply(value, row);
        }
        Object out = recent.get(value);
        boolean hit = out != null;
        if (!hit) {
            out = rewrite.apply(value, row);
            remember(value, out);
        }
        if (!decided) {
            // Only during the trial: counters that every thread wrote on every value would bounce between cores.
            tally(hit);
        }
        return out;
    }

    private void tally(boolean hit) {
        int n = ++lookups;
        if (hit) {
            hits++;
        }
        if (n >= TRIAL) {
            // ">=" not "==": counts lost between threads may step over the trial's end.
            decided = true;
            if (hits < n / 10) {
                on = false;
                recent.clear();
            }
        }
    }

    private void remember(Object value, Object out) {
        if (immutable(out)) {
            if (recent.size() >= CAPACITY) {
                recent.clear();
            }
            recent.put(value, out);
        }
    }

    @Override
    public boolean rewritesNull() {
        return rewrite.rewritesNull();
    }

    /** Values that are keys by content and cannot change under the cache: not arrays, lists, maps or dates. */
    private static boolean immutable(Object value) {
        return value instanceof String || value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Byte || value instanceof BigDecimal || value instanceof Boolean || value instanceof Double
                || value instanceof Float;
    }
}
