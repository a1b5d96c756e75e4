package io.sluice.transforms.anonymize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.schemas.envelope.EventHeaders;
import io.sluice.schemas.envelope.Operation;
import io.sluice.schemas.envelope.RawTuples;
import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;

class AnonymizeTest {

    private static final String SECRET = "0123456789abcdef-test";

    private static final Schema ROW = SchemaBuilder.struct().name("shop.public.customers.Value").optional()
            .field("id", Schema.INT64_SCHEMA)
            .field("email", Schema.OPTIONAL_STRING_SCHEMA)
            .field("first_name", Schema.OPTIONAL_STRING_SCHEMA)
            .field("last_name", Schema.OPTIONAL_STRING_SCHEMA)
            .field("login", Schema.OPTIONAL_STRING_SCHEMA)
            .field("notes", Schema.OPTIONAL_STRING_SCHEMA)
            .build();
    private static final Schema KEY = SchemaBuilder.struct().name("shop.public.customers.Key").field("id", Schema.INT64_SCHEMA).build();
    private static final Schema ENVELOPE = Envelope.schema("shop.public.customers", ROW);

    private static final String RULES = """
            public.customers.id = keep
            public.customers.email = email
            public.customers.first_name = first_name
            public.customers.last_name = last_name
            public.customers.login = template(text="{first_name}.{last_name}")
            public.customers.notes = null
            """;

    @Test
    void rewritesBeforeAndAfterOfAnEnvelopeAndLeavesTheRestAlone() {
        Anonymize<SourceRecord> t = anonymize(Map.of("rules", RULES, "mode", "strict"));
        Struct before = row(1, "ann@corp.com", "Ann", "Lee", "ann.lee", "likes cats");
        Struct after = row(1, "ann.lee@corp.com", "Ann", "Lee", "ann.lee", "likes dogs");
        SourceRecord out = t.apply(change("public", "customers", before, after));
        Struct value = (Struct) out.value();
        Struct newAfter = value.getStruct("after");
        Struct newBefore = value.getStruct("before");
        assertThat(newAfter.getInt64("id")).isEqualTo(1L);
        assertThat(newAfter.getString("email")).endsWith("@example.com").doesNotContain("ann");
        assertThat(newAfter.getString("first_name")).isNotEqualTo("Ann");
        assertThat(newAfter.getString("login")).isEqualTo(newAfter.getString("first_name") + "." + newAfter.getString("last_name"));
        assertThat(newAfter.get("notes")).isNull();
        assertThat(newBefore.getString("first_name")).isEqualTo(newAfter.getString("first_name"));
        assertThat(newBefore.getString("email")).isNotEqualTo(newAfter.getString("email"));
        assertThat(value.getString("op")).isEqualTo("u");
        assertThat(value.getStruct("source").getString("table")).isEqualTo("customers");
        assertThat(out.key()).isEqualTo(new Struct(KEY).put("id", 1L));
        assertThat(after.getString("email")).as("the input is not changed").isEqualTo("ann.lee@corp.com");
    }

    @Test
    void aTransformedKeyColumnIsRewrittenInTheKeyAsInTheRow() {
        Anonymize<SourceRecord> t = anonymize(Map.of("rules", "public.customers.id = hash\npublic.customers.email = email"));
        SourceRecord out = t.apply(change("public", "customers", null, row(42, "a@b.org", "A", "B", "ab", null)));
        long newId = ((Struct) out.value()).getStruct("after").getInt64("id");
        assertThat(newId).isNotEqualTo(42L);
        assertThat(((Struct) out.key()).getInt64("id")).isEqualTo(newId);
        // A delete's tombstone carries the same rewritten key, so it removes the rewritten row.
        SourceRecord tombstone = new SourceRecord(Map.of(), Map.of(), "shop.public.customers", null, KEY, new Struct(KEY).put("id", 42L), null, null);
        assertThat(((Struct) t.apply(tombstone).key()).getInt64("id")).isEqualTo(newId);
    }

