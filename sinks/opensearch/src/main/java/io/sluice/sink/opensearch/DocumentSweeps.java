package io.sluice.sink.opensearch;

import java.util.Optional;

import io.sluice.schemas.envelope.KeyRanges;
import io.sluice.sink.core.position.SourcePosition;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.opensearch.bulk.BulkBatch;
import io.sluice.sink.opensearch.bulk.BulkQueue;
import io.sluice.sink.opensearch.bulk.ExternalVersion;
import io.sluice.sink.opensearch.index.Indexes;
import io.sluice.sink.opensearch.index.KeyRangeQuery;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * Deletes the documents of an index a query finds (every one for a truncation, those of a
 * re-synced chunk's range it does not keep), in bulk requests of their own, each delete carrying
 * the version of the event's position: a document written by a later change has a higher
 * version and stays.
 */
final class DocumentSweeps {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DocumentSweeps.class);

    private final Indexes indexes;
    private final BulkQueue queue;
    private final int pageSize;
    /** Tables whose key ranges could not be swept, said once each. */
    private final java.util.Set<String> rangesSaid = new java.util.HashSet<>();

    DocumentSweeps(Indexes indexes, BulkQueue queue, int bulkDocuments) {
        this.indexes = indexes;
        this.queue = queue;
        this.pageSize = Math.min(bulkDocuments, 5_000);
    }

    /**
     * The end of a re-synced chunk: the documents of its key range that it does not keep (rows the
     * source does not have) are deleted. For keys of integer columns only ({@link KeyRangeQuery});
     * for others the documents stay, which is said once per table.
     */
    void keyRange(SinkEvent event, String alias, String index) throws InterruptedException {
        Struct value = event.value();
        Schema keySchema = value.schema().field(KeyRanges.KEYS).schema().valueSchema();
        Optional<String> query = KeyRangeQuery.of(KeyRanges.from(value), KeyRanges.to(value), KeyRanges.keys(value), keySchema);
        String table = event.table();
        if (query.isEmpty()) {
            if (rangesSaid.add(table)) {
                LOG.info("{} is being re-synced: its rows are written again, but documents of keys the source does not have (added to "
                        + "the index behind Sluice's back) stay in it: the key is not made of integer columns, which alone the index "
                        + "orders as the source does (docs/streaming.md)", table);
            }
            return;
        }
        long deleted = delete(event, index, table, query.get());
        if (deleted > 0) {
            LOG.info("Re-sync of {}: deleted {} documents of {} the source does not have", table, deleted, alias);
        }
    }

    /**
     * Deletes the documents of {@code index} the query (JSON; null for every one) matches; how
     * many were asked to go. Everything written before must be written already.
     */
    long delete(SinkEvent event, String index, String table, String query) throws InterruptedException {
        SourcePosition position = event.position();
        ExternalVersion version = position == null ? ExternalVersion.SNAPSHOT : ExternalVersion.of(position);
        long[] deleted = {0};
        Indexes.IdPages pages = query == null ? (page -> indexes.eachId(index, pageSize, page))
                : (page -> indexes.eachId(index, pageSize, query, page));
        pages.each(ids -> {
            BulkBatch deletes = queue.separateBatch();
            for (String id : ids) {
                deletes.delete(event.record(), table, index, id, position, version);
            }
            queue.sendAndSettle(deletes);
            deleted[0] += ids.size();
        });
        return deleted[0];
    }
}
