package io.sluice.sink.opensearch.mapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import io.sluice.sink.opensearch.OpenSearchSinkConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class MappingOverridesTest {

    @Test
    void theFirstPatternThatMatchesTheTableAndNamesTheColumnWins() {
        MappingOverrides overrides = MappingOverrides.parse("""
                {"public.orders": {"note": {"type": "text", "analyzer": "english"}},
                 "*.*": {"note": {"type": "keyword"}, "email": {"type": "keyword", "normalizer": "lowercase"}},
                 "sales.order*": {"email": {"type": "text"}}}""");
        assertThat(overrides.field("public.orders", "note").path("analyzer").asText()).isEqualTo("english");
        assertThat(overrides.field("sales.orders", "note").path("type").asText()).isEqualTo("keyword");
        assertThat(overrides.field("sales.orders", "email").path("normalizer").asText()).as("*.* comes first").isEqualTo("lowercase");
        assertThat(overrides.field("public.orders", "total")).isNull();
        assertThat(overrides.field("public.orders.x", "note").path("type").asText()).isEqualTo("keyword");
        assertThat(MappingOverrides.parse("").field("public.orders", "note")).isNull();
        // A dot in a pattern is a dot, not any character.
        assertThat(MappingOverrides.parse("{\"a.b\": {\"c\": {\"type\": \"text\"}}}").field("aXb", "c")).isNull();
    }

    @Test
    void badOverridesAndSettingsAreRefusedWithTheKeyAndWhatIsWrong() {
        assertThatThrownBy(() -> MappingOverrides.parse("{\"public.orders\": {\"note\": {\"analyzer\": \"english\"}}}"))
                .hasMessageContaining("public.orders.note").hasMessageContaining("\"type\"");
        assertThatThrownBy(() -> MappingOverrides.parse("[1]")).hasMessageContaining("JSON object");
        assertThatThrownBy(() -> MappingOverrides.parse("{nope")).hasMessageContaining("not JSON");
        Map<String, String> props = Map.of("connection.url", "http://localhost:9200", "mapping.overrides", "{\"t\": 1}",
                "index.settings", "[]");
        var errors = new io.sluice.sink.opensearch.OpenSearchSinkConnector().config().validate(props);
        assertThat(errors.stream().filter(v -> v.name().equals(OpenSearchSinkConfig.MAPPING_OVERRIDES)).findFirst().orElseThrow()
                .errorMessages()).anyMatch(m -> m.contains("must be an object of columns"));
        assertThat(errors.stream().filter(v -> v.name().equals(OpenSearchSinkConfig.INDEX_SETTINGS)).findFirst().orElseThrow()
                .errorMessages()).anyMatch(m -> m.contains("JSON object"));
        assertThatThrownBy(() -> new OpenSearchSinkConfig(props)).isInstanceOf(ConfigException.class);
    }
}
