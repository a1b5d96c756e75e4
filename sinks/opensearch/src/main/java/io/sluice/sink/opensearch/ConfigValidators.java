package io.sluice.sink.opensearch;

import java.net.URI;
import java.util.function.Consumer;

import io.sluice.sink.opensearch.client.ClusterAddress;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** Validators of the OpenSearch sink's keys, so that validation reports every bad key with what is wrong. */
final class ConfigValidators {

    private ConfigValidators() {
    }

    /**
     * A key holding JSON that {@code parse} reads (blank for none); what it throws as an
     * {@link IllegalArgumentException} becomes the key's error.
     */
    static ConfigDef.Validator json(Consumer<String> parse, String description) {
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                if (value == null || value.toString().isBlank()) {
                    return;
                }
                try {
                    parse.accept(value.toString());
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(name, value, e.getMessage());
                }
            }

            @Override
            public String toString() {
                return description;
            }
        };
    }

    /** Accepts http(s) URLs with a host, one or several separated by commas. */
    static final class Urls implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null) {
                return; // reported as missing
            }
            for (String one : value.toString().split(",")) {
                String url = one.trim();
                URI uri;
                try {
                    uri = URI.create(url);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(name, ClusterAddress.withoutSecrets(url), "not a URL");
                }
                if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https")) || uri.getHost() == null) {
                    throw new ConfigException(name, ClusterAddress.withoutSecrets(url), "give http://host:port or https://host:port");
                }
            }
        }

        @Override
        public String toString() {
            return "http(s)://host:port[,...]";
        }
    }
}
