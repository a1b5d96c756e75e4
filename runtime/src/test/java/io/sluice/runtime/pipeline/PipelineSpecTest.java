package io.sluice.runtime.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.sluice.runtime.targets.TargetKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PipelineSpecTest {

    @TempDir
    Path dir;

    @Test
    void yamlKeysAreTheConnectorsOwnAndUrlFillsTheConnectionKeys() throws Exception {
        Path file = dir.resolve("pipeline.yaml");
        Files.writeString(file, """
                name: shop
                source:
                  url: postgres://app:s3cret@db.internal:6543/shop?sslmode=require
                  table.include.list: public.*
                  snapshot.max.threads: 8
                target:
                  url: postgres://loader@copy.internal/shop_copy
                  table.exists: truncate
                transforms:
                  transforms: route
                  transforms.route.type: org.apache.kafka.connect.transforms.RegexRouter
                """);
        PipelineSpec spec = PipelineSpec.fromYaml(file);
        assertThat(spec.name()).isEqualTo("shop");
        assertThat(spec.source()).containsEntry("database.hostname", "db.internal").containsEntry("database.port", "6543")
                .containsEntry("database.user", "app").containsEntry("database.password", "s3cret")
                .containsEntry("database.dbname", "shop").containsEntry("database.sslmode", "require")
                .containsEntry("table.include.list", "public.*").containsEntry("snapshot.max.threads", "8")
                .containsEntry("topic.prefix", "shop").doesNotContainKey("url");
        assertThat(spec.target()).containsEntry("connection.url", "postgres://loader@copy.internal/shop_copy")
                .containsEntry("table.exists", "truncate");
        assertThat(spec.transforms()).containsEntry("transforms", "route");
        assertThat(spec.offsets()).isEqualTo(Path.of(".sluice", "shop.offsets"));
        assertThat(spec.source()).as("a router may change any table: none travels raw").doesNotContainKey("snapshot.raw.tuples");
    }

    @Test
    void aTableFilterMappingIsOneKeyPerTable() throws Exception {
        Path file = dir.resolve("filtered.yaml");
        Files.writeString(file, """
                source:
                  url: postgres://app@db/shop
                  table.filter:
                    public.orders: region = 'eu'
                    '"Sales"."Big.Orders"': amount > 100
                target:
                  url: postgres://loader@copy/shop_copy
                """);
        PipelineSpec spec = PipelineSpec.fromYaml(file);
        assertThat(spec.source()).containsEntry("table.filter.public.orders", "region = 'eu'")
                .containsEntry("table.filter.\"Sales\".\"Big.Orders\"", "amount > 100").doesNotContainKey("table.filter");
    }

    @Test
    void anHttpTargetOrTypeOpensearchIsAnOpenSearchTargetThatGetsDecodedRows() throws Exception {
        PipelineSpec byUrl = PipelineSpec.of(null, Map.of("url", "postgres://u@h/shop"), Map.of("url", "https://admin:pw@search:9200"), Map.of(),
                null);
        assertThat(byUrl.targetKind()).isEqualTo(TargetKind.OPENSEARCH);
        assertThat(byUrl.target()).containsEntry("connection.url", "https://admin:pw@search:9200").doesNotContainKey("position.mode");
        assertThat(byUrl.source()).as("raw COPY tuples are for PostgreSQL targets").doesNotContainKey("snapshot.raw.tuples")
                .as("a column change rebuilds the index from a copy").containsEntry("ddl.copy.on", "column_change");

        Path file = dir.resolve("search.yaml");
        Files.writeString(file, """
                source:
                  url: postgres://app@db/shop
                target:
                  type: opensearch
                  connection.url: http://search-1:9200,http://search-2:9200
                  connection.username: indexer
                """);
        PipelineSpec byType = PipelineSpec.fromYaml(file);
        assertThat(byType.targetKind()).isEqualTo(TargetKind.OPENSEARCH);
        assertThat(byType.target()).doesNotContainKey("type").containsEntry("connection.username", "indexer");

        assertThat(PipelineSpec.of(null, Map.of("url", "postgres://u@h/shop"), Map.of("url", "postgres://u@h/x"), Map.of(), null).targetKind())
                .isEqualTo(TargetKind.POSTGRES);
        assertThatThrownBy(() -> PipelineSpec.of(null, Map.of("url", "postgres://u@h/shop"), Map.of("type", "elastic", "url", "http://x:9200"),
                Map.of(), null)).hasMessageContaining("type: opensearch");
        assertThatThrownBy(() -> PipelineSpec.of(null, Map.of("url", "postgres://u@h/shop"), Map.of("url", "mysql://x/y"), Map.of(), null))
                .hasMessageContaining("https://user:password@host:9200");
    }

    @Test
    void aWebhookTargetKeepsItsStateInTheSourceDatabaseAndLeavesThoseTablesOut() {
        PipelineSpec spec = PipelineSpec.of(null, Map.of("url", "postgres://app:pw@db:5433/shop", "table.exclude.list", "public.audit"),
                Map.of("url", "webhook", "subscriptions", "a"), Map.of(), null);
        assertThat(spec.targetKind()).isEqualTo(TargetKind.WEBHOOK);
        assertThat(spec.target()).containsEntry("state.url", "postgres://app:pw@db:5433/shop").containsEntry("name", "shop")
                .containsEntry("position.mode", "source").doesNotContainKey("connection.url");
        assertThat(spec.source()).containsEntry("table.exclude.list", "public.audit,sluice.*");

        PipelineSpec elsewhere = PipelineSpec.of(null, Map.of("url", "postgres://app@db/shop"),
                Map.of("type", "webhook", "state.url", "postgres://hooks@state-db/hooks", "state.schema", "outbox"), Map.of(), null);
        assertThat(elsewhere.source()).doesNotContainKey("table.exclude.list");
        PipelineSpec sameByKeys = PipelineSpec.of(null, Map.of("url", "postgres://app@db/shop"),
                Map.of("type", "webhook", "state.url", "postgres://other@db:5432/shop", "state.schema", "outbox"), Map.of(), null);
        assertThat(sameByKeys.source()).containsEntry("table.exclude.list", "outbox.*");
    }

    @Test
    void rowsTravelAsRawTuplesWhenAnonymizeIsTheOnlyTransform() {
        Map<String, String> transforms = Map.of("transforms", "anon",
                "transforms.anon.type", "io.sluice.transforms.anonymize.Anonymize",
                "transforms.anon.rules", "public.customers.email = email\npublic.customers.id = keep\nsales.*.card = credit_card\n"
                        + "public.\"Odd.Name\".note = mask\n*.staff.id = keep");
        PipelineSpec spec = PipelineSpec.of(null, Map.of("url", "postgres://u@h/shop"), Map.of("url", "postgres://u@h/x"), transforms, null);
        assertThat(spec.source()).as("Anonymize rewrites raw tuples where they are").containsEntry("snapshot.raw.tuples", "true")
                .doesNotContainKey("snapshot.raw.tuples.exclude.list");
        PipelineSpec none = PipelineSpec.of(null, Map.of("url", "postgres://u@h/shop"), Map.of("url", "postgres://u@h/x"), Map.of(), null);
        assertThat(none.source()).containsEntry("snapshot.raw.tuples", "true").doesNotContainKey("snapshot.raw.tuples.exclude.list");
    }

    @Test
    void partitionsGoThroughTheirRootExceptIntoPostgresqlUnlessTheUserSaysOtherwise() {
        Map<String, String> source = Map.of("url", "postgres://u@h/shop");
        assertThat(PipelineSpec.of(null, source, Map.of("url", "postgres://u@h/x"), Map.of(), null).source())
                .as("the PostgreSQL target loads each partition on its own").containsEntry("publish.via.partition.root", "false");
        assertThat(PipelineSpec.of(null, source, Map.of("url", "https://search:9200"), Map.of(), null).source())
                .as("one index per partitioned table").containsEntry("publish.via.partition.root", "true");
        assertThat(PipelineSpec.of(null, source, Map.of("type", "webhook"), Map.of(), null).source())
                .as("one webhook table per partitioned table").containsEntry("publish.via.partition.root", "true");
        Map<String, String> chosen = Map.of("url", "postgres://u@h/shop", "publish.via.partition.root", "true");
        assertThat(PipelineSpec.of(null, chosen, Map.of("url", "postgres://u@h/x"), Map.of(), null).source())
                .as("the user's choice").containsEntry("publish.via.partition.root", "true");
    }

    @Test
    void mistakesInThePipelineFileAreNamed() throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "source:\n  url: postgres://a@b/c\ntarget:\n  url: postgres://a@b/d\nsinks: []\n");
        assertThatThrownBy(() -> PipelineSpec.fromYaml(file)).hasMessageContaining("unknown key 'sinks'");
        Files.writeString(file, "source:\n  url: postgres://a@b/c\n");
        assertThatThrownBy(() -> PipelineSpec.fromYaml(file)).hasMessageContaining("target:");
    }

    @Test
    void severalTargetsShareOneSourceThatServesThemAll() throws Exception {
        Path file = dir.resolve("fan.yaml");
        Files.writeString(file, """
                name: shop
                source:
                  url: postgres://app@db/shop
                transforms:
                  transforms: route
                  transforms.route.type: org.apache.kafka.connect.transforms.RegexRouter
                targets:
                  staging:
                    url: postgres://loader@staging/shop
                    table.exists: truncate
                    transforms:
                      transforms: mask
                      transforms.mask.type: io.sluice.transforms.anonymize.Anonymize
                  search:
                    url: https://admin:pw@search:9200
                """);
        PipelineFile read = PipelineFile.read(file);
        assertThat(read.targets().keySet()).containsExactly("staging", "search");
        assertThat(read.targets().get("staging")).containsEntry("table.exists", "truncate").doesNotContainKey("transforms");
        assertThat(read.transformsOf("staging")).containsEntry("transforms", "mask");
        assertThat(read.transformsOf("search")).as("the pipeline's, for a target without its own").containsEntry("transforms", "route");

        var targets = PipelineSpec.fanOut(read.name(), read.source(), read.targets(),
                Map.of("staging", read.transformsOf("staging"), "search", read.transformsOf("search")), read.offsets());
        assertThat(targets).extracting(NamedTarget::name).containsExactly("staging", "search");
        PipelineSpec staging = targets.get(0).spec();
        PipelineSpec search = targets.get(1).spec();
        assertThat(staging.source()).as("one source for all").isEqualTo(search.source());
        // OpenSearch takes a partitioned table as one index, and an index cannot change a field in place.
        assertThat(staging.source()).containsEntry("publish.via.partition.root", "true").containsEntry("ddl.copy.on", "column_change")
                .containsEntry("snapshot.raw.tuples", "false");
        assertThat(staging.targetKind()).isEqualTo(TargetKind.POSTGRES);
        assertThat(search.targetKind()).isEqualTo(TargetKind.OPENSEARCH);
        assertThat(staging.target()).containsEntry("metrics.target.name", "shop.staging");
        assertThat(staging.offsets()).isEqualTo(search.offsets());

        var both = PipelineSpec.fanOut("shop", Map.of("url", "postgres://app@db/shop"), Map.of("a", Map.of("url", "postgres://l@one/x"),
                "b", Map.of("url", "postgres://l@two/x")), Map.of(), null);
        assertThat(both.get(0).spec().source()).as("two PostgreSQL targets without transforms keep raw tuples and partitions")
                .containsEntry("publish.via.partition.root", "false").containsEntry("snapshot.raw.tuples", "true");

        assertThatThrownBy(() -> PipelineSpec.fanOut("shop", Map.of("url", "postgres://app@db/shop"),
                new java.util.LinkedHashMap<>(Map.of("a", Map.of("url", "postgres://l@one/x"), "b", Map.of("url", "postgres://l@one/x"))),
                Map.of(), null)).hasMessageContaining("are both");
        Files.writeString(file, "source:\n  url: postgres://a@b/c\ntarget:\n  url: postgres://a@b/d\ntargets:\n  x:\n    url: postgres://a@b/e\n");
        assertThatThrownBy(() -> PipelineFile.read(file)).hasMessageContaining("not both");
        Files.writeString(file, "source:\n  url: postgres://a@b/c\ntargets:\n  x:\n    url: postgres://a@b/e\n  y:\n    url: postgres://a@b/f\n");
        assertThatThrownBy(() -> PipelineSpec.fromYaml(file)).hasMessageContaining("names 2 targets (x, y)");
    }

    @Test
    void theNameDefaultsToTheSourceDatabase() {
        PipelineSpec spec = PipelineSpec.of(null, Map.of("url", "postgres://u@h/inventory-db"), Map.of("url", "postgres://u@h/x"), Map.of(), null);
        assertThat(spec.name()).isEqualTo("inventory-db");
        assertThat(spec.source()).containsEntry("topic.prefix", "inventory-db");
    }
}
