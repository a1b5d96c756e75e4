package io.sluice.sink.webhook.subscription;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** A subscription's backfill option: read, kept through the stored options, and refused where it cannot work. */
class SubscriptionSpecTest {

    private static SubscriptionSpec parse(Map<String, String> options, List<String> errors) {
        Map<String, String> all = new HashMap<>(options);
        all.putIfAbsent("url", "https://example.com/in");
        return SubscriptionSpec.parse("orders", all::get, "subscription.orders.", errors);
    }

    @Test
    void backfillIsOffUnlessAskedForAndSurvivesTheStoredOptions() {
        List<String> errors = new ArrayList<>();
        assertThat(parse(Map.of(), errors).backfill()).isFalse();
        SubscriptionSpec asked = parse(Map.of("backfill", "TRUE"), errors);
        assertThat(errors).isEmpty();
        assertThat(asked.backfill()).isTrue();
        assertThat(parse(asked.options(), errors).backfill()).as("read back from the state database").isTrue();
        assertThat(errors).isEmpty();
    }

    @Test
    void aBackfillWithoutReadsOrAWordOtherThanTrueOrFalseIsRefusedSayingWhatToDo() {
        List<String> errors = new ArrayList<>();
        assertThat(parse(Map.of("backfill", "true", "operations", "insert,update"), errors)).isNull();
        assertThat(errors).singleElement().asString().contains("subscription.orders.backfill").contains("add read to operations");
        errors.clear();
        assertThat(parse(Map.of("backfill", "yes"), errors)).isNull();
        assertThat(errors).singleElement().asString().contains("'yes'").contains("true or false");
    }
}