    @Test
    void aResyncsKeyRangePassesWhenTheKeyIsKeptAndIsDroppedWhenARuleRewritesIt() {
        Struct source = new SourceInfo("shop", "shop", "public", "customers", 1_700_000_000_000_000L, SourceInfo.Snapshot.FALSE, 1L, 100L,
                null).toStruct();
        Struct range = io.sluice.schemas.envelope.KeyRanges.value(KEY, source, null, new Struct(KEY).put("id", 1L),
                new Struct(KEY).put("id", 9L), List.of(new Struct(KEY).put("id", 3L)), List.of(""), 0L);
        SourceRecord record = new SourceRecord(Map.of(), Map.of(), "shop.public.customers", null, null, null, range.schema(), range);
        // Strict mode: a rule for every column, none of them the key's rewrite.
        assertThat(anonymize(Map.of("rules", RULES, "mode", "strict")).apply(record)).as("the key kept: as it is").isSameAs(record);
        assertThat(anonymize(Map.of("rules", "public.customers.id = hash\npublic.customers.email = email")).apply(record))
                .as("the key rewritten: the range cannot be placed among the target's keys").isNull();
    }

    @Test
    void oneValueInTwoTablesGivesOneOutput() {
        Schema orders = SchemaBuilder.struct().name("shop.public.orders.Value").optional()
                .field("id", Schema.INT64_SCHEMA).field("customer_email", Schema.OPTIONAL_STRING_SCHEMA).build();
        Anonymize<SourceRecord> t = anonymize(Map.of("rules", "*.*.*email = email"));
        String a = ((Struct) t.apply(change("public", "customers", null, row(1, "x@y.org", "A", "B", "l", null))).value())
                .getStruct("after").getString("email");
        Struct order = new Struct(orders).put("id", 7L).put("customer_email", "x@y.org");
        SourceRecord flat = new SourceRecord(Map.of(), Map.of(), "shop.public.orders", null, null, null, orders, order);
        assertThat(((Struct) t.apply(flat).value()).getString("customer_email")).isEqualTo(a);
    }

    @Test
    void strictModeReportsEveryProblemOfATableInOneMessage() {
        Anonymize<SourceRecord> t = anonymize(Map.of("mode", "strict", "rules", """
                public.customers.email = email
                public.customers.id = mask
                public.customers.login = template(text="{nickname}")
                public.customers.phone = phone
                """));
        assertThatThrownBy(() -> t.apply(change("public", "customers", null, row(1, "a@b.c", "A", "B", "l", "n"))))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("table public.customers")
                .hasMessageContaining("column id (rule 'public.customers.id = mask'): mask writes text but the column holds integer")
                .hasMessageContaining("column first_name: no rule matches it")
                .hasMessageContaining("column last_name: no rule matches it")
                .hasMessageContaining("column notes: no rule matches it")
                .hasMessageContaining("reads column nickname, which the table does not have")
                .hasMessageContaining("names column phone, which the table does not have");
    }

