package io.sluice.testing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ExternalPostgresTest {

    @Test
    void readsUserPasswordHostPortAndDatabaseFromTheUrl() {
        ExternalPostgres pg = ExternalPostgres.fromUrl("postgresql://app:p%40ss@db.example:6543/admin");
        assertThat(pg.user()).isEqualTo("app");
        assertThat(pg.password()).isEqualTo("p@ss");
        assertThat(pg.host()).isEqualTo("db.example");
        assertThat(pg.port()).isEqualTo(6543);
        assertThat(pg.adminDatabase()).isEqualTo("admin");
        assertThat(pg.jdbcUrl("t1")).isEqualTo("jdbc:postgresql://db.example:6543/t1");
    }

    @Test
    void defaultsToPort5432AndThePostgresDatabase() {
        ExternalPostgres pg = ExternalPostgres.fromUrl("postgres://app@localhost");
        assertThat(pg.port()).isEqualTo(5432);
        assertThat(pg.adminDatabase()).isEqualTo("postgres");
        assertThat(pg.password()).isEmpty();
    }

    @Test
    void refusesUrlsItCannotUse() {
        assertThatThrownBy(() -> ExternalPostgres.fromUrl("mysql://a@b/c")).hasMessageContaining("SLUICE_TEST_PG_URL");
        assertThatThrownBy(() -> ExternalPostgres.fromUrl("postgresql://localhost/db")).hasMessageContaining("no user");
    }
}
