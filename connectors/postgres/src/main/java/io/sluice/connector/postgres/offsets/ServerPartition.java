package io.sluice.connector.postgres.offsets;

import java.util.Map;

/**
 * The source partition of everything that is about the server rather than one table: the
 * snapshot's end and the stream's changes are stored under it, so its stored offset says where a
 * pipeline is — a snapshot finished, or streaming begun ({@link #STREAMING}).
 */
public final class ServerPartition {

    /** The offset key every streamed record carries: an offset with it means the stream had begun. */
    public static final String STREAMING = "streaming";

    private ServerPartition() {
    }

    /** The partition of a source named by its topic prefix. */
    public static Map<String, String> of(String topicPrefix) {
        return Map.of("server", topicPrefix);
    }
}