    @Test
    void theRewrittenEventIsTheStructPutWouldBuildAndAFlatRowNotOfItsSchemaIsRefused() {
        Anonymize<SourceRecord> t = anonymize(Map.of("rules", RULES, "mode", "strict"));
        Struct value = (Struct) t.apply(change("public", "customers", null, row(1, "a@b.org", "Ann", "Lee", "x", "y"))).value();
        value.validate();
        Struct after = value.getStruct("after");
        Struct rebuilt = new Struct(ROW);
        ROW.fields().forEach(f -> rebuilt.put(f, after.get(f)));
        assertThat(after).isEqualTo(rebuilt);
        Struct envelope = new Struct(ENVELOPE);
        ENVELOPE.fields().forEach(f -> envelope.put(f, value.get(f)));
        assertThat(value).isEqualTo(envelope);

        // A flat row whose struct has a schema equal to the record's, though another instance, is rewritten alike.
        Schema equalRow = SchemaBuilder.struct().name(ROW.name()).optional()
                .field("id", Schema.INT64_SCHEMA).field("email", Schema.OPTIONAL_STRING_SCHEMA).field("first_name", Schema.OPTIONAL_STRING_SCHEMA)
                .field("last_name", Schema.OPTIONAL_STRING_SCHEMA).field("login", Schema.OPTIONAL_STRING_SCHEMA).field("notes", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        assertThat(equalRow).isEqualTo(ROW).isNotSameAs(ROW);
        Struct flat = new Struct(equalRow).put("id", 1L).put("email", "a@b.org").put("first_name", "Ann").put("last_name", "Lee");
        Struct flatOut = (Struct) t.apply(new SourceRecord(Map.of(), Map.of(), "shop.public.customers", null, null, null, ROW, flat)).value();
        assertThat(flatOut.getString("first_name")).isEqualTo(after.getString("first_name"));
        flatOut.validate();

        // One whose struct does not fit the record's schema is refused, naming the column, as Struct.put would refuse it.
        Schema other = SchemaBuilder.struct().name(ROW.name()).optional()
                .field("id", Schema.STRING_SCHEMA).field("email", Schema.OPTIONAL_STRING_SCHEMA).field("first_name", Schema.OPTIONAL_STRING_SCHEMA)
                .field("last_name", Schema.OPTIONAL_STRING_SCHEMA).field("login", Schema.OPTIONAL_STRING_SCHEMA).field("notes", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        Struct misfit = new Struct(other).put("id", "one").put("email", "a@b.org");
        assertThatThrownBy(() -> t.apply(new SourceRecord(Map.of(), Map.of(), "shop.public.customers", null, null, null, ROW, misfit)))
                .isInstanceOf(DataException.class).hasMessageContaining("id");
    }

    @Test
    void relaxedModePassesColumnsWithoutRules() {
        Anonymize<SourceRecord> t = anonymize(Map.of("rules", "public.customers.email = mask"));
        Struct after = ((Struct) t.apply(change("public", "customers", null, row(1, "ab@cd", "Ann", "Lee", "l", "n"))).value()).getStruct("after");
        assertThat(after.getString("email")).isEqualTo("*****");
        assertThat(after.getString("first_name")).isEqualTo("Ann");
        SourceRecord other = change("public", "suppliers", null, row(1, "ab@cd", "Ann", "Lee", "l", "n"));
        assertThat(t.apply(other)).as("a table no rule touches passes as it is").isSameAs(other);
    }

    @Test
    void schemaChangeEventsPassAndRawTuplesThatDoNotSayHowTheyDecodeAreRefused() {
        Anonymize<SourceRecord> t = anonymize(Map.of("rules", RULES));
        SourceRecord ddl = new SourceRecord(Map.of(), Map.of(), "shop", null, SchemaChangeEvents.KEY_SCHEMA, SchemaChangeEvents.key("shop"),
                SchemaChangeEvents.VALUE_SCHEMA, SchemaChangeEvents.value(source("public", "customers"), "public",
                "ALTER TABLE customers ADD COLUMN ssn text", List.of(), 0L));
        assertThat(t.apply(ddl)).isSameAs(ddl);
        Struct raw = RawTuples.of(source("public", "customers").toStruct(), List.of("id"), List.of("int8"), List.of("id"), 1, new byte[0]);
        assertThatThrownBy(() -> t.apply(new SourceRecord(Map.of(), Map.of(), "shop.public.customers", null, null, null, RawTuples.SCHEMA, raw)))
                .hasMessageContaining("public.customers arrives as raw COPY tuples that do not say how their columns decode")
                .hasMessageContaining("snapshot.raw.tuples=false");
        Struct rawOther = RawTuples.of(source("public", "suppliers").toStruct(), List.of("id"), List.of("int8"), List.of("id"), 1, new byte[0]);
        SourceRecord passing = new SourceRecord(Map.of(), Map.of(), "shop.public.suppliers", null, null, null, RawTuples.SCHEMA, rawOther);
        assertThat(t.apply(passing)).isSameAs(passing);
        // In strict mode raw rows pass only when every column is kept by name.
        Anonymize<SourceRecord> strict = anonymize(Map.of("mode", "strict", "rules", RULES + "public.suppliers.id = keep"));
        assertThat(strict.apply(passing)).isSameAs(passing);
        Struct rawWide = RawTuples.of(source("public", "suppliers").toStruct(), List.of("id", "iban"), List.of("int8", "text"), List.of("id"), 1,
                new byte[0]);
        assertThatThrownBy(() -> strict.apply(new SourceRecord(Map.of(), Map.of(), "shop.public.suppliers", null, null, null, RawTuples.SCHEMA,
                rawWide))).hasMessageContaining("no rule matches column(s) iban");
    }

    @Test
    void unchangedToastPlaceholdersAreLeftAlone() {
        Anonymize<SourceRecord> t = anonymize(Map.of("rules", "public.customers.notes = constant(value=x, replace_null=true)"));
        SourceRecord in = change("public", "customers", null, row(1, "a", "b", "c", "d", null));
        in.headers().addString(EventHeaders.UNCHANGED_TOAST, "notes");
        assertThat(((Struct) t.apply(in).value()).getStruct("after").get("notes")).isNull();
    }

    @Test
    void randomModeRefusesToRewriteKeysAndGivesNoLinkage() {
        Anonymize<SourceRecord> t = anonymize(Map.of("random", "true", "rules", "public.customers.id = hash\npublic.customers.email = email"));
        assertThatThrownBy(() -> t.apply(change("public", "customers", null, row(1, "a@b.org", "A", "B", "l", null))))
                .hasMessageContaining("column id is a key column: random mode");
        Anonymize<SourceRecord> emails = anonymize(Map.of("random", "true", "rules", "public.customers.email = email"));
        List<String> outs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            outs.add(((Struct) emails.apply(change("public", "customers", null, row(1, "a@b.org", "A", "B", "l", null))).value())
                    .getStruct("after").getString("email"));
        }
        assertThat(outs).doesNotHaveDuplicates();
    }

    @Test
    void configurationProblemsAreReportedTogether() {
        assertThatThrownBy(() -> anonymize(Map.of("secret", "tiny5", "mode", "loose", "rules", "a.b.c = emial\na.b = mask")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("mode must be relaxed or strict")
                .hasMessageContaining("secret is 5 bytes long")
                .hasMessageContaining("no transformer 'emial'")
                .hasMessageContaining("rule on line 2")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("tiny5"));
        assertThatThrownBy(() -> new Anonymize<SourceRecord>().configure(Map.of("rules", "a.b.c = mask")))
                .hasMessageContaining("secret is not set");
        // Connect's validate call: every key's problems, through the ConfigDef's validators.
        Map<String, ConfigValue> validated = new HashMap<>();
        Anonymize.CONFIG_DEF.validate(Map.of("secret", "short", "rules", "a.b.c = mask(keep_first=x)\nx = y"))
                .forEach(v -> validated.put(v.name(), v));
        assertThat(validated.get("secret").errorMessages()).singleElement().asString().contains("at least 16");
        assertThat(validated.get("rules").errorMessages()).singleElement().asString()
                .contains("keep_first must be a whole number").contains("rule on line 2");
    }

    @Test
    void oneInstanceServesManyThreadsAlike() throws Exception {
        Anonymize<SourceRecord> t = anonymize(Map.of("rules", RULES));
        List<Struct> expected = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            expected.add(((Struct) t.apply(change("public", "customers", null, row(i, "u" + i + "@x.org", "F" + i, "L" + i, "", ""))).value())
                    .getStruct("after"));
        }
        Anonymize<SourceRecord> shared = anonymize(Map.of("rules", RULES));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<Struct>>> results = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                results.add(pool.submit(() -> {
                    List<Struct> out = new ArrayList<>();
                    for (int i = 0; i < 200; i++) {
                        out.add(((Struct) shared.apply(change("public", "customers", null, row(i, "u" + i + "@x.org", "F" + i, "L" + i, "", "")))
                                .value()).getStruct("after"));
                    }
                    return out;
                }));
            }
            for (Future<List<Struct>> f : results) {
                assertThat(f.get()).isEqualTo(expected);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Anonymize<SourceRecord> anonymize(Map<String, String> props) {
        Map<String, String> all = new HashMap<>(props);
        all.putIfAbsent("secret", SECRET);
        if ("true".equals(all.get("random"))) {
            all.remove("secret");
        }
        Anonymize<SourceRecord> t = new Anonymize<>();
        t.configure(all);
        return t;
    }

    private static Struct row(long id, String email, String first, String last, String login, String notes) {
        return new Struct(ROW).put("id", id).put("email", email).put("first_name", first).put("last_name", last)
                .put("login", login).put("notes", notes);
    }

    private static SourceInfo source(String schema, String table) {
        return new SourceInfo("shop", "shop", schema, table, 1_700_000_000_000_000L, SourceInfo.Snapshot.FALSE, 5L, 100L, null);
    }

    private static SourceRecord change(String schema, String table, Struct before, Struct after) {
        Struct value = Envelope.create(ENVELOPE, before == null ? Operation.CREATE : Operation.UPDATE, before, after, source(schema, table),
                1_700_000_000_000_000L);
        Struct key = new Struct(KEY).put("id", (after != null ? after : before).getInt64("id"));
        return new SourceRecord(Map.of(), Map.of(), "shop." + schema + "." + table, null, KEY, key, ENVELOPE, value);
    }
}
