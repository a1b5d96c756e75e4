package io.sluice.sink.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class ByteBudgetTest {

    @Test
    void aBatchWaitsUntilItFitsAndOneLargerThanTheBudgetGoesAlone() throws Exception {
        ByteBudget budget = new ByteBudget(100);
        budget.acquire(60);
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> {
            try {
                budget.acquire(60);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100);
        assertThat(second).isNotDone();
        budget.release(60);
        second.get(5, TimeUnit.SECONDS);
        budget.release(60);
        budget.acquire(500); // larger than the whole budget: goes, as nothing else is in flight
        assertThat(budget.used()).isEqualTo(500);
    }
}
