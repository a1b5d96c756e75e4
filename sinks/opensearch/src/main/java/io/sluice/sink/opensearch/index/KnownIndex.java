package io.sluice.sink.opensearch.index;

import java.util.Map;

import org.apache.kafka.connect.data.Schema;

/** What the sink knows of one physical index of an alias, kept so that a row bringing nothing new costs no request. */
final class KnownIndex {

    final String physical;
    /** Field name to its mapped type. */
    final Map<String, String> fields;
    /** The last row schema seen to be mapped (schemas are shared by records, so identity is the fast check). */
    Schema mapped;
    /**
     * The external version of the schema change a rebuilt version was begun for (0 for a first
     * version): its copy holds every row as it stood after that change.
     */
    final long origin;
    /** The copy into the stream the version is built from (its start time at the source); 0 when none or not known. */
    long copy;
    /** A newer version being built from a copy of the table, which every write goes to until the alias moves to it; null when none. */
    KnownIndex rebuild;

    KnownIndex(String physical, Map<String, String> fields, long origin, long copy) {
        this.physical = physical;
        this.fields = fields;
        this.origin = origin;
        this.copy = copy;
    }

    /** The version writes go to: the rebuild's while one is under way. */
    KnownIndex writeTarget() {
        return rebuild != null ? rebuild : this;
    }
}
