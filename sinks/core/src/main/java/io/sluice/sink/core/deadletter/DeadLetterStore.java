package io.sluice.sink.core.deadletter;

import org.apache.kafka.connect.sink.ErrantRecordReporter;

/**
 * Where records a sink cannot apply are kept when there is no Kafka Connect dead-letter queue
 * (the {@code sluice} command): a reporter that says where they went, so that what is logged
 * about them tells the user where to read them. A record is kept durably before the report's
 * future completes.
 */
public interface DeadLetterStore extends ErrantRecordReporter, AutoCloseable {

    /** Where the records are, as the user finds them (e.g. the table and database). */
    String where();

    /** Records kept by this store since it was made. */
    long kept();

    /** Lets go of what the store holds open (a connection); records already kept stay. */
    @Override
    default void close() {
    }
}
