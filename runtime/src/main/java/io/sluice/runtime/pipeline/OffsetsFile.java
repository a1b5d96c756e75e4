package io.sluice.runtime.pipeline;

import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.runtime.standalone.StandaloneConfig;
import org.apache.kafka.connect.storage.MemoryOffsetBackingStore;
import org.apache.kafka.connect.util.SafeObjectInputStream;

/**
 * The embedded runtime's offsets, in a local file that a crash cannot leave half written.
 * Kafka's {@code FileOffsetBackingStore} truncates the file and writes it in place, so a
 * process killed in the middle leaves a file that no later run can read; this store writes a
 * new file beside it, forces it to disk and renames it over the old one, so the file always
 * holds one whole commit, the last or the one before. The format is the same serialized map of
 * key and value bytes, so files written by either store are read by both.
 */
public final class OffsetsFile extends MemoryOffsetBackingStore {

    private Path file;

    @Override
    public void configure(WorkerConfig config) {
        super.configure(config);
        file = Path.of(config.getString(StandaloneConfig.OFFSET_STORAGE_FILE_FILENAME_CONFIG)).toAbsolutePath();
    }

    @Override
    public synchronized void start() {
        super.start();
        load();
    }

    private void load() {
        if (!Files.exists(file)) {
            return;
        }
        try (InputStream in = Files.newInputStream(file); SafeObjectInputStream objects = new SafeObjectInputStream(in)) {
            Object read = objects.readObject();
            if (!(read instanceof Map<?, ?> map)) {
                throw new ConnectException("Offsets file " + file + " holds a " + read.getClass().getName() + ", not offsets");
            }
            for (Map.Entry<?, ?> e : map.entrySet()) {
                data.put(e.getKey() == null ? null : ByteBuffer.wrap((byte[]) e.getKey()),
                        e.getValue() == null ? null : ByteBuffer.wrap((byte[]) e.getValue()));
            }
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            throw new ConnectException("Offsets file " + file + " cannot be read (" + e + "). Move it away and run with --fresh to "
                    + "copy again, or restore it from a backup", e);
        }
    }

    @Override
    protected void save() {
        Map<byte[], byte[]> raw = new HashMap<>();
        for (Map.Entry<ByteBuffer, ByteBuffer> e : data.entrySet()) {
            raw.put(e.getKey() == null ? null : e.getKey().array(), e.getValue() == null ? null : e.getValue().array());
        }
        Path next = file.resolveSibling(file.getFileName() + ".next");
        try {
            try (FileChannel channel = FileChannel.open(next, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                OutputStream out = java.nio.channels.Channels.newOutputStream(channel);
                ObjectOutputStream objects = new ObjectOutputStream(out);
                objects.writeObject(raw);
                objects.flush();
                channel.force(true);
            }
            try {
                Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(next, file, StandardCopyOption.REPLACE_EXISTING);
            }
            syncDirectory(file.getParent());
        } catch (IOException e) {
            throw new ConnectException("Writing offsets file " + file + " failed: " + e.getMessage(), e);
        }
    }

    /** Makes the rename itself durable; where a directory cannot be opened for that, the rename stands as it is. */
    private static void syncDirectory(Path directory) {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some file systems refuse to sync a directory; the rename is still atomic there.
        }
    }

    @Override
    public Set<Map<String, Object>> connectorPartitions(String connectorName) {
        // Only Connect's offset management REST API asks, and the embedded runtime has none.
        return Set.of();
    }
}
