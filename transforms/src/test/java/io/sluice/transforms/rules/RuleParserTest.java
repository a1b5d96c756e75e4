package io.sluice.transforms.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.transforms.transformer.RandomSeeds;
import io.sluice.transforms.transformer.TransformerLibrary;
import io.sluice.transforms.transformer.TransformerSpec;

class RuleParserTest {

    @Test
    void readsRulesWithParametersNestedTransformersQuotesAndComments() {
        RuleParser.Result r = RuleParser.parse("""
                # customers
                public.customers.email = email(keep_domain=true)   # the provider stays
                public.customers.phone = phone(pattern="+1 (###) ###-####"); public.customers.id = keep
                public."Order.Lines".note = mask
                public.customers.profile = json(
                    "$.contact.email" = email,
                    "$.tags[*]" = mask(keep_first=1))
                *.*.ssn = null
                """);
        assertThat(r.problems()).isEmpty();
        assertThat(r.rules()).extracting(Rule::toString).containsExactly(
                "public.customers.email = email(keep_domain=true)",
                "public.customers.phone = phone(pattern=\"+1 (###) ###-####\")",
                "public.customers.id = keep",
                "public.\"Order.Lines\".note = mask",
                "public.customers.profile = json(\"$.contact.email\"=email, \"$.tags[*]\"=mask(keep_first=1))",
                "*.*.ssn = null");
        assertThat(r.rules().get(3).pattern().table().text()).isEqualTo("Order.Lines");
        assertThat(r.rules().get(4).transformer().params().get("$.tags[*]"))
                .isEqualTo(new TransformerSpec("mask", Map.of("keep_first", "1")));
    }

    @Test
    void reportsEveryBadRuleWithItsLine() {
        RuleParser.Result r = RuleParser.parse("""
                public.customers.email = email
                public.customers = mask
                public.customers.name = mask(keep_first=1
                public.customers.city
                public.customers.note = regex(pattern="unclosed)
                """);
        assertThat(r.rules()).hasSize(1);
        assertThat(r.problems()).hasSize(4);
        assertThat(r.problems().get(0)).startsWith("rule on line 2").contains("schema.table.column");
        assertThat(r.problems().get(1)).startsWith("rule on line 3").contains("not closed");
        assertThat(r.problems().get(2)).startsWith("rule on line 4").contains("schema.table.column = transformer");
        assertThat(r.problems().get(3)).startsWith("rule on line 5").contains("not closed");
    }

    @Test
    void unknownTransformersAndParametersAreNamedWithWhatExists() {
        List<String> problems = new ArrayList<>();
        RuleSet.compile(RuleParser.parse("a.b.c = emial\na.b.d = mask(keep_frist=2)\na.b.e = mask(keep_first=x)").rules(),
                new TransformerLibrary(new RandomSeeds()), problems);
        assertThat(problems).hasSize(3);
        assertThat(problems.get(0)).contains("no transformer 'emial'").contains("email");
        assertThat(problems.get(1)).contains("no parameter keep_frist").contains("keep_first");
        assertThat(problems.get(2)).contains("keep_first must be a whole number");
    }

    @Test
    void theMostSpecificPatternWinsAndEqualOnesThatDisagreeAreAnError() {
        RuleSet rules = RuleSet.compile(RuleParser.parse("""
                *.*.email = email
                public.customers.* = keep
                public.staff.email = keep
                public.*.phone = phone
                *.orders.phone = mask
                public.cust*.fax = mask
                public.*s.fax = null
                """).rules(), new TransformerLibrary(new RandomSeeds()), new ArrayList<>());
        assertThat(rules.forColumn("public", "customers", "email").rule().transformer().name()).isEqualTo("email");
        assertThat(rules.forColumn("public", "customers", "name").rule().keep()).isTrue();
        assertThat(rules.forColumn("public", "staff", "email").rule().keep()).isTrue();
        assertThat(rules.forColumn("public", "other", "name")).isNull();
        assertThat(rules.forColumn("public", "customers", "phone").rule().transformer().name()).isEqualTo("phone");
        // The table's part counts before the schema's.
        assertThat(rules.forColumn("public", "orders", "phone").rule().transformer().name()).isEqualTo("mask");
        assertThatThrownBy(() -> rules.forColumn("public", "customers", "fax"))
                .hasMessageContaining("public.cust*.fax = mask").hasMessageContaining("public.*s.fax = null");
    }

    @Test
    void patternsGlobEachPart() {
        ColumnPattern p = ColumnPattern.parse("sales_?.cust*.e*");
        assertThat(p.matches("sales_1", "customers", "email")).isTrue();
        assertThat(p.matches("sales_10", "customers", "email")).isFalse();
        assertThat(p.matches("sales_1", "customers", "name")).isFalse();
        assertThatThrownBy(() -> ColumnPattern.parse("customers.email")).hasMessageContaining("schema.table.column");
    }
}
