package io.sluice.runtime.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import io.sluice.schemas.envelope.EventHeaders;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/**
 * A record addressed to one target of a fan-out ({@code sluice.resync.for} {@code @<target>}, a
 * re-sync of a target brought back) reaches that target alone, as a record for every subscriber
 * there; records addressed to a webhook subscription, or to nobody, reach every target as they are.
 */
class TargetTransformsTest {

    @Test
    void aRecordAddressedToATargetReachesItAloneWithoutItsAddress() {
        TargetTransforms search = TargetTransforms.none().addressedTo("search");
        TargetTransforms replica = TargetTransforms.none().addressedTo("replica");

        SourceRecord toSearch = record("@search");
        SourceRecord taken = search.apply(toSearch);
        assertThat(taken).isNotNull();
        assertThat(taken.headers().lastWithName(EventHeaders.RESYNC_FOR)).as("the address is removed").isNull();
        assertThat(taken.sourcePartition()).isSameAs(toSearch.sourcePartition());
        assertThat(taken.sourceOffset()).isSameAs(toSearch.sourceOffset());
        assertThat(toSearch.headers().lastWithName(EventHeaders.RESYNC_FOR)).as("the record the others see is left as it is").isNotNull();
        assertThat(replica.apply(toSearch)).as("dropped for another target").isNull();
        assertThat(replica.apply(record("@replica-2"))).as("a name that only begins like this one's").isNull();

        SourceRecord forSubscription = record("late");
        assertThat(replica.apply(forSubscription)).as("a webhook subscription's backfill goes on as it is").isSameAs(forSubscription);
        SourceRecord plain = record(null);
        assertThat(search.apply(plain)).isSameAs(plain);
        assertThat(TargetTransforms.of(Map.of()).apply(toSearch)).as("one target alone: nothing is addressed").isSameAs(toSearch);
    }

    private static SourceRecord record(String address) {
        SourceRecord r = new SourceRecord(Map.of("server", "shop"), Map.of("lsn", 42L), "shop.public.items", null, Schema.INT32_SCHEMA, 1,
                Schema.INT32_SCHEMA, 1);
        if (address != null) {
            r.headers().addString(EventHeaders.RESYNC_FOR, address);
        }
        return r;
    }
}
