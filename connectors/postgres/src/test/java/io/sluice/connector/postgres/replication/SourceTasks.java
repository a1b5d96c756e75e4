package io.sluice.connector.postgres.replication;

import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.testing.kafka.SourceTaskContexts;
import io.sluice.testing.postgres.TestDatabase;
import org.apache.kafka.connect.source.SourceRecord;

/** Source tasks driven by a test as Connect would: started on a database with offsets read live from a map, polled. */
final class SourceTasks {

    private SourceTasks() {
    }

    /** A task on the database with the given settings (key, value, ...) and stored offsets read live from {@code stored}. */
    static PostgresSourceTask start(TestDatabase db, Map<Map<String, String>, Map<String, Object>> stored, String... settings) {
        Map<String, String> props = db.sourceConnection();
        props.put("status.update.interval.ms", "200");
        for (int i = 0; i < settings.length; i += 2) {
            props.put(settings[i], settings[i + 1]);
        }
        PostgresSourceTask task = new PostgresSourceTask();
        task.initialize(SourceTaskContexts.withOffsets(stored));
        task.start(props);
        return task;
    }

    /** One poll; empty rather than null when nothing came. */
    static List<SourceRecord> poll(PostgresSourceTask task) throws InterruptedException {
        List<SourceRecord> batch = task.poll();
        return batch == null ? List.of() : batch;
    }
}
