package io.sluice.schemas.mapping;

import org.apache.kafka.connect.errors.DataException;

/**
 * A valid row the target cannot take as its table is now: a column it lacks, or a value its
 * column's type cannot hold. Unlike a malformed record, the record is not at fault but the
 * target's schema is behind (or apart from) the source's, so a sink stops on it rather than
 * dropping a good change into a dead-letter queue.
 */
public class ColumnMismatch extends DataException {

    public ColumnMismatch(String message) {
        super(message);
    }

    public ColumnMismatch(String message, Throwable cause) {
        super(message, cause);
    }
}
