package io.sluice.schemas.lookup;

import java.util.function.Function;

import org.apache.kafka.connect.data.Schema;

/**
 * What was derived from the few schemas seen last (their fields, whether each is some other
 * schema), derived again only when another schema object comes. Records come in runs of a few
 * tables whose schema objects are reused record after record (a pgbench transaction touches four
 * tables, one change each), so a handful of entries, compared by identity, spare a lookup by name
 * or a deep comparison per record; one entry was derived anew for every change of such a stream.
 * Safe to share between threads: the entries are replaced whole.
 *
 * @param <T> what is derived
 */
public final class RecentSchemas<T> {

    /** Schemas remembered; the oldest is forgotten when another comes. */
    static final int SIZE = 8;

    private record Entry<T>(Schema schema, T derived) {
    }

    private final Function<Schema, T> derive;
    @SuppressWarnings("unchecked")
    private volatile Entry<T>[] entries = new Entry[0];

    /** @param derive what to derive from a schema (null included, when records may have none) */
    public RecentSchemas(Function<Schema, T> derive) {
        this.derive = derive;
    }

    public T of(Schema schema) {
        Entry<T>[] seen = entries;
        for (Entry<T> entry : seen) {
            if (entry.schema() == schema) {
                return entry.derived();
            }
        }
        T derived = derive.apply(schema);
        @SuppressWarnings("unchecked")
        Entry<T>[] next = new Entry[Math.min(SIZE, seen.length + 1)];
        next[0] = new Entry<>(schema, derived);
        System.arraycopy(seen, 0, next, 1, next.length - 1);
        entries = next;
        return derived;
    }
}
