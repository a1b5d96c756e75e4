package io.sluice.runtime.targets;

import java.util.Locale;
import java.util.Map;

/** Which sink a pipeline writes to: said by {@code type:} under {@code target:}, or read from the URL's scheme. */
public enum TargetKind {
    POSTGRES,
    OPENSEARCH;

    /** The key under {@code target:} that names the kind. */
    public static final String TYPE = "type";

    /**
     * The kind the target keys say: {@code type} when given, else the scheme of {@code url} or
     * {@code connection.url} (postgres:// or postgresql:// is PostgreSQL, http(s):// OpenSearch).
     *
     * @throws IllegalArgumentException naming what to write when neither says
     */
    public static TargetKind of(Map<String, String> target) {
        String type = target.get(TYPE);
        if (type != null) {
            return switch (type.trim().toLowerCase(Locale.ROOT)) {
                case "postgres", "postgresql" -> POSTGRES;
                case "opensearch" -> OPENSEARCH;
                default -> throw new IllegalArgumentException("target type '" + type + "' is not one Sluice writes to; give type: postgres "
                        + "or type: opensearch");
            };
        }
        String url = target.getOrDefault("url", target.get("connection.url"));
        if (url == null) {
            return POSTGRES; // the PostgreSQL sink's own keys (connection.url is its too) say the rest
        }
        String lower = url.trim().toLowerCase(Locale.ROOT);
        if (lower.startsWith("http://") || lower.startsWith("https://")) {
            return OPENSEARCH;
        }
        if (lower.startsWith("postgres://") || lower.startsWith("postgresql://") || lower.startsWith("jdbc:postgresql:")) {
            return POSTGRES;
        }
        throw new IllegalArgumentException("The target URL must be postgres://user:password@host:5432/database (PostgreSQL) or "
                + "https://user:password@host:9200 (OpenSearch)");
    }

    /** How the target's URL looks, for messages. */
    public String urlExample() {
        return this == POSTGRES ? "postgres://user:password@host:port/database" : "https://user:password@host:9200";
    }
}
