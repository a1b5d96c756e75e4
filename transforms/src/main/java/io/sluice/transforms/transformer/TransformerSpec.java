package io.sluice.transforms.transformer;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A transformer as a rule names it: {@code mask(keep_last=4, char="#")}. A parameter's value is
 * text, or another transformer for those that apply one inside a value
 * ({@code json("$.email"=email)}, {@code array(each=mask)}).
 */
public record TransformerSpec(String name, Map<String, Object> params) {

    public TransformerSpec {
        params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
        for (Object value : params.values()) {
            if (!(value instanceof String) && !(value instanceof TransformerSpec)) {
                throw new IllegalArgumentException("A parameter is text or a transformer, not " + value);
            }
        }
    }

    public static TransformerSpec of(String name) {
        return new TransformerSpec(name, Map.of());
    }

    /** As a rule would write it. */
    @Override
    public String toString() {
        if (params.isEmpty()) {
            return name;
        }
        return name + params.entrySet().stream()
                .map(e -> quoteIfNeeded(e.getKey()) + "=" + (e.getValue() instanceof String s ? quoteIfNeeded(s) : e.getValue()))
                .collect(Collectors.joining(", ", "(", ")"));
    }

    private static String quoteIfNeeded(String text) {
        return text.matches("[A-Za-z0-9_.+-]+") ? text : '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
