package io.sluice.connector.postgres.replication;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.sluice.connector.postgres.resync.ChangedKeys;
import io.sluice.connector.postgres.resync.ChunkRead;
import io.sluice.connector.postgres.resync.KeyValues;
import io.sluice.connector.postgres.resync.SignalTable;
import org.apache.kafka.connect.data.Struct;

/**
 * A re-sync request being worked on by {@link StreamResyncs}: where it is (its part, the key
 * copied through, the repair's keys handed out), and what each of its chunks hands out at its
 * watermark. Owned by the stream reader.
 */
final class ResyncJob {

    final SignalTable.Request request;
    final List<ResyncParts.Part> parts;
    int part;
    StreamTable table;
    ChunkRead.Shape shape;
    List<String> keyColumns;
    List<String> keyOrder;
    String[] afterKey;
    Struct fromKey;
    long rows;
    long chunks;
    final long startedNanos = System.nanoTime();
    /** A repair's keys (texts per key column); null to re-sync the whole table. */
    final List<String[]> keys;
    /** How many of {@link #keys} were handed out, and how many the chunk in flight holds. */
    int keysDone;
    int keysInFlight;

    ResyncJob(SignalTable.Request request, List<ResyncParts.Part> parts) {
        this.request = request;
        this.parts = parts;
        this.keys = request.keys() == null ? null : Arrays.asList(request.keys());
    }

    /**
     * A chunk of the table's walk by key: the rows the stream does not carry newer changes of, and
     * the chunk's key range with every key in it the source has (those rows and the stream's), so
     * the targets drop the rest of the range.
     */
    StreamResyncs.Chunk ranged(ChunkRead.Chunk chunk, ChangedKeys.Unseen unseen) {
        List<Struct> rows = new ArrayList<>(chunk.rows().size());
        List<String[]> texts = new ArrayList<>(chunk.rows().size());
        List<Struct> keep = new ArrayList<>(chunk.rows().size() + unseen.keys().size());
        Struct last = null;
        for (String[] values : chunk.rows()) {
            Struct row = RowImages.copied(table, values);
            last = table.schema().key(row);
            keep.add(last);
            if (!unseen.keys().contains(KeyValues.of(row, keyColumns))) {
                rows.add(row);
                texts.add(values);
            }
        }
        for (KeyValues key : unseen.keys()) {
            keep.add(ResyncParts.keyStruct(table, key));
        }
        Struct to = chunk.complete() ? null : last;
        StreamResyncs.Chunk out = new StreamResyncs.Chunk(table, rows, texts, fromKey, to, keep, keyOrder, request.subscription(), true,
                List.of());
        fromKey = to;
        String[] lastKey = chunk.lastKey(shape);
        if (lastKey != null) {
            afterKey = lastKey;
        }
        this.rows += rows.size();
        chunks++;
        return out;
    }

    /**
     * A repair's chunk of given keys: the rows found of them, but for those the stream changed
     * since the chunk's snapshot (the stream's are newer), and a delete of each key the source
     * lacks that the stream did not bring back.
     */
    StreamResyncs.Chunk repaired(ChunkRead.Chunk chunk, ChangedKeys.Unseen unseen) {
        List<Struct> rows = new ArrayList<>(chunk.rows().size());
        List<String[]> texts = new ArrayList<>(chunk.rows().size());
        Set<KeyValues> found = new HashSet<>();
        for (String[] values : chunk.rows()) {
            Struct row = RowImages.copied(table, values);
            KeyValues key = KeyValues.of(row, keyColumns);
            found.add(key);
            if (!unseen.keys().contains(key)) {
                rows.add(row);
                texts.add(values);
            }
        }
        List<Struct> deletes = new ArrayList<>();
        for (String[] key : keys.subList(keysDone, keysDone + keysInFlight)) {
            String[] values = new String[table.columns().size()];
            for (int i = 0; i < key.length; i++) {
                values[shape.keys()[i]] = key[i];
            }
            Struct row = RowImages.copied(table, values);
            KeyValues k = KeyValues.of(row, keyColumns);
            if (!found.contains(k) && !unseen.keys().contains(k)) {
                deletes.add(row);
            }
        }
        keysDone += keysInFlight;
        keysInFlight = 0;
        this.rows += rows.size() + deletes.size();
        chunks++;
        return new StreamResyncs.Chunk(table, rows, texts, null, null, List.of(), keyOrder, request.subscription(), false, deletes);
    }
}
