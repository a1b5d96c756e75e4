package io.sluice.sink.opensearch.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.sluice.metrics.SluiceMetrics;

/**
 * The OpenSearch sink's metric families (docs/metrics.md), and one target's data points of them:
 * what became of each bulk item, items refused for now, and requests sent again.
 */
public final class OpenSearchMeters {

    public static final Counter ITEMS = SluiceMetrics.counter("sluice_opensearch_bulk_items_total",
            "Bulk items settled, by result: written; replay (refused as older than the document's version, a change applied "
                    + "before: counted as done); rejected (refused for good, sent to the dead letters)", "target", "result");
    public static final Counter REFUSED_FOR_NOW = SluiceMetrics.counter("sluice_opensearch_refused_for_now_total",
            "Bulk items OpenSearch refused for now (429 and es_rejected_execution, 5xx, a shard unavailable) and that are sent again",
            "target");
    public static final Counter RETRIES = SluiceMetrics.counter("sluice_opensearch_bulk_retries_total",
            "Bulk requests sent again after a refusal for now or a connection failure", "target");

    private final CounterDataPoint written;
    private final CounterDataPoint replays;
    private final CounterDataPoint rejected;
    private final CounterDataPoint refusedForNow;
    private final CounterDataPoint retries;

    public OpenSearchMeters(String target) {
        written = ITEMS.labelValues(target, "written");
        replays = ITEMS.labelValues(target, "replay");
        rejected = ITEMS.labelValues(target, "rejected");
        refusedForNow = REFUSED_FOR_NOW.labelValues(target);
        retries = RETRIES.labelValues(target);
    }

    /** What became of a settled batch's items. */
    public void settled(long writtenItems, long replayedItems, long rejectedItems) {
        written.inc(writtenItems);
        replays.inc(replayedItems);
        rejected.inc(rejectedItems);
    }

    public void refusedForNow(long items) {
        refusedForNow.inc(items);
    }

    public void retried() {
        retries.inc();
    }
}
