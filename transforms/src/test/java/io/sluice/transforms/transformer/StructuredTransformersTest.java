package io.sluice.transforms.transformer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.junit.jupiter.api.Test;

import io.sluice.schemas.mapping.LogicalTypes;

/** The transformers that replace, combine or reach inside values: what each writes, and what each refuses. */
class StructuredTransformersTest {

    private static final Schema TEXT = Schema.OPTIONAL_STRING_SCHEMA;
    private static final Schema DATE = SchemaBuilder.int32().optional().name(LogicalTypes.DATE).build();

    @Test
    void constantsAreParsedAsTheColumnsTypeAndKeepNullUnlessAsked() {
        assertThat(apply("constant(value=42)", Schema.OPTIONAL_INT16_SCHEMA, (short) 7)).isEqualTo((short) 42);
        assertThat(apply("constant(value=2024-02-29)", DATE, 1)).isEqualTo(19782);
        assertThat(apply("constant(value=\"1.5\")", Decimal.builder(2).optional().build(), BigDecimal.ONE)).isEqualTo(new BigDecimal("1.50"));
        assertThat(apply("constant(value=redacted)", TEXT, "secret")).isEqualTo("redacted");
        assertThat(Secrets.bound(Secrets.ONE, "constant(value=x)", TEXT).rewritesNull()).isFalse();
        assertThat(Secrets.bound(Secrets.ONE, "constant(value=x, replace_null=true)", TEXT).rewritesNull()).isTrue();
        assertThatThrownBy(() -> Secrets.bound(Secrets.ONE, "constant(value=70000)", Schema.OPTIONAL_INT16_SCHEMA))
                .hasMessageContaining("constant").hasMessageContaining("does not fit INT16");
        assertThatThrownBy(() -> Secrets.bound(Secrets.ONE, "constant(value=soon)", DATE)).hasMessageContaining("'soon' is not a date value");
    }

    @Test
    void defaultsAndNullFollowTheColumn() {
        assertThat(apply("default", TEXT, "x")).isEqualTo("");
        assertThat(apply("default", Schema.OPTIONAL_INT64_SCHEMA, 5L)).isEqualTo(0L);
        assertThat(apply("default", SchemaBuilder.string().optional().defaultValue("n/a").build(), "x")).isEqualTo("n/a");
        assertThat(apply("default", SchemaBuilder.array(TEXT).optional().build(), List.of("a"))).isEqualTo(List.of());
        assertThat(apply("null", TEXT, "x")).isNull();
        assertThatThrownBy(() -> Secrets.bound(Secrets.ONE, "null", Schema.STRING_SCHEMA)).hasMessageContaining("NOT NULL");
    }

    @Test
    void templatesReadTheRowAndRegexesReplace() {
        ColumnRewrite login = Secrets.bound(Secrets.ONE, "template(text=\"{first}.{last}@{{x}}\")", TEXT);
        Map<String, Object> row = Map.of("first", "ann", "last", "lee");
        assertThat(login.apply("old", row::get)).isEqualTo("ann.lee@{x}");
        assertThat(Secrets.transformer(Secrets.ONE, "template(text=\"{first}.{last}\")").reads()).containsExactly("first", "last");
        assertThatThrownBy(() -> Secrets.transformer(Secrets.ONE, "template(text=\"{first\")")).hasMessageContaining("not closed");
        assertThat(apply("regex(pattern=\"\\\\d\", replacement=\"#\")", TEXT, "call 555-0100")).isEqualTo("call ###-####");
        assertThatThrownBy(() -> Secrets.transformer(Secrets.ONE, "regex(pattern=\"(\")")).hasMessageContaining("not a regular expression");
    }

    @Test
    void jsonPathsHstoreKeysAndArrayElements() {
        Schema json = SchemaBuilder.string().optional().name(LogicalTypes.JSON).build();
        String doc = "{\"a\":{\"email\":\"x@y.org\",\"n\":41},\"tags\":[\"one\",\"two\"],\"keep\":\"me\"}";
        String out = (String) apply("json(\"$.a.email\"=email, \"$.a.n\"=hash(format=integer, min=1, max=9), \"$.tags[*]\"=mask)", json, doc);
        assertThat(out).contains("\"keep\":\"me\"").contains("\"tags\":[\"***\",\"***\"]").doesNotContain("x@y.org")
                .containsPattern("\"email\":\"[a-z]+\\.[a-z]+\\.[0-9]+@example\\.com\"").containsPattern("\"n\":[1-9][,}]");
        assertThat(apply("json(\"$.missing\"=email)", json, "{\"a\":1}")).isEqualTo("{\"a\":1}");
        assertThatThrownBy(() -> Secrets.transformer(Secrets.ONE, "json(\"a.b\"=email)")).hasMessageContaining("must start with $");

        Schema hstore = SchemaBuilder.map(Schema.STRING_SCHEMA, TEXT).optional().build();
        @SuppressWarnings("unchecked")
        Map<String, String> h = (Map<String, String>) apply("hstore(email=email, \"*\"=mask)", hstore,
                new java.util.LinkedHashMap<>(Map.of("email", "x@y.org", "note", "abc")));
        assertThat(h.get("email")).endsWith("@example.com");
        assertThat(h.get("note")).isEqualTo("***");

        Schema nested = SchemaBuilder.array(SchemaBuilder.array(TEXT).optional().build()).optional().build();
        assertThat(apply("array(each=mask)", nested, List.of(List.of("ab"), java.util.Arrays.asList("c", null))))
                .isEqualTo(List.of(List.of("**"), java.util.Arrays.asList("*", null)));
        assertThatThrownBy(() -> Secrets.bound(Secrets.ONE, "array(each=email)", SchemaBuilder.array(Schema.OPTIONAL_INT32_SCHEMA).build()))
                .hasMessageContaining("for the elements").hasMessageContaining("email writes text");
    }

    private static Object apply(String expression, Schema schema, Object value) {
        return Secrets.apply(Secrets.ONE, expression, schema, value);
    }
}
