package io.sluice.schemas.naming;

/**
 * Kafka topic names for change events: {@code <prefix>.<schema>.<table>} for rows and
 * {@code <prefix>.schema-changes} for DDL, {@code <prefix>.sequences} for sequence values. Characters Kafka does not allow in a topic name
 * become {@code _}, as Debezium does.
 */
public final class TopicNames {

    private static final int MAX_LENGTH = 249;

    private TopicNames() {
    }

    public static String forTable(String prefix, String schema, String table) {
        return sanitize(prefix + "." + schema + "." + table);
    }

    public static String forSchemaChanges(String prefix) {
        return sanitize(prefix + ".schema-changes");
    }

    /** The topic of a source's sequence values ({@code envelope.SequenceEvents}). */
    public static String forSequences(String prefix) {
        return sanitize(prefix + ".sequences");
    }

    /** The topic of a source's heartbeats ({@link io.sluice.schemas.envelope.Heartbeats}). */
    public static String forHeartbeats(String prefix) {
        return sanitize(prefix + ".heartbeats");
    }

    /** Replaces every character outside {@code [a-zA-Z0-9._-]}; fails on names Kafka would refuse outright. */
    public static String sanitize(String name) {
        StringBuilder s = new StringBuilder(name.length());
        for (char c : name.toCharArray()) {
            boolean legal = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-';
            s.append(legal ? c : '_');
        }
        String topic = s.toString();
        if (topic.isEmpty() || topic.equals(".") || topic.equals("..") || topic.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("\"" + name + "\" cannot be a Kafka topic name (1 to " + MAX_LENGTH
                    + " characters, not . or ..); choose a shorter topic prefix or route the table to another topic");
        }
        return topic;
    }
}
