package io.sluice.runtime.pipeline;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The targets of a pipeline that are detached, kept beside its offsets ({@code <offsets>.detached})
 * so that every later run, and {@code sluice status}, knows them. A detached target is fed nothing
 * and the slot is confirmed without it, so one that stays down cannot fill the source's disk; once
 * it answers again it is fed again and every table is re-synced for it alone, and it stays in the
 * file, as re-syncing, until those re-syncs are done. The file is replaced whole at each change.
 */
final class DetachedTargets {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Where a detached target is: fed nothing, or fed again while its tables are re-synced for it. */
    enum State { DETACHED, RESYNCING }

    /**
     * One target of the file.
     *
     * @param requests the ids of its re-sync requests while re-syncing; empty while detached
     */
    record Entry(String name, State state, Instant since, String why, List<Long> requests) {
    }

    private final Path file;
    private final Map<String, Entry> entries = new LinkedHashMap<>();

    private DetachedTargets(Path file) {
        this.file = file;
    }

    /** The file beside these offsets. */
    static Path fileOf(Path offsets) {
        return offsets.resolveSibling(offsets.getFileName() + ".detached");
    }

    /** The detached targets recorded beside these offsets; none when there is no file. */
    static DetachedTargets at(Path offsets) {
        DetachedTargets d = new DetachedTargets(fileOf(offsets));
        if (!Files.exists(d.file)) {
            return d;
        }
        try {
            JsonNode root = JSON.readTree(d.file.toFile());
            for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode n = e.getValue();
                List<Long> requests = new ArrayList<>();
                n.path("requests").forEach(id -> requests.add(id.asLong()));
                d.entries.put(e.getKey(), new Entry(e.getKey(), State.valueOf(n.path("state").asText("DETACHED").toUpperCase(java.util.Locale.ROOT)),
                        Instant.parse(n.path("since").asText()), n.path("why").asText(""), List.copyOf(requests)));
            }
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("The file of detached targets " + d.file + " cannot be read (" + e.getMessage() + "). It "
                    + "names the targets a pipeline stopped feeding; delete it only after copying those targets again (--fresh)", e);
        }
        return d;
    }

    /** Where the file is. */
    Path path() {
        return file;
    }

    /** The target's entry; null when it is attached. */
    Entry get(String name) {
        return entries.get(name);
    }

    /** Whether the target is fed nothing. */
    boolean detached(String name) {
        Entry e = entries.get(name);
        return e != null && e.state() == State.DETACHED;
    }

    List<Entry> all() {
        return List.copyOf(entries.values());
    }

    /** Records the target as detached, now. */
    void detach(String name, String why, Instant now) {
        entries.put(name, new Entry(name, State.DETACHED, now, why, List.of()));
        write();
    }

    /** Records the target as fed again, waiting for these re-sync requests. */
    void resyncing(String name, List<Long> requests) {
        Entry e = entries.get(name);
        entries.put(name, new Entry(name, State.RESYNCING, e == null ? Instant.now() : e.since(), e == null ? "" : e.why(),
                List.copyOf(requests)));
        write();
    }

    /** The target is whole again: its entry goes. */
    void back(String name) {
        if (entries.remove(name) != null) {
            write();
        }
    }

    private void write() {
        try {
            if (entries.isEmpty()) {
                Files.deleteIfExists(file);
                return;
            }
            ObjectNode root = JSON.createObjectNode();
            for (Entry e : entries.values()) {
                ObjectNode n = root.putObject(e.name());
                n.put("state", e.state().name().toLowerCase(java.util.Locale.ROOT));
                n.put("since", e.since().toString());
                n.put("why", e.why());
                ArrayNode ids = n.putArray("requests");
                e.requests().forEach(ids::add);
            }
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path next = file.resolveSibling(file.getFileName() + ".next");
            Files.write(next, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
            try {
                Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(next, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the file of detached targets " + file + ": " + e.getMessage(), e);
        }
    }
}
