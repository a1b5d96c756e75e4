package io.sluice.transforms.anonymize;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.sluice.testing.kafka.ConnectCluster;
import io.sluice.testing.kafka.ConnectorConfigs;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import io.sluice.transforms.rules.RuleParser;
import io.sluice.transforms.transformer.ColumnRewrite;
import io.sluice.transforms.transformer.KeyedDigest;
import io.sluice.transforms.transformer.TransformerLibrary;

/**
 * The transform on Kafka Connect's own transformation chain: Sluice's source connector on a
 * real worker with Anonymize configured as a Connect user would, its records read back from
 * the Kafka topic. The outputs are exactly what the same rules and secret give anywhere else,
 * and Connect's validate call reports bad rules through the transform's ConfigDef.
 */
@ExtendWith(PostgresExtension.class)
class AnonymizeOnConnectIT {

    private static final String SECRET = "the secret both runtimes share";
    private static final String RULES = """
            public.customers.id = keep
            public.customers.email = email(keep_domain=true)
            public.customers.name = full_name
            public.customers.card = credit_card
            """;

    @Test
    void connectsChainAnonymizesTheSnapshotAsTheRulesSay() throws Exception {
        TestDatabase source = TestDatabases.create(AnonymizeOnConnectIT.class);
        source.execute("CREATE TABLE customers (id bigint PRIMARY KEY, email text, name text, card text)",
                "INSERT INTO customers SELECT g, 'user' || g || '@corp.example.org', 'Name ' || g, '5500 0000 0000 0004' FROM generate_series(1, 200) g");
        Map<String, String> config = ConnectorConfigs.source(source, "anonconnect", "public.customers");
        config.put("snapshot.mode", "initial_only");
        config.put("transforms", "anonymize");
        config.put("transforms.anonymize.type", Anonymize.class.getName());
        config.put("transforms.anonymize.mode", "strict");
        config.put("transforms.anonymize.secret", SECRET);
        config.put("transforms.anonymize.rules", RULES);

        try (ConnectCluster connect = ConnectCluster.start("anonymize-connect", 1)) {
            Map<String, String> bad = new HashMap<>(config);
            bad.put("transforms.anonymize.rules", "public.customers.email = emial\npublic.customers.name = mask(keep_first=x)");
            ConfigInfos validated = connect.embedded().validateConnectorConfig("PostgresSourceConnector", bad);
            ConfigInfo rules = validated.values().stream().filter(v -> v.configValue().name().equals("transforms.anonymize.rules"))
                    .findFirst().orElseThrow();
            assertThat(String.join(" ", rules.configValue().errors())).contains("no transformer 'emial'").contains("keep_first must be a whole number");

            connect.embedded().configureConnector("anonymized-source", config);
            ConsumerRecords<byte[], byte[]> records = connect.embedded().kafka().consume(200, 120_000, "anonconnect.public.customers");
            JsonConverter values = new JsonConverter();
            values.configure(Map.of("schemas.enable", "true"), false);
            JsonConverter keys = new JsonConverter();
            keys.configure(Map.of("schemas.enable", "true"), true);
            ColumnRewrite email = rewrite("email(keep_domain=true)", Schema.OPTIONAL_STRING_SCHEMA);
            ColumnRewrite name = rewrite("full_name", Schema.OPTIONAL_STRING_SCHEMA);
            ColumnRewrite card = rewrite("credit_card", Schema.OPTIONAL_STRING_SCHEMA);
            int seen = 0;
            for (ConsumerRecord<byte[], byte[]> r : records) {
                Struct after = ((Struct) values.toConnectData(r.topic(), r.value()).value()).getStruct("after");
                long id = after.getInt64("id");
                assertThat(((Struct) keys.toConnectData(r.topic(), r.key()).value()).getInt64("id")).isEqualTo(id);
                assertThat(after.getString("email")).isEqualTo(email.apply("user" + id + "@corp.example.org", ColumnRewrite.NO_ROW))
                        .endsWith("@corp.example.org").doesNotStartWith("user");
                assertThat(after.getString("name")).isEqualTo(name.apply("Name " + id, ColumnRewrite.NO_ROW));
                assertThat(after.getString("card")).isEqualTo(card.apply("5500 0000 0000 0004", ColumnRewrite.NO_ROW))
                        .isNotEqualTo("5500 0000 0000 0004");
                assertThat(new String(r.value(), StandardCharsets.UTF_8)).doesNotContain("user" + id + "@").doesNotContain("Name " + id + "\"");
                seen++;
            }
            assertThat(seen).isEqualTo(200);
        }
    }

    private static ColumnRewrite rewrite(String expression, Schema schema) {
        var spec = RuleParser.parse("s.t.c = " + expression).rules().get(0).transformer();
        return new TransformerLibrary(new KeyedDigest(SECRET.getBytes(StandardCharsets.UTF_8))).create(spec).bind(schema);
    }
}
