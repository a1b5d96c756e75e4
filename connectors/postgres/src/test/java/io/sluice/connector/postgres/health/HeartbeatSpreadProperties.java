package io.sluice.connector.postgres.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import io.sluice.schemas.envelope.Heartbeats;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Heartbeats copied into every partition. Invariant: the records keep their order; each
 * heartbeat becomes one copy per partition (partition i once for each i), with its offset and
 * value; every other record is the same object, untouched; with one partition nothing changes.
 */
class HeartbeatSpreadProperties {

    @Property(tries = 500)
    void eachHeartbeatGoesToEveryPartitionInItsPlace(@ForAll("batches") List<SourceRecord> records,
                                                     @ForAll @IntRange(min = 1, max = 12) int partitions) {
        List<SourceRecord> out = new HeartbeatSpread(partitions).spread(records);
        int i = 0;
        for (SourceRecord r : records) {
            if (Heartbeats.is(r.valueSchema())) {
                for (int p = 0; p < partitions; p++) {
                    SourceRecord copy = out.get(i++);
                    assertThat(copy.kafkaPartition()).isEqualTo(partitions == 1 ? r.kafkaPartition() : Integer.valueOf(p));
                    assertThat(copy.sourceOffset()).isEqualTo(r.sourceOffset());
                    assertThat(copy.value()).isEqualTo(r.value());
                    assertThat(copy.topic()).isEqualTo(r.topic());
                    if (partitions == 1) {
                        break;
                    }
                }
            } else {
                assertThat(out.get(i++)).isSameAs(r);
            }
        }
        assertThat(out).hasSize(i);
    }

    @Provide
    Arbitrary<List<SourceRecord>> batches() {
        Arbitrary<SourceRecord> heartbeat = Arbitraries.longs().between(0, Long.MAX_VALUE).map(at -> new SourceRecord(Map.of("server", "p"),
                Map.of("lsn_commit", at), "p.heartbeats", null, null, null, Heartbeats.VALUE_SCHEMA, Heartbeats.value("p", at, at)));
        Arbitrary<SourceRecord> change = Arbitraries.strings().ofMaxLength(5).map(v -> new SourceRecord(Map.of("server", "p"),
                Map.of("lsn_commit", 1L), "p.public.t", null, Schema.STRING_SCHEMA, v, Schema.STRING_SCHEMA, v));
        return Arbitraries.oneOf(heartbeat, change).list().ofMaxSize(30);
    }
}
