package io.sluice.transforms.anonymize;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.sluice.transforms.transformer.ColumnRewrite;

class RepeatCacheTest {

    @Test
    void aRepeatedValueIsRewrittenOnceAndGivesTheSameOutput() {
        AtomicInteger calls = new AtomicInteger();
        ColumnRewrite cached = RepeatCache.wrap((value, row) -> {
            calls.incrementAndGet();
            return "x" + value;
        });
        for (int i = 0; i < 30_000; i++) {
            assertThat(cached.apply("city" + (i % 300), ColumnRewrite.NO_ROW)).isEqualTo("xcity" + (i % 300));
        }
        assertThat(calls.get()).isEqualTo(300);
    }

    @Test
    void aColumnThatRarelyRepeatsStopsBeingRemembered() {
        AtomicInteger calls = new AtomicInteger();
        ColumnRewrite cached = RepeatCache.wrap((value, row) -> {
            calls.incrementAndGet();
            return "x" + value;
        });
        for (int i = 0; i < 25_000; i++) {
            cached.apply("user" + i + "@example.org", ColumnRewrite.NO_ROW);
        }
        calls.set(0);
        cached.apply("user1@example.org", ColumnRewrite.NO_ROW);
        cached.apply("user1@example.org", ColumnRewrite.NO_ROW);
        assertThat(calls.get()).as("no longer remembered").isEqualTo(2);
    }

    @Test
    void mutableValuesAreNeverRemembered() {
        AtomicInteger calls = new AtomicInteger();
        ColumnRewrite cached = RepeatCache.wrap((value, row) -> {
            calls.incrementAndGet();
            return value;
        });
        byte[] bytes = {1, 2, 3};
        cached.apply(bytes, ColumnRewrite.NO_ROW);
        cached.apply(bytes, ColumnRewrite.NO_ROW);
        assertThat(calls.get()).isEqualTo(2);
    }
}
