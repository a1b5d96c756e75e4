package io.sluice.sink.webhook;

import java.util.List;
import java.util.function.Predicate;

/**
 * How the webhook sink asks the source for a subscription's backfill: a re-sync of the
 * subscription's tables whose rows reach that subscription alone. The {@code sluice} command,
 * which holds the source, gives one; on a Kafka Connect cluster the sink holds no source, and a
 * backfill is asked for with an {@code INSERT} into the source's signal table (docs/webhooks.md).
 */
@FunctionalInterface
public interface BackfillRequests {

    /**
     * Asks the source to re-sync, for {@code subscription} alone, every table it streams that
     * {@code wants} takes (by the {@code schema.table} name its events carry).
     *
     * @return the tables asked for; empty when the source streams none the subscription takes
     * @throws Exception when the source could not be asked; the message says why
     */
    List<String> request(String subscription, Predicate<String> wants) throws Exception;
}
