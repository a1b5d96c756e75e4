package io.sluice.connector.postgres.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.sluice.connector.postgres.pgoutput.PgOutputMessage;

/** Counts what the stream decodes: row changes by operation, and transactions (their commits). */
public final class DecodedCounts {

    private final CounterDataPoint inserts;
    private final CounterDataPoint updates;
    private final CounterDataPoint deletes;
    private final CounterDataPoint truncates;
    private final CounterDataPoint transactions;

    public DecodedCounts(String pipeline) {
        inserts = SourceMeters.CHANGES.labelValues(pipeline, "insert");
        updates = SourceMeters.CHANGES.labelValues(pipeline, "update");
        deletes = SourceMeters.CHANGES.labelValues(pipeline, "delete");
        truncates = SourceMeters.CHANGES.labelValues(pipeline, "truncate");
        transactions = SourceMeters.TRANSACTIONS.labelValues(pipeline);
    }

    public void count(PgOutputMessage message) {
        if (message instanceof PgOutputMessage.Insert) {
            inserts.inc();
        } else if (message instanceof PgOutputMessage.Update) {
            updates.inc();
        } else if (message instanceof PgOutputMessage.Delete) {
            deletes.inc();
        } else if (message instanceof PgOutputMessage.Truncate) {
            truncates.inc();
        } else if (message instanceof PgOutputMessage.Commit) {
            transactions.inc();
        }
    }
}
