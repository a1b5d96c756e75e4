package io.sluice.sink.opensearch.bulk;

import java.util.List;

/**
 * What became of a batch once every item is settled: written, refused as older than the
 * document's version (a replay: success), or refused for good with the reason.
 */
public record BulkOutcome(int written, int olderThanStored, List<Rejected> rejected) {

    /** An item OpenSearch will not take as it is (a mapping or parsing error). */
    public record Rejected(BulkItem item, String reason) {
    }
}
