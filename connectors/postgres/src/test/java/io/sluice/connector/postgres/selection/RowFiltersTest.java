package io.sluice.connector.postgres.selection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class RowFiltersTest {

    @Test
    void aTableTakesItsOwnFilterOrItsRootsAndOnlyKeysWithThePrefixAreFilters() {
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("table.include.list", "public.*");
        config.put("table.filter.public.orders", "  region = 'eu' ");
        config.put("table.filter.public.events", "kind <> 'debug'");
        config.put("table.filter.\"Sales\".\"Big.Orders\"", "amount > 100");
        RowFilters filters = RowFilters.of(config);
        assertThat(filters.forTable("public", "orders", null)).isEqualTo("region = 'eu'");
        assertThat(filters.forTable("public", "events_2026", "public.events")).as("a partition, by its root").isEqualTo("kind <> 'debug'");
        assertThat(filters.forTable("Sales", "Big.Orders", null)).isEqualTo("amount > 100");
        assertThat(filters.forTable("public", "customers", null)).isNull();
        assertThat(filters.keyFor("public", "events_2026", "public.events")).isEqualTo("table.filter.public.events");
        assertThat(RowFilters.of(Map.of("table.include.list", "public.*")).isEmpty()).isTrue();
    }

    @Test
    void twoKeysForOneTableAreRefusedNamingBoth() {
        RowFilters filters = RowFilters.of(Map.of("table.filter.public.*", "tenant = 7", "table.filter.public.orders", "region = 'eu'"));
        assertThatThrownBy(() -> filters.forTable("public", "orders", null)).hasMessageContaining("table.filter.public.*")
                .hasMessageContaining("table.filter.public.orders").hasMessageContaining("a table takes one");
        assertThat(filters.forTable("public", "customers", null)).isEqualTo("tenant = 7");
    }

    @Test
    void aKeyWithoutATableAnEmptyConditionOrStatementsIsRefused() {
        assertThatThrownBy(() -> RowFilters.of(Map.of("table.filter.orders", "id > 1"))).hasMessageContaining("table.filter.orders")
                .hasMessageContaining("must name a table");
        assertThatThrownBy(() -> RowFilters.of(Map.of("table.filter.public.orders", " "))).hasMessageContaining("is empty");
        assertThatThrownBy(() -> RowFilters.of(Map.of("table.filter.public.orders", "id > 1; DROP TABLE orders")))
                .hasMessageContaining("holds a ';'");
    }
}
