package io.sluice.schemas.config;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;

/**
 * Finds config provider placeholders ({@code ${file:/path:key}}) that reached a connector
 * unresolved. A worker resolves them before the connector sees its configuration, but only
 * with a provider of that name in its own properties ({@code config.providers}) and a file
 * and key that exist; otherwise the placeholder itself arrives as the value, and a password
 * of {@code ${file:...}} would be reported as a wrong password.
 */
public final class UnresolvedPlaceholders {

    /** {@code ${provider:[path:]key}}: a provider name, then a colon. Sluice's own templates ({@code ${schema}}) have none. */
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z0-9_.-]+):[^}]*}");

    private UnresolvedPlaceholders() {
    }

    /**
     * Adds an error to every key whose value holds a placeholder, naming the provider and the
     * worker properties that configure it.
     *
     * @return whether any was found (the connector should then not try to connect with the values)
     */
    public static boolean report(Map<String, String> props, Config result) {
        boolean found = false;
        List<ConfigValue> values = result.configValues();
        for (Map.Entry<String, String> e : props.entrySet()) {
            if (e.getValue() == null) {
                continue;
            }
            Matcher m = PLACEHOLDER.matcher(e.getValue());
            if (!m.find()) {
                continue;
            }
            found = true;
            String provider = m.group(1);
            String message = m.group() + " was not resolved: the worker has no config provider named " + provider
                    + ", or it could not read the value. Add to every worker's properties config.providers=" + provider
                    + " and config.providers." + provider + ".class=" + providerClass(provider) + " and restart the workers; "
                    + "check that the file (or variable) and key exist and that the worker's user can read them";
            ConfigValue value = values.stream().filter(v -> v.name().equals(e.getKey())).findFirst().orElse(null);
            if (value == null) {
                value = new ConfigValue(e.getKey());
                values.add(value);
            }
            value.addErrorMessage(message);
        }
        return found;
    }

    private static String providerClass(String provider) {
        return switch (provider) {
            case "env" -> "org.apache.kafka.common.config.provider.EnvVarConfigProvider";
            case "directory", "dir" -> "org.apache.kafka.common.config.provider.DirectoryConfigProvider";
            default -> "org.apache.kafka.common.config.provider.FileConfigProvider";
        };
    }
}
