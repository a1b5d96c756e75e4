package io.sluice.connector.postgres.health;

import java.util.ArrayList;
import java.util.List;

import io.sluice.schemas.envelope.Heartbeats;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Sends each heartbeat to every partition of the heartbeat topic, on a Kafka Connect cluster: a
 * sink's tasks share the topic's partitions, and each must see the heartbeats to know its own
 * end-to-end lag, or an idle task would seem to fall behind. The copies carry the same offset, so
 * the slot is confirmed past the heartbeat once Connect has them all.
 */
public final class HeartbeatSpread {

    private final int partitions;

    /** @param partitions the heartbeat topic's partitions (those Connect creates it with); 1 sends each once, as it is */
    public HeartbeatSpread(int partitions) {
        this.partitions = Math.max(1, partitions);
    }

    /** The records, each heartbeat among them replaced by one copy per partition, in place. */
    public List<SourceRecord> spread(List<SourceRecord> records) {
        if (partitions == 1 || records.stream().noneMatch(r -> Heartbeats.is(r.valueSchema()))) {
            return records;
        }
        List<SourceRecord> out = new ArrayList<>(records.size() + partitions);
        for (SourceRecord r : records) {
            if (!Heartbeats.is(r.valueSchema())) {
                out.add(r);
                continue;
            }
            for (int p = 0; p < partitions; p++) {
                out.add(new SourceRecord(r.sourcePartition(), r.sourceOffset(), r.topic(), p, r.keySchema(), r.key(), r.valueSchema(),
                        r.value(), r.timestamp(), r.headers()));
            }
        }
        return out;
    }
}
