package io.sluice.schemas.envelope;

/** Record headers Sluice's sources set and its sinks read. */
public final class EventHeaders {

    /**
     * On the rows of a resumed snapshot (value {@code true}). Some of them may already be in
     * the target, read before the interruption but not yet confirmed, so a sink must upsert
     * them rather than insert.
     */
    public static final String SNAPSHOT_RESUMED = "sluice.snapshot.resumed";

    private EventHeaders() {
    }
}
