package io.sluice.runtime.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.sluice.connector.postgres.snapshot.TableProgress;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.MemoryOffsetBackingStore;
import org.apache.kafka.connect.storage.OffsetStorageReaderImpl;
import org.apache.kafka.connect.storage.OffsetStorageWriter;
import org.junit.jupiter.api.Test;

/**
 * A table's snapshot offset is found by a later run whatever order the run that stored it gave
 * the partition's entries: Connect keys offsets by the partition serialized in its map's order,
 * and {@code Map.of}'s order changed between JVM starts, so a restarted run missed the stored
 * ranges of an interrupted snapshot and copied its tables again (SluiceKillIT's doubled keyless
 * rows). Offsets are written and read through Connect's own writer, reader and JSON converter.
 */
class TableOffsetKeysTest {

    @Test
    void anOffsetStoredUnderEitherOrderOfThePartitionIsFound() throws Exception {
        for (Map<String, String> storedUnder : List.of(TableProgress.partition("shop", "public.items"),
                TableProgress.legacyPartition("shop", "public.items"))) {
            MemoryOffsetBackingStore store = memory();
            store.start();
            JsonConverter keys = converter(true);
            JsonConverter values = converter(false);
            OffsetStorageWriter writer = new OffsetStorageWriter(store, "sluice-shop", keys, values);
            writer.offset(storedUnder, Map.of("done", "0", "ranges", 1, "pages_per_range", 8));
            assertThat(writer.beginFlush()).isTrue();
            writer.doFlush((error, result) -> { }).get(10, TimeUnit.SECONDS);
            OffsetStorageReaderImpl reader = new OffsetStorageReaderImpl(store, "sluice-shop", keys, values);

            Map<String, Object> found = TableProgress.stored(reader::offset, "shop", "public.items");
            assertThat(found).as("stored under %s", storedUnder.keySet()).containsEntry("done", "0");
            store.stop();
        }
        // The two orders are two keys to Connect: a lookup in one order alone misses an offset stored in the other.
        MemoryOffsetBackingStore store = memory();
        store.start();
        OffsetStorageWriter writer = new OffsetStorageWriter(store, "sluice-shop", converter(true), converter(false));
        writer.offset(TableProgress.legacyPartition("shop", "public.items"), Map.of("done", "0"));
        writer.beginFlush();
        writer.doFlush((error, result) -> { }).get(10, TimeUnit.SECONDS);
        assertThat(new OffsetStorageReaderImpl(store, "sluice-shop", converter(true), converter(false))
                .offset(TableProgress.partition("shop", "public.items"))).isNull();
        assertThat(TableProgress.partition("shop", "public.items").keySet()).containsExactly("server", "table");
    }

    /** Connect's in-memory store, which keeps offsets by their serialized keys as every store does. */
    private static MemoryOffsetBackingStore memory() {
        return new MemoryOffsetBackingStore() {
            @Override
            public Set<Map<String, Object>> connectorPartitions(String connectorName) {
                return Set.of();
            }
        };
    }

    private static JsonConverter converter(boolean isKey) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "false"), isKey);
        return c;
    }
}
