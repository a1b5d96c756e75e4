package io.sluice.runtime.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.runtime.standalone.StandaloneConfig;
import org.apache.kafka.connect.storage.FileOffsetBackingStore;
import org.apache.kafka.connect.storage.OffsetBackingStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded runtime's offsets file: whole commits only, and the same format as Kafka's own file store. */
class OffsetsFileTest {

    @TempDir
    Path dir;

    @Test
    void commitsAreReadBackAndKafkasOwnStoreReadsTheSameFile() throws Exception {
        Path file = dir.resolve("pipeline.offsets");
        OffsetsFile ours = started(new OffsetsFile(), file);
        ours.set(Map.of(key("a"), bytes("offset-1")), null).get();
        ours.set(Map.of(key("a"), bytes("offset-2"), key("b"), bytes("offset-9")), null).get();
        ours.stop();

        JsonConverter keys = new JsonConverter();
        keys.configure(Map.of("schemas.enable", "false"), true);
        FileOffsetBackingStore kafka = started(new FileOffsetBackingStore(keys), file);
        assertThat(kafka.get(List.of(key("a"), key("b"))).get())
                .isEqualTo(Map.of(key("a"), bytes("offset-2"), key("b"), bytes("offset-9")));
        kafka.set(Map.of(key("c"), bytes("offset-3")), null).get();
        kafka.stop();

        OffsetsFile again = started(new OffsetsFile(), file);
        assertThat(again.get(List.of(key("a"), key("c"))).get())
                .isEqualTo(Map.of(key("a"), bytes("offset-2"), key("c"), bytes("offset-3")));
        again.stop();
    }

    @Test
    void aHalfWrittenCommitLeftByAKilledProcessDoesNotHideTheLastWholeOne() throws Exception {
        Path file = dir.resolve("pipeline.offsets");
        OffsetsFile store = started(new OffsetsFile(), file);
        store.set(Map.of(key("a"), bytes("offset-1")), null).get();
        store.stop();
        // What a process killed in the middle of its next commit leaves behind.
        Files.write(dir.resolve("pipeline.offsets.next"), new byte[] {(byte) 0xAC, (byte) 0xED, 0, 5, 's'});

        OffsetsFile restarted = started(new OffsetsFile(), file);
        assertThat(restarted.get(List.of(key("a"))).get()).isEqualTo(Map.of(key("a"), bytes("offset-1")));
        restarted.set(Map.of(key("a"), bytes("offset-2")), null).get();
        restarted.stop();
        assertThat(started(new OffsetsFile(), file).get(List.of(key("a"))).get())
                .isEqualTo(Map.of(key("a"), bytes("offset-2")));
    }

    @Test
    void anUnreadableFileIsReportedByNameWithWhatToDo() throws Exception {
        Path file = dir.resolve("pipeline.offsets");
        Files.writeString(file, "not offsets", StandardCharsets.UTF_8);
        assertThatThrownBy(() -> started(new OffsetsFile(), file)).isInstanceOf(ConnectException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("--fresh");
    }

    private static <S extends OffsetBackingStore> S started(S store, Path file) {
        store.configure(new StandaloneConfig(Map.of("key.converter", JsonConverter.class.getName(), "value.converter",
                JsonConverter.class.getName(), "offset.storage.file.filename", file.toString())));
        store.start();
        return store;
    }

    /** A key as Connect writes it: the connector's name and the source partition, in JSON. */
    private static ByteBuffer key(String server) {
        return bytes("[\"sluice-test\",{\"server\":\"" + server + "\"}]");
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }
}
