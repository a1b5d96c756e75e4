package io.sluice.sink.postgres.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.sink.core.batch.TunedBatchSize.Closing;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * When gathered changes become a target transaction. Invariants: a batch is never sealed inside
 * a source transaction below twice the batch size, and always at twice it; at a transaction's
 * boundary it is sealed exactly when the size is reached; a batch is never sealed for its time
 * while the one before is being written, and always once its time is up and the writer is free;
 * the task is woken no later than the oldest change is due and never at once or never.
 */
class SealPolicyProperties {

    @Provide
    Arbitrary<Long> sizes() {
        return Arbitraries.longs().between(0, Long.MAX_VALUE / 4).edgeCases(e -> e.add(0L).add(1L).add(Long.MAX_VALUE / 4));
    }

    @Provide
    Arbitrary<Long> millis() {
        return Arbitraries.longs().between(0, 1L << 40).edgeCases(e -> e.add(0L).add(1L).add(10L).add(11L));
    }

    @Property(tries = 2_000)
    void fullOnlyAtATransactionsBoundaryOrAtTwiceTheSize(@ForAll("sizes") long pending, @ForAll("sizes") long batch,
                                                         @ForAll boolean sameTransaction, @ForAll("millis") long delay) {
        Closing closing = new SealPolicy(delay).beforeChange(pending, batch, sameTransaction);
        boolean expected = sameTransaction ? pending >= 2 * batch : pending >= batch;
        assertThat(closing).isEqualTo(expected ? Closing.FULL : null);
    }

    @Property(tries = 2_000)
    void dueOnlyWhenItsTimeIsUpAndTheWriterIsFree(@ForAll boolean pending, @ForAll("millis") long waited, @ForAll boolean writing,
                                                  @ForAll("millis") long delay) {
        Closing closing = new SealPolicy(delay).onTick(pending, waited, writing);
        assertThat(closing).isEqualTo(pending && !writing && waited >= delay ? Closing.TIMEOUT : null);
    }

    @Property(tries = 2_000)
    void aDrainedSourceSendsNowUnlessTheBatchBeforeIsStillBeingWritten(@ForAll boolean pending, @ForAll boolean writing) {
        Closing closing = new SealPolicy(100).onSourceDrained(pending, writing);
        assertThat(closing).isEqualTo(pending && writing ? null : Closing.EARLY);
    }

    @Property(tries = 2_000)
    void wokenByTheTimeTheOldestIsDueNeverAtOnceAndNeverLate(@ForAll("millis") long waited, @ForAll("millis") long delay) {
        long wake = new SealPolicy(delay).wakeInMillis(waited);
        assertThat(wake).isPositive();
        if (waited < delay) {
            assertThat(wake).as("when due").isEqualTo(delay - waited);
        } else {
            assertThat(wake).as("due already: soon").isLessThanOrEqualTo(Math.max(1, Math.min(delay, 10)));
        }
    }
}
