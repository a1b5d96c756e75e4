package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.sluice.schemas.envelope.SchemaChangeEvents;
import io.sluice.schemas.envelope.SourceInfo;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;

/**
 * A sink keeping Kafka offsets (as on a cluster) that meets a schema event without an ordering
 * barrier stops with what to set, rather than apply it in no particular order with the rows.
 */
@ExtendWith(PostgresExtension.class)
class UnorderedSchemaEventIT {

    @Test
    void aSchemaEventWithoutBarrierStopsTheSinkWithWhatToSet(TestDatabase target) throws Exception {
        PostgresSinkTask task = new PostgresSinkTask();
        task.start(Map.of("connection.url", "postgres://" + target.host() + ":" + target.port() + "/" + target.name() + "?sslmode=disable",
                "connection.username", target.user(), "connection.password", target.password(), "position.mode", "kafka"));
        try {
            SourceInfo source = new SourceInfo("shop", "shop", "", "", 1_000L, SourceInfo.Snapshot.FIRST, null, null, null);
            SinkRecord event = new SinkRecord("shop.schema-changes", 0, SchemaChangeEvents.KEY_SCHEMA, SchemaChangeEvents.key("shop"),
                    SchemaChangeEvents.VALUE_SCHEMA, SchemaChangeEvents.value(source, null, "CREATE TABLE public.t (id int)", List.of(), 1_000L), 7);
            assertThatThrownBy(() -> task.put(List.of(event))).isInstanceOf(ConnectException.class)
                    .hasMessageContaining("shop.schema-changes").hasMessageContaining("barriers.topic.partitions");
            assertThat(target.queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = 't'"))
                    .as("nothing applied").isZero();
        } finally {
            task.stop();
        }
    }
}
