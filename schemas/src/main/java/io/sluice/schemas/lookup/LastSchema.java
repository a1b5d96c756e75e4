package io.sluice.schemas.lookup;

import java.util.function.Function;

import org.apache.kafka.connect.data.Schema;

/**
 * What was derived from the schema seen last (its fields, whether it is some other schema),
 * derived again only when another schema object comes. Records come in runs of one table whose
 * schema object is reused record after record, so one entry, compared by identity, spares a
 * lookup by name or a deep comparison per record. Safe to share between threads: the entry is
 * replaced whole.
 *
 * @param <T> what is derived
 */
public final class LastSchema<T> {

    private record Entry<T>(Schema schema, T derived) {
    }

    private final Function<Schema, T> derive;
    private volatile Entry<T> last;

    /** @param derive what to derive from a schema (null included, when records may have none) */
    public LastSchema(Function<Schema, T> derive) {
        this.derive = derive;
    }

    public T of(Schema schema) {
        Entry<T> entry = last;
        if (entry == null || entry.schema() != schema) {
            entry = new Entry<>(schema, derive.apply(schema));
            last = entry;
        }
        return entry.derived();
    }
}
