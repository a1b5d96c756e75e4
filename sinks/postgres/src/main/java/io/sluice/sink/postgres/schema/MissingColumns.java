package io.sluice.sink.postgres.schema;

import java.util.List;
import java.util.function.BiConsumer;

import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds to a target table, nullable, the columns incoming rows carry and it lacks (the source
 * added them while its DDL was not captured), unless the user keeps the target's schema.
 */
public final class MissingColumns {

    private static final Logger LOG = LoggerFactory.getLogger(MissingColumns.class);

    private final TargetTables tables;
    private final boolean enabled;
    private final BiConsumer<String, String> execute;
    private final Runnable added;

    /**
     * @param enabled whether the sink applies schema changes
     * @param execute runs a statement on the target: the SQL, and what it does (for the error when it fails)
     * @param added   told after columns were added, for what was checked of the target's columns to be checked again
     */
    public MissingColumns(TargetTables tables, boolean enabled, BiConsumer<String, String> execute, Runnable added) {
        this.tables = tables;
        this.enabled = enabled;
        this.execute = execute;
        this.added = added;
    }

    /** Adds the columns of the rows' schema the target table lacks, if any. */
    public void add(String[] target, Schema rowSchema) {
        if (!enabled) {
            return;
        }
        List<Field> missing = AddedColumns.missing(rowSchema, tables.columns(target[0], target[1]));
        if (missing.isEmpty()) {
            return;
        }
        String name = tables.name(target);
        String described = AddedColumns.describe(missing);
        execute.accept(AddedColumns.sql(target[0], target[1], missing), "Adding columns " + described + " to " + name);
        LOG.warn("Added {} to {}: the incoming rows carry them and the target had none (the source added them while its DDL was "
                + "not captured). They are nullable and have no default; rows the source has not changed since hold NULL there "
                + "whatever the source's default. Capture DDL (ddl.capture) for defaults, constraints and types exactly as the "
                + "source has them.", described, name);
        tables.invalidate();
        added.run();
    }
}
