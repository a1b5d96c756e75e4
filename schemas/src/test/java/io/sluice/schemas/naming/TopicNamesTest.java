package io.sluice.schemas.naming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TopicNamesTest {

    @Test
    void tablesGetPrefixSchemaAndTable() {
        assertThat(TopicNames.forTable("sluice", "public", "orders")).isEqualTo("sluice.public.orders");
        assertThat(TopicNames.forSchemaChanges("sluice")).isEqualTo("sluice.schema-changes");
    }

    @Test
    void charactersKafkaRefusesBecomeUnderscores() {
        assertThat(TopicNames.forTable("sluice", "Sales Data", "ördér$")).isEqualTo("sluice.Sales_Data._rd_r_");
    }

    @Test
    void namesTooLongForKafkaAreRefusedWithAWayOut() {
        assertThatThrownBy(() -> TopicNames.forTable("p", "s", "t".repeat(300)))
                .hasMessageContaining("topic prefix");
    }

    @Test
    void identifiersAreAlwaysQuotedWithQuotesDoubled() {
        assertThat(Identifiers.quote("Order \"Items\"")).isEqualTo("\"Order \"\"Items\"\"\"");
        assertThat(Identifiers.quote("public", "select")).isEqualTo("\"public\".\"select\"");
    }
}
