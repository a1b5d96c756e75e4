package io.sluice.sink.postgres.subset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import io.sluice.schemas.envelope.EventHeaders;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** What the subset's gate does before it looks at any target: which batches it judges, and refusing a cluster's. */
class SubsetGateTest {

    private static SinkRecord record(String mark) {
        SinkRecord r = new SinkRecord("shop.public.orders", 0, null, null, null, null, 7);
        if (mark != null) {
            r.headers().addString(EventHeaders.SUBSET, mark);
        }
        return r;
    }

    @Test
    void aBatchWithoutTheSubsetsRowsIsNotJudged() {
        SubsetGate gate = new SubsetGate(null, null, true);
        List<SinkRecord> batch = List.of(record(null), record(null));
        assertThat(SubsetGate.marked(batch)).isFalse();
        gate.judge(batch); // no target to look at: none is asked
        assertThat(SubsetGate.marked(List.of(record(null), record(EventHeaders.SUBSET_ROOT)))).isTrue();
    }

    @Test
    void onAClusterTheSubsetsStreamedRowsAreRefusedSayingWhatToDo() {
        SubsetGate gate = new SubsetGate(null, null, false);
        assertThatThrownBy(() -> gate.judge(List.of(record(EventHeaders.SUBSET_VIA + "[]"))))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("shop.public.orders")
                .hasMessageContaining("snapshot.mode=initial_only")
                .hasMessageContaining("sluice run");
    }
}
