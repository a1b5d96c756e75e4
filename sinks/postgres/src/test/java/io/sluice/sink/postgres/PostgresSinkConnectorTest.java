package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.testing.kafka.ConfigErrors;
import org.junit.jupiter.api.Test;

/** The sink's validation of what needs no database: every error at once, before it tries to connect. */
class PostgresSinkConnectorTest {

    private static Map<String, List<String>> errors(Map<String, String> props) {
        return ConfigErrors.byKey(new PostgresSinkConnector().validate(props));
    }

    @Test
    void anUnresolvedSecretIsNamedAsAPlaceholderNotAsAWrongPassword() {
        Map<String, String> props = new HashMap<>(Map.of(
                "connection.url", "postgres://127.0.0.1:1/shop_copy",
                "connection.password", "${file:/etc/connect/secrets.properties:target.password}",
                "schema.mismatch.action", "skip"));
        Map<String, List<String>> errors = errors(props);
        assertThat(errors).containsOnlyKeys("connection.password", "schema.mismatch.action");
        assertThat(errors.get("connection.password")).singleElement().asString()
                .contains("${file:/etc/connect/secrets.properties:target.password} was not resolved").contains("config.providers=file");
        assertThat(errors.get("schema.mismatch.action")).singleElement().asString().containsIgnoringCase("fail").containsIgnoringCase("dead_letter");
    }

    @Test
    void sluiceTemplatesAreNotPlaceholders() {
        Map<String, String> props = new HashMap<>(Map.of("connection.url", "postgres://127.0.0.1:1/shop_copy",
                "table.name.format", "archive.${schema}_${table}", "schema.mismatch.action", "DEAD_LETTER"));
        assertThat(errors(props)).as("only the unreachable server").containsOnlyKeys("connection.url");
    }
}
