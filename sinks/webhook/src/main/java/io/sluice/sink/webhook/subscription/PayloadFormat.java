package io.sluice.sink.webhook.subscription;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How a delivery's body holds its changes. */
public enum PayloadFormat {
    /** The change as Sluice's JSON ({@code application/json}); a batch is a JSON array of them. */
    JSON("json"),
    /** A CloudEvents 1.0 event in structured mode ({@code application/cloudevents+json}); a batch is a CloudEvents batch. */
    CLOUDEVENTS("cloudevents"),
    /** CloudEvents 1.0 in binary mode: the attributes as {@code ce-} headers, the change as the body. No batches. */
    CLOUDEVENTS_BINARY("cloudevents-binary");

    private final String key;

    PayloadFormat(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }

    public static PayloadFormat of(String key) {
        for (PayloadFormat f : values()) {
            if (f.key.equals(key.trim().toLowerCase(Locale.ROOT))) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown payload format '" + key + "'; use one of " + keys());
    }

    public static String keys() {
        return Arrays.stream(values()).map(PayloadFormat::key).collect(Collectors.joining(", "));
    }
}
