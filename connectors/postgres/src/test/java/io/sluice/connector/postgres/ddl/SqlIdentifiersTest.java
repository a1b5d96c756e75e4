package io.sluice.connector.postgres.ddl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class SqlIdentifiersTest {

    @Test
    void identifiersAreFoldedQuotedOnesKeptAndLiteralsAndCommentsAreNone() {
        String sql = "CREATE INDEX i ON public.t USING btree (lower(Email), \"Mixed \"\"Case\"\"\") WHERE (note <> 'region' /* score */) -- tier";
        assertThat(SqlIdentifiers.of(sql)).contains("email", "Mixed \"Case\"", "note", "lower", "public", "t")
                .doesNotContain("region", "score", "tier", "Email");
        assertThat(SqlIdentifiers.mentionsNone(sql, List.of("region", "score"))).isTrue();
        assertThat(SqlIdentifiers.mentionsNone(sql, List.of("email"))).isFalse();
        assertThat(SqlIdentifiers.mentionsNone("CHECK ((score >= 0))", List.of("score"))).isFalse();
    }
}
