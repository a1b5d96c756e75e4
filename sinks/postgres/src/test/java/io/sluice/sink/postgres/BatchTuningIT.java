package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.snapshot.SnapshotRun;
import io.sluice.sink.core.batch.BatchSizeTuner;
import io.sluice.testing.network.LinkShape;
import io.sluice.testing.network.TcpProxy;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A snapshot through a slow link (the shaped proxy between the sink and the target) tunes its
 * COPY batch size while it loads: it measures the starting size, searches the range, and ends
 * on a size that keeps more than one COPY stream busy within the load buffer, where the
 * starting size kept one; the rows arrive whole. A backlog of streamed changes through the same
 * kind of link tunes the apply batch size the same way, and the target ends equal to the source.
 */
@ExtendWith(PostgresExtension.class)
class BatchTuningIT {

    private static final long MIB = 1L << 20;

    @Test
    void aSnapshotThroughASlowLinkTunesItsBatchSize() throws Exception {
        TestDatabase source = TestDatabases.create(BatchTuningIT.class);
        TestDatabase target = TestDatabases.create(BatchTuningIT.class);
        try (TcpProxy link = new TcpProxy(target.host(), target.port())) {
            // 20 ms one way, 512 KiB window: one connection moves about 12 MiB/s, four about 50.
            link.shape(new LinkShape(Duration.ofMillis(20), Duration.ofMillis(2), 0, 512 * 1024));
            source.execute("CREATE TABLE events (id bigint PRIMARY KEY, kind int NOT NULL, payload text NOT NULL)",
                    "INSERT INTO events SELECT g, g % 17, md5(g::text) || repeat('x', 180) FROM generate_series(1, 700000) g");
            Map<String, String> sourceProps = source.sourceConnection();
            sourceProps.putAll(Map.of("topic.prefix", "tuning", "snapshot.mode", "initial_only", "snapshot.max.threads", "2"));
            Map<String, String> sinkProps = InProcessPipe.sinkProps(target,
                    "batch.max.bytes", Long.toString(8 * MIB), "load.buffer.bytes", Long.toString(8 * MIB), "load.freeze", "false",
                    "batch.tuning.min.bytes", Long.toString(MIB / 4), "batch.tuning.max.bytes", Long.toString(4 * MIB),
                    "batch.tuning.max.cov", "0.3");
            sinkProps.put("connection.url", "postgres://" + link.host() + ":" + link.port() + "/" + target.name() + "?sslmode=disable");
            List<BatchSizeTuner.Step> path;
            try (InProcessPipe pipe = new InProcessPipe(new HashMap<>(), sourceProps, sinkProps)) {
                boolean done = false;
                long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
                while (!done && System.nanoTime() < deadline) {
                    for (SourceRecord r : pipe.pump()) {
                        done |= Boolean.TRUE.equals(r.sourceOffset().get(SnapshotRun.COMPLETED));
                    }
                }
                pipe.commit();
                assertThat(done).as("snapshot finished").isTrue();
                path = pipe.sink().copyBatchSize().path();
                assertThat(pipe.sink().batchStatus()).contains("snapshot COPY batch");
            }
            assertThat(SnapshotIntoPostgresIT.checksum(target, "public.events")).isEqualTo(SnapshotIntoPostgresIT.checksum(source, "public.events"));
            assertThat(path).as("the tuner's path").isNotEmpty();
            assertThat(path.get(0).state()).isEqualTo(BatchSizeTuner.State.BASELINE);
            assertThat(path.get(0).bytes()).isEqualTo(8 * MIB);
            assertThat(path).as("sizes searched stay in the range")
                    .filteredOn(s -> s.state() == BatchSizeTuner.State.SEARCHING)
                    .isNotEmpty()
                    .allSatisfy(s -> assertThat(s.bytes()).isBetween(MIB / 4, 4 * MIB));
            BatchSizeTuner.Step last = path.get(path.size() - 1);
            assertThat(last.state()).as("tuning finished within the snapshot: %s", path).isEqualTo(BatchSizeTuner.State.TUNED);
            assertThat(last.bytes()).as("a size that lets several COPYs share the 8 MiB buffer").isLessThanOrEqualTo(4 * MIB);
            double baseline = path.get(0).meanBytesPerSecond();
            assertThat(last.meanBytesPerSecond()).as("throughput of the chosen size against the starting size's").isGreaterThan(baseline);
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    @Test
    void aBacklogOfChangesThroughASlowLinkTunesTheApplyBatchSize() throws Exception {
        TestDatabase source = TestDatabases.create(BatchTuningIT.class);
        TestDatabase target = TestDatabases.create(BatchTuningIT.class);
        try (TcpProxy link = new TcpProxy(target.host(), target.port())) {
            link.shape(new LinkShape(Duration.ofMillis(20), Duration.ofMillis(2), 0, 512 * 1024));
            source.execute("CREATE TABLE events (id bigint PRIMARY KEY, kind int NOT NULL, payload text NOT NULL)",
                    "INSERT INTO events SELECT g, g % 17, md5(g::text) || repeat('x', 180) FROM generate_series(1, 100000) g",
                    "CREATE TABLE log (at int PRIMARY KEY)");
            Map<String, String> sourceProps = source.sourceConnection();
            sourceProps.putAll(Map.of("topic.prefix", "backlog", "snapshot.max.threads", "2"));
            Map<String, String> sinkProps = InProcessPipe.sinkProps(target, "batch.max.bytes", Long.toString(MIB),
                    "batch.tuning.min.bytes", Long.toString(MIB / 16), "batch.tuning.max.bytes", Long.toString(4 * MIB),
                    "batch.tuning.max.cov", "0.3");
            sinkProps.put("connection.url", "postgres://" + link.host() + ":" + link.port() + "/" + target.name() + "?sslmode=disable");
            Map<Map<String, ?>, Map<String, Object>> offsets = new HashMap<>();
            try (InProcessPipe pipe = new InProcessPipe(offsets, sourceProps, sinkProps)) {
                pumpUntil(pipe, r -> Boolean.TRUE.equals(r.sourceOffset().get(SnapshotRun.COMPLETED)));
                pipe.commit();
            }
            // The backlog: while no sink runs, four passes over the table in transactions of a thousand rows.
            source.execute("DO $$ BEGIN FOR pass IN 1..4 LOOP FOR lo IN 1..100000 BY 1000 LOOP "
                            + "UPDATE events SET kind = kind + 1, payload = md5((kind + pass)::text) || repeat('y', 180) "
                            + "WHERE id BETWEEN lo AND lo + 999; COMMIT; END LOOP; END LOOP; END $$",
                    "INSERT INTO log VALUES (-1)");
            List<BatchSizeTuner.Step> path;
            try (InProcessPipe pipe = new InProcessPipe(offsets, sourceProps, sinkProps)) {
                pumpUntil(pipe, r -> r.topic().equals("backlog.public.log"));
                pipe.commit();
                path = pipe.sink().applyBatchSize().path();
                assertThat(pipe.sink().batchStatus()).contains("stream apply batch");
            }
            assertThat(SnapshotIntoPostgresIT.checksum(target, "public.events")).isEqualTo(SnapshotIntoPostgresIT.checksum(source, "public.events"));
            assertThat(path).as("the tuner's path").isNotEmpty();
            assertThat(path.get(0).state()).isEqualTo(BatchSizeTuner.State.BASELINE);
            assertThat(path.get(0).bytes()).isEqualTo(MIB);
            assertThat(path).as("sizes searched stay in the range")
                    .filteredOn(s -> s.state() == BatchSizeTuner.State.SEARCHING)
                    .isNotEmpty()
                    .allSatisfy(s -> assertThat(s.bytes()).isBetween(MIB / 16, 4 * MIB));
            BatchSizeTuner.Step last = path.get(path.size() - 1);
            assertThat(last.state()).as("tuning finished within the backlog: %s", path).isEqualTo(BatchSizeTuner.State.TUNED);
            assertThat(last.meanBytesPerSecond()).as("throughput of the chosen size against the starting size's")
                    .isGreaterThanOrEqualTo(path.get(0).meanBytesPerSecond());
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static void pumpUntil(InProcessPipe pipe, java.util.function.Predicate<SourceRecord> end) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (System.nanoTime() < deadline) {
            for (SourceRecord r : pipe.pump()) {
                if (end.test(r)) {
                    return;
                }
            }
        }
        throw new AssertionError("the end did not come through in five minutes");
    }
}
