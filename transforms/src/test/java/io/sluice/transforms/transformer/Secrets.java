package io.sluice.transforms.transformer;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.connect.data.Schema;

import io.sluice.transforms.rules.RuleParser;

/** Transformers as a rule names them, keyed by a test secret. */
final class Secrets {

    static final String ONE = "a test secret of some length";
    static final String OTHER = "another secret, just as long";

    private Secrets() {
    }

    static Transformer transformer(String secret, String expression) {
        RuleParser.Result parsed = RuleParser.parse("s.t.c = " + expression);
        if (!parsed.problems().isEmpty()) {
            throw new IllegalArgumentException(parsed.problems().toString());
        }
        return new TransformerLibrary(new KeyedDigest(secret.getBytes(StandardCharsets.UTF_8))).create(parsed.rules().get(0).transformer());
    }

    static ColumnRewrite bound(String secret, String expression, Schema schema) {
        return transformer(secret, expression).bind(schema);
    }

    static Object apply(String secret, String expression, Schema schema, Object value) {
        return bound(secret, expression, schema).apply(value, ColumnRewrite.NO_ROW);
    }
}
