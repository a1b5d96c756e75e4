package io.sluice.schemas.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class PgEndpointTest {

    @Test
    void oneHostAsBefore() {
        PgEndpoint e = PgEndpoint.parse("postgres://app:s%40cret@db.example:6432/sales?sslmode=require");
        assertThat(e).isEqualTo(new PgEndpoint("db.example", 6432, "sales", "app", "s@cret", "require"));
        assertThat(e.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:6432/sales");
        assertThat(e.display()).isEqualTo("app@db.example:6432/sales").doesNotContain("cret");
        assertThat(e.severalServers()).isFalse();
    }

    @Test
    void severalHostsConnectToThePrimary() {
        PgEndpoint e = PgEndpoint.parse("postgresql://app:pw@a.example:5433,b.example,[::1]:5435/sales?sslmode=disable");
        assertThat(e.servers()).containsExactly(new PgEndpoint.Server("a.example", 5433), new PgEndpoint.Server("b.example", 5432),
                new PgEndpoint.Server("::1", 5435));
        assertThat(e.port()).isEqualTo(5433);
        assertThat(e.user()).isEqualTo("app");
        assertThat(e.password()).isEqualTo("pw");
        assertThat(e.sslMode()).isEqualTo("disable");
        assertThat(e.database()).isEqualTo("sales");
        assertThat(e.jdbcUrl()).isEqualTo("jdbc:postgresql://a.example:5433,b.example:5432,[::1]:5435/sales?targetServerType=primary");
        assertThat(e.display()).isEqualTo("app@a.example:5433,b.example:5432,[::1]:5435/sales");
    }

    @Test
    void aHostListFromConfigurationTakesTheDefaultPort() {
        PgEndpoint e = new PgEndpoint("p1, p2:7000", 6000, "db", "u", "", "prefer");
        assertThat(e.servers()).isEqualTo(List.of(new PgEndpoint.Server("p1", 6000), new PgEndpoint.Server("p2", 7000)));
        assertThat(new PgEndpoint("::1", 5432, "db", "u", "", "prefer").jdbcUrl()).isEqualTo("jdbc:postgresql://[::1]:5432/db");
    }

    @Test
    void aBadPortIsNamed() {
        assertThatThrownBy(() -> PgEndpoint.parse("postgres://u@a:5432,b:x/db")).hasMessageContaining("b:x");
    }
}
