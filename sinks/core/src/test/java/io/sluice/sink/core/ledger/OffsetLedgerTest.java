package io.sluice.sink.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OffsetLedgerTest {

    private static final TopicPartition A = new TopicPartition("a", 0);
    private static final TopicPartition B = new TopicPartition("b", 0);

    @Test
    void aPartitionWithNothingDurableIsLeftOutAndConnectsMetadataIsKept() {
        OffsetLedger ledger = new OffsetLedger();
        ledger.taken(A, 0);
        ledger.taken(B, 0);
        ledger.durableAt(A, 0);
        Map<TopicPartition, OffsetAndMetadata> reported = ledger.committable(Map.of(A, new OffsetAndMetadata(1, "m"),
                B, new OffsetAndMetadata(1)));
        assertThat(reported).containsOnly(Map.entry(A, new OffsetAndMetadata(1, "m")));
    }

    @Test
    void neverReportsPastWhatConnectOffers() {
        OffsetLedger ledger = new OffsetLedger();
        ledger.durableAt(A, 9);
        assertThat(ledger.committable(Map.of(A, new OffsetAndMetadata(4, "m")))).containsOnly(Map.entry(A, new OffsetAndMetadata(4, "m")));
    }

    @Test
    void anEpochIsConfirmedOnlyWhenNoOlderOneWaits() {
        OffsetLedger ledger = new OffsetLedger();
        ledger.taken(A, 0); // in a write of epoch 0
        long first = ledger.endEpoch();
        ledger.taken(A, 1); // in a write of epoch 1
        long second = ledger.endEpoch();
        ledger.confirmBefore(0); // the epoch-0 write is still running
        assertThat(ledger.committable(Map.of(A, new OffsetAndMetadata(2)))).isEmpty();
        ledger.confirmBefore(first); // it finished; the epoch-1 write has not
        assertThat(ledger.committable(Map.of(A, new OffsetAndMetadata(2)))).containsEntry(A, new OffsetAndMetadata(1));
        assertThat(ledger.allEpochsConfirmed()).isFalse();
        ledger.confirmBefore(second);
        assertThat(ledger.committable(Map.of(A, new OffsetAndMetadata(2)))).containsEntry(A, new OffsetAndMetadata(2));
        assertThat(ledger.allEpochsConfirmed()).isTrue();
    }

    @Test
    void aHoldCapsItsPartitionsAtTheirFirstHeldRecordUntilReleased() {
        OffsetLedger ledger = new OffsetLedger();
        ledger.taken(A, 0);
        ledger.hold("load", A, 1);
        ledger.taken(A, 1);
        ledger.hold("load", A, 2); // only the first counts
        ledger.taken(A, 2);
        ledger.allTakenDurable();
        assertThat(ledger.committable(Map.of(A, new OffsetAndMetadata(3)))).containsEntry(A, new OffsetAndMetadata(1));
        assertThat(ledger.holds("load")).isTrue();
        ledger.release("load");
        assertThat(ledger.holdsNothing()).isTrue();
        assertThat(ledger.committable(Map.of(A, new OffsetAndMetadata(3)))).containsEntry(A, new OffsetAndMetadata(3));
    }

    @Test
    void aPartitionTakenAwayIsForgotten() {
        OffsetLedger ledger = new OffsetLedger();
        ledger.taken(A, 5);
        ledger.taken(B, 5);
        ledger.endEpoch();
        ledger.forget(List.of(A));
        ledger.confirmBefore(1);
        assertThat(ledger.takenSoFar()).containsOnlyKeys(B);
        assertThat(ledger.committable(Map.of(A, new OffsetAndMetadata(6), B, new OffsetAndMetadata(6)))).containsOnlyKeys(B);
    }
}
