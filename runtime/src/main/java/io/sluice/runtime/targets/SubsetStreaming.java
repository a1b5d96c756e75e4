package io.sluice.runtime.targets;

import java.util.List;
import java.util.Map;

/**
 * A staging subset's streamed changes are judged against the target's rows by the PostgreSQL
 * sink alone: another target takes a subset by a snapshot alone.
 */
final class SubsetStreaming {

    private SubsetStreaming() {
    }

    /** The subset keys a target of this kind cannot stream, as one problem; empty when there is none. */
    static List<String> problems(Map<String, String> sourceKeys, String targetKind) {
        List<String> keys = sourceKeys.keySet().stream().filter(k -> k.startsWith("subset.")).sorted().toList();
        if (keys.isEmpty() || "initial_only".equalsIgnoreCase(sourceKeys.get("snapshot.mode"))) {
            return List.of();
        }
        return List.of(String.join(", ", keys) + ": a staging subset's changes are streamed into PostgreSQL targets only (they are "
                + "judged against the target's rows); into " + targetKind + " take the subset by a snapshot alone (sluice snapshot)");
    }
}
