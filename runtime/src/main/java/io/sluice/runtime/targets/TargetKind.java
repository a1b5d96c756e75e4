package io.sluice.runtime.targets;

import java.util.Locale;
import java.util.Map;

/** Which sink a pipeline writes to: said by {@code type:} under {@code target:}, or read from the URL's scheme. */
public enum TargetKind {
    POSTGRES,
    OPENSEARCH,
    /** Webhook subscribers, with an outbox in a state database ({@code state.url}, by default the source database). */
    WEBHOOK;

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
                case "webhook", "webhooks" -> WEBHOOK;
                default -> throw new IllegalArgumentException("target type '" + type + "' is not one Sluice writes to; give type: postgres, "
                        + "type: opensearch or type: webhook");
            };
        }
        String url = target.getOrDefault("url", target.get("connection.url"));
        if (url == null) {
            return POSTGRES; // the PostgreSQL sink's own keys (connection.url is its too) say the rest
        }
        String lower = url.trim().toLowerCase(Locale.ROOT);
        if (lower.equals("webhook") || lower.equals("webhooks")) {
            return WEBHOOK;
        }
        if (lower.startsWith("http://") || lower.startsWith("https://")) {
            return OPENSEARCH;
        }
        if (lower.startsWith("postgres://") || lower.startsWith("postgresql://") || lower.startsWith("jdbc:postgresql:")) {
            return POSTGRES;
        }
        throw new IllegalArgumentException("The target URL must be postgres://user:password@host:5432/database (PostgreSQL), "
                + "https://user:password@host:9200 (OpenSearch), or webhook (webhook subscribers, docs/webhooks.md)");
    }

    /** How the target's URL looks, for messages. */
    public String urlExample() {
        return switch (this) {
            case POSTGRES -> "postgres://user:password@host:port/database";
            case OPENSEARCH -> "https://user:password@host:9200";
            case WEBHOOK -> "webhook";
        };
    }
}
