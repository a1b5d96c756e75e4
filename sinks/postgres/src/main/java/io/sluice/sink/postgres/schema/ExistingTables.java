package io.sluice.sink.postgres.schema;

/** What the sink does when a table the snapshot loads already exists on the target. */
public enum ExistingTables {
    /** Stop before changing anything, naming the tables. */
    FAIL,
    /** Empty them, then load. */
    TRUNCATE,
    /** Load into them as they are. */
    APPEND
}
