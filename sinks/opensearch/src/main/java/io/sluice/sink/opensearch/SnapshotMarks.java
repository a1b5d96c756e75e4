package io.sluice.sink.opensearch;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.sluice.schemas.naming.Identifiers;
import io.sluice.sink.core.routing.SinkEvent;
import io.sluice.sink.opensearch.index.IndexNames;
import io.sluice.sink.opensearch.index.Indexes;
import io.sluice.sink.opensearch.state.SnapshotDocuments;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * What a snapshot's first and last events do to the indexes. At the first: an index that
 * exists already is made again (an unfinished snapshot of the same source made it, or
 * {@code table.exists=truncate}), kept ({@code append}) or refused ({@code fail}), and the state
 * index records the snapshot as started. At the last, once every row is indexed: the snapshot is
 * recorded as finished, with the indexes it filled.
 */
final class SnapshotMarks {

    private final OpenSearchSinkConfig config;
    private final Indexes indexes;
    private final IndexNames names;
    private final SnapshotDocuments records;

    SnapshotMarks(OpenSearchSinkConfig config, Indexes indexes, SnapshotDocuments records) {
        this.config = config;
        this.indexes = indexes;
        this.names = new IndexNames(config.indexNameFormat());
        this.records = records;
    }

    /**
     * A snapshot's first event (sent once, not again when the snapshot resumes).
     *
     * @throws ConnectException when an index exists and {@code table.exists=fail}
     */
    void started(SinkEvent event) {
        Struct source = event.source();
        String name = source.getString("name");
        List<String> tables = sourceTables(event);
        List<String> aliases = aliases(name, tables);
        Optional<SnapshotDocuments.Snapshot> earlier = records.read(name);
        List<String> unfinished = earlier.filter(s -> !s.finished()).map(SnapshotDocuments.Snapshot::aliases).orElse(List.of());
        List<String> existing = new ArrayList<>();
        for (String alias : aliases) {
            if (indexes.exists(alias)) {
                existing.add(alias);
            }
        }
        List<String> refused = existing.stream().filter(a -> !unfinished.contains(a)).toList();
        if (!refused.isEmpty() && config.existingIndexes() == OpenSearchSinkConfig.ExistingIndexes.FAIL) {
            throw new ConnectException("The snapshot of " + name + " would index into " + refused.size() + " index(es) that exist already: "
                    + String.join(", ", refused.subList(0, Math.min(5, refused.size()))) + (refused.size() > 5 ? ", …" : "") + ". Set "
                    + OpenSearchSinkConfig.TABLE_EXISTS + "=truncate (sluice: --table-exists truncate) to make them again with exactly "
                    + "the snapshot's rows, or append to keep their documents, or delete them, or choose other names with "
                    + OpenSearchSinkConfig.INDEX_NAME_FORMAT);
        }
        for (String alias : existing) {
            if (unfinished.contains(alias) || config.existingIndexes() == OpenSearchSinkConfig.ExistingIndexes.TRUNCATE) {
                indexes.dropAll(alias);
            }
        }
        records.started(name, source.getString("db"), micros(source), tables, aliases);
    }

    /** A snapshot's last event, once every row before it is indexed. */
    void finished(SinkEvent event) {
        Struct source = event.source();
        String name = source.getString("name");
        List<String> tables = sourceTables(event);
        List<String> aliases = aliases(name, tables);
        List<String> filledTables = new ArrayList<>();
        List<String> filled = new ArrayList<>();
        for (int i = 0; i < tables.size(); i++) {
            if (indexes.exists(aliases.get(i))) {
                filledTables.add(tables.get(i));
                filled.add(aliases.get(i));
            }
        }
        records.finished(name, source.getString("db"), micros(source), filledTables, filled);
    }

    /** The source tables a first or last event lists, as {@code schema.table}. */
    private static List<String> sourceTables(SinkEvent event) {
        List<String> tables = new ArrayList<>();
        for (Struct change : event.value().<Struct>getArray("tableChanges")) {
            String[] t = Identifiers.unquoteQualified(change.getString("id"));
            tables.add(t[0] + "." + t[1]);
        }
        return tables;
    }

    /** The aliases of the tables, named as for their rows (with the source's own topic names for ${topic}). */
    private List<String> aliases(String sourceName, List<String> tables) {
        List<String> aliases = new ArrayList<>();
        for (String table : tables) {
            int dot = table.indexOf('.');
            aliases.add(names.aliasOf(sourceName, table.substring(0, dot), table.substring(dot + 1)));
        }
        return aliases;
    }

    private static long micros(Struct source) {
        Long micros = source.schema().field("ts_us") != null ? source.getInt64("ts_us") : null;
        return micros != null ? micros : source.getInt64("ts_ms") * 1000L;
    }
}
