package io.sluice.transforms.transformer;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * A transformer's parameters as it reads them: each read names the parameter, its default and
 * its limits, and a bad value fails with a message that names the transformer, the parameter
 * and what would do. Parameters nobody read are misspelt: {@link #done()} names them.
 */
public final class Params {

    private final TransformerSpec spec;
    private final Set<String> read = new LinkedHashSet<>();

    public Params(TransformerSpec spec) {
        this.spec = spec;
    }

    public String transformer() {
        return spec.name();
    }

    public boolean has(String key) {
        return spec.params().containsKey(key);
    }

    public String text(String key, String fallback) {
        Object value = value(key);
        if (value == null) {
            return fallback;
        }
        if (value instanceof String s) {
            return s;
        }
        throw error(key, "takes text, not a transformer (" + value + ")");
    }

    public String requiredText(String key) {
        String value = text(key, null);
        if (value == null) {
            throw new IllegalArgumentException(spec.name() + " needs the parameter " + key);
        }
        return value;
    }

    public long number(String key, long fallback, long min, long max) {
        String text = text(key, null);
        if (text == null) {
            return fallback;
        }
        long n;
        try {
            n = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw error(key, "must be a whole number, not '" + text + "'");
        }
        if (n < min || n > max) {
            throw error(key, "must be between " + min + " and " + max + ", not " + n);
        }
        return n;
    }

    public int integer(String key, int fallback, int min, int max) {
        return (int) number(key, fallback, min, max);
    }

    public double decimal(String key, double fallback, double min, double max) {
        String text = text(key, null);
        if (text == null) {
            return fallback;
        }
        double d;
        try {
            d = Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw error(key, "must be a number, not '" + text + "'");
        }
        if (!(d >= min && d <= max)) {
            throw error(key, "must be between " + min + " and " + max + ", not " + text);
        }
        return d;
    }

    public boolean flag(String key, boolean fallback) {
        String text = text(key, null);
        if (text == null) {
            return fallback;
        }
        return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw error(key, "must be true or false, not '" + text + "'");
        };
    }

    public <E extends Enum<E>> E choice(String key, E fallback) {
        String text = text(key, null);
        if (text == null) {
            return fallback;
        }
        for (E e : fallback.getDeclaringClass().getEnumConstants()) {
            if (e.name().equalsIgnoreCase(text.trim())) {
                return e;
            }
        }
        throw error(key, "must be one of " + java.util.Arrays.stream(fallback.getDeclaringClass().getEnumConstants())
                .map(e -> e.name().toLowerCase(java.util.Locale.ROOT)).toList() + ", not '" + text + "'");
    }

    /** A transformer given as a parameter's value; a bare name counts as one. */
    public TransformerSpec transformer(String key) {
        Object value = value(key);
        if (value == null) {
            throw new IllegalArgumentException(spec.name() + " needs the parameter " + key + " naming a transformer");
        }
        return value instanceof TransformerSpec t ? t : TransformerSpec.of((String) value);
    }

    /** Every parameter as a transformer, by name: for those whose parameter names are paths or keys. */
    public Map<String, TransformerSpec> transformers() {
        Map<String, TransformerSpec> all = new LinkedHashMap<>();
        for (String key : spec.params().keySet()) {
            all.put(key, transformer(key));
        }
        if (all.isEmpty()) {
            throw new IllegalArgumentException(spec.name() + " needs at least one parameter: where = which transformer");
        }
        return all;
    }

    /** Fails when a parameter was given that the transformer does not take. */
    public void done() {
        Set<String> unknown = new LinkedHashSet<>(spec.params().keySet());
        unknown.removeAll(read);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(spec.name() + " has no parameter " + String.join(", ", unknown)
                    + (read.isEmpty() ? "; it takes none" : "; it takes " + String.join(", ", read)));
        }
    }

    private Object value(String key) {
        read.add(key);
        return spec.params().get(key);
    }

    private IllegalArgumentException error(String key, String problem) {
        return new IllegalArgumentException(spec.name() + ": " + key + " " + problem);
    }
}
