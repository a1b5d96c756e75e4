package io.sluice.runtime.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import io.sluice.connector.postgres.PostgresSourceConfig;
import io.sluice.schemas.converter.BinaryConverter;
import io.sluice.sink.opensearch.OpenSearchSinkConfig;
import io.sluice.sink.postgres.PostgresSinkConfig;
import io.sluice.transforms.anonymize.AnonymizeConfig;
import io.sluice.transforms.predicate.OperationIs;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md is generated from the connectors' ConfigDefs, so it cannot drift:
 * this test fails when they differ. Regenerate with
 * {@code ./mvnw -q -pl runtime -am test -Dtest=ConfigurationDocTest -Dsluice.docs.write=true -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class ConfigurationDocTest {

    private static final Path DOC = Path.of("..", "docs", "configuration.md");

    @Test
    void configurationReferenceMatchesTheConfigDefs() throws Exception {
        String generated = render();
        if (Boolean.getBoolean("sluice.docs.write")) {
            Files.writeString(DOC, generated, StandardCharsets.UTF_8);
        }
        assertThat(Files.exists(DOC)).as("docs/configuration.md exists").isTrue();
        assertThat(Files.readString(DOC, StandardCharsets.UTF_8)).as("docs/configuration.md is generated; regenerate it (see this test's Javadoc)")
                .isEqualTo(generated);
    }

    static String render() {
        StringBuilder s = new StringBuilder();
        s.append("# Configuration reference\n\n")
                .append("Generated from the connectors' `ConfigDef`s by `ConfigurationDocTest`; do not edit by hand.\n\n")
                .append("The same keys configure a connector on a Kafka Connect cluster and a `sluice` pipeline: in `pipeline.yaml` they go\n")
                .append("under `source:` and `target:` (where `url: postgres://user:password@host:port/database` fills in the connection\n")
                .append("keys), and on the command line `--set source.KEY=VALUE` / `--set target.KEY=VALUE`. The target's kind follows from\n")
                .append("its URL (`postgres://…` PostgreSQL, `http(s)://…` OpenSearch, `webhook` webhook subscribers) or from\n")
                .append("`type: postgres|opensearch|webhook` under `target:`. Several targets fed from one slot go under `targets:`, by\n")
                .append("name, each with these keys ([fan-out.md](fan-out.md)).\n\n");
        s.append("The source also takes keys per table: `table.filter.<schema>.<table>` = a SQL condition over the table's\n")
                .append("columns (only the rows that meet it are copied and streamed), and `table.columns.<schema>.<table>` = the\n")
                .append("columns that flow, comma-separated (the key's flow too). In `pipeline.yaml` they are mappings under\n")
                .append("`table.filter:` and `table.columns:`; on the command line `--filter TABLE=CONDITION` and\n")
                .append("`--columns TABLE=COLUMNS`. A snapshot alone (`snapshot.mode=initial_only`, `sluice snapshot`) also takes\n")
                .append("`subset.<schema>.<table>` = a SQL condition that makes the table a root of a staging subset (its rows that\n")
                .append("meet it, and the rows foreign keys tie to them); in `pipeline.yaml` a mapping under `subset:`, on the\n")
                .append("command line `--subset TABLE=CONDITION`. See [filters.md](filters.md).\n\n");
        section(s, "PostgreSQL source (`io.sluice.connector.postgres.PostgresSourceConnector`)", PostgresSourceConfig.CONFIG_DEF);
        section(s, "PostgreSQL sink (`io.sluice.sink.postgres.PostgresSinkConnector`)", PostgresSinkConfig.CONFIG_DEF);
        s.append("How the OpenSearch sink maps, orders and rebuilds: [opensearch.md](opensearch.md).\n\n");
        section(s, "OpenSearch sink (`io.sluice.sink.opensearch.OpenSearchSinkConnector`)", OpenSearchSinkConfig.CONFIG_DEF);
        s.append("How the webhook sink delivers, and each subscription's options (`subscription.<name>.<option>`): [webhooks.md](webhooks.md).\n\n");
        section(s, "Webhook sink (`io.sluice.sink.webhook.WebhookSinkConnector`)", io.sluice.sink.webhook.WebhookSinkConfig.CONFIG_DEF);
        s.append("The `sluice` command reads one more key under `target:` itself, as a Kafka Connect worker reads it on a cluster (where\n")
                .append("`errors.deadletterqueue.topic.name` names the dead-letter topic).\n\n");
        section(s, "The `sluice` command's target keys", io.sluice.runtime.pipeline.EmbeddedSinkContext.CONFIG_DEF);
        s.append("The transforms below go under `transforms:` in `pipeline.yaml` with Kafka Connect's own keys (`transforms: anon`,\n")
                .append("`transforms.anon.type: io.sluice.transforms.anonymize.Anonymize`, `transforms.anon.rules: ...`), exactly as on a\n")
                .append("connector. See [anonymization.md](anonymization.md) for the rules and every transformer.\n\n");
        section(s, "Anonymize transform (`io.sluice.transforms.anonymize.Anonymize`)", AnonymizeConfig.CONFIG_DEF);
        s.append("A predicate for Kafka's own `Filter` (`predicates: deletes`, `predicates.deletes.type: io.sluice.transforms.predicate.OperationIs`,\n")
                .append("`predicates.deletes.operations: d`, then `transforms.drop.type: org.apache.kafka.connect.transforms.Filter`,\n")
                .append("`transforms.drop.predicate: deletes`). Tables are filtered with Kafka's `TopicNameMatches` and routed with `RegexRouter`.\n\n");
        section(s, "OperationIs predicate (`io.sluice.transforms.predicate.OperationIs`)", OperationIs.CONFIG_DEF);
        s.append("The converter for topics between Sluice's connectors on a Kafka Connect cluster (`key.converter` and `value.converter`\n")
                .append("of both connectors, its keys prefixed with `key.converter.` / `value.converter.`; see [connect.md](connect.md)).\n")
                .append("The `sluice` command passes records in memory and uses no converter.\n\n");
        section(s, "Binary converter (`io.sluice.schemas.converter.BinaryConverter`)", BinaryConverter.CONFIG_DEF);
        return s.toString();
    }

    private static void section(StringBuilder s, String title, ConfigDef def) {
        s.append("## ").append(title).append("\n\n");
        String group = null;
        List<ConfigDef.ConfigKey> keys = def.configKeys().values().stream()
                .sorted((a, b) -> a.group.equals(b.group) ? Integer.compare(a.orderInGroup, b.orderInGroup) : 0).toList();
        for (ConfigDef.ConfigKey key : keys) {
            if (!key.group.equals(group)) {
                group = key.group;
                s.append("### ").append(group).append("\n\n| key | type | default | valid values | importance | |\n|---|---|---|---|---|---|\n");
            }
            s.append("| `").append(key.name).append("` | ").append(key.type.name().toLowerCase(Locale.ROOT)).append(" | ")
                    .append(defaultOf(key)).append(" | ").append(key.validator == null ? "" : escape(key.validator.toString()))
                    .append(" | ").append(key.importance.name().toLowerCase(Locale.ROOT)).append(" | ")
                    .append(escape(key.documentation)).append(" |\n");
            if (keys.indexOf(key) == keys.size() - 1 || !keys.get(keys.indexOf(key) + 1).group.equals(group)) {
                s.append('\n');
            }
        }
    }

    private static String defaultOf(ConfigDef.ConfigKey key) {
        if (!key.hasDefault()) {
            return "required";
        }
        Object value = key.defaultValue;
        if (value == null) {
            return "";
        }
        if (value instanceof Password) {
            return "";
        }
        String text = value instanceof List<?> list ? String.join(",", list.stream().map(Object::toString).toList()) : value.toString();
        return text.isEmpty() ? "\"\"" : "`" + text + "`";
    }

    private static String escape(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
