package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.sluice.connector.postgres.snapshot.SnapshotRun;
import io.sluice.sink.core.batch.BatchSizeTuner;
import io.sluice.testing.network.LinkShape;
import io.sluice.testing.network.TcpProxy;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A snapshot through a slow link (the shaped proxy between the sink and the target) tunes its
 * COPY batch size while it loads: it climbs from the starting size, searches the range, and
 * settles; no size it tries is above the load buffer's share of one COPY stream (a larger one
 * would leave streams idle), whatever the batch size and range asked for; the rows arrive whole. A backlog of streamed changes through the same
 * kind of link tunes the apply batch size the same way, and the target ends equal to the source.
 */
@ExtendWith(PostgresExtension.class)
class BatchTuningIT {

    private static final long MIB = 1L << 20;

    @Test
    void aSnapshotThroughASlowLinkTunesItsBatchSize() throws Exception {
        throughASlowLink((source, target, link) -> {
            // About 260 MB: on a noisy machine the tuner needs more batches of each size before it may choose (a CI run
            // ended 150 MB while it still compared 1 and 2 MiB, each measured twelve times).
            source.execute("CREATE TABLE events (id bigint PRIMARY KEY, kind int NOT NULL, payload text NOT NULL)",
                    "INSERT INTO events SELECT g, g % 17, md5(g::text) || repeat('x', 180) FROM generate_series(1, 1200000) g");
            Map<String, String> sourceProps = source.sourceConnection();
            sourceProps.putAll(Map.of("topic.prefix", "tuning", "snapshot.mode", "initial_only", "snapshot.max.threads", "2"));
            Map<String, String> sinkProps = sinkProps(target, link,
                    "batch.max.bytes", Long.toString(8 * MIB), "load.buffer.bytes", Long.toString(8 * MIB), "load.freeze", "false",
                    "batch.tuning.min.bytes", Long.toString(MIB / 4), "batch.tuning.max.bytes", Long.toString(8 * MIB));
            List<BatchSizeTuner.Step> path;
            try (SourceToSink<PostgresSinkTask> pipe = Pipes.open(new HashMap<>(), sourceProps, sinkProps)) {
                pumpUntil(pipe, r -> Boolean.TRUE.equals(r.sourceOffset().get(SnapshotRun.COMPLETED)));
                pipe.commit();
                path = pipe.sink().copyBatchSize().path();
                assertThat(pipe.sink().batchStatus()).contains("snapshot COPY batch");
            }
            assertThat(SnapshotIntoPostgresIT.checksum(target, "public.events")).isEqualTo(SnapshotIntoPostgresIT.checksum(source, "public.events"));
            // 8 MiB asked for, but the 8 MiB buffer holds four COPY streams' batches of 2 MiB at most.
            BatchSizeTuner.Step last = searchedAndTuned(path, 2 * MIB, MIB / 4, 2 * MIB);
            assertThat(last.meanBytesPerSecond()).as("throughput of the chosen size against the starting size's: %s", path)
                    .isGreaterThanOrEqualTo(startingSizeBefore(path, last));
            // The size settled on last is kept on the target, and the sink started again begins its search there.
            long lastTuned = path.stream().filter(st -> st.state() == BatchSizeTuner.State.TUNED && st.samples() == 0)
                    .reduce((a, b) -> b).orElseThrow().bytes();
            assertThat(keptSize(target, "snapshot-copy")).isEqualTo(lastTuned);
            PostgresSinkTask again = new PostgresSinkTask();
            again.start(sinkProps);
            try {
                assertThat(again.copyBatchSize().bytes()).as("where the next run starts").isEqualTo(lastTuned);
                assertThat(again.applyBatchSize().bytes()).as("the apply batches were never tuned").isEqualTo(8 * MIB);
            } finally {
                again.stop();
            }
        });
    }

    /** The size kept for a kind of batches, once it is written (on a thread of the sink's own, soon after the tuner settles). */
    private static long keptSize(TestDatabase target, String batches) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try (java.sql.Connection c = target.connect(); java.sql.Statement s = c.createStatement();
                 java.sql.ResultSet rs = s.executeQuery("SELECT bytes FROM sluice.batch_sizes WHERE batches = '" + batches + "'")) {
                if (rs.next()) {
                    return rs.getLong(1);
                }
            } catch (java.sql.SQLException e) {
                if (!"42P01".equals(e.getSQLState())) {
                    throw e;
                }
            }
            assertThat(System.nanoTime()).as("a size kept for " + batches).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    @Test
    void aBacklogOfChangesThroughASlowLinkTunesTheApplyBatchSize() throws Exception {
        throughASlowLink((source, target, link) -> {
            source.execute("CREATE TABLE events (id bigint PRIMARY KEY, kind int NOT NULL, payload text NOT NULL)",
                    "INSERT INTO events SELECT g, g % 17, md5(g::text) || repeat('x', 180) FROM generate_series(1, 100000) g",
                    "CREATE TABLE log (at int PRIMARY KEY)");
            Map<String, String> sourceProps = source.sourceConnection();
            sourceProps.putAll(Map.of("topic.prefix", "backlog", "snapshot.max.threads", "2"));
            Map<String, String> sinkProps = sinkProps(target, link, "batch.max.bytes", Long.toString(MIB),
                    "batch.tuning.min.bytes", Long.toString(MIB / 16), "batch.tuning.max.bytes", Long.toString(4 * MIB));
            Map<Map<String, ?>, Map<String, Object>> offsets = new HashMap<>();
            try (SourceToSink<PostgresSinkTask> pipe = Pipes.open(offsets, sourceProps, sinkProps)) {
                pumpUntil(pipe, r -> Boolean.TRUE.equals(r.sourceOffset().get(SnapshotRun.COMPLETED)));
                pipe.commit();
            }
            // The backlog: while no sink runs, four passes over the table in transactions of a thousand rows.
            source.execute("DO $$ BEGIN FOR pass IN 1..4 LOOP FOR lo IN 1..100000 BY 1000 LOOP "
                            + "UPDATE events SET kind = kind + 1, payload = md5((kind + pass)::text) || repeat('y', 180) "
                            + "WHERE id BETWEEN lo AND lo + 999; COMMIT; END LOOP; END LOOP; END $$",
                    "INSERT INTO log VALUES (-1)");
            List<BatchSizeTuner.Step> path;
            try (SourceToSink<PostgresSinkTask> pipe = Pipes.open(offsets, sourceProps, sinkProps)) {
                pumpUntil(pipe, r -> r.topic().equals("backlog.public.log"));
                pipe.commit();
                path = pipe.sink().applyBatchSize().path();
                assertThat(pipe.sink().batchStatus()).contains("stream apply batch");
            }
            assertThat(SnapshotIntoPostgresIT.checksum(target, "public.events")).isEqualTo(SnapshotIntoPostgresIT.checksum(source, "public.events"));
            BatchSizeTuner.Step last = searchedAndTuned(path, MIB, MIB / 16, 4 * MIB);
            assertThat(last.meanBytesPerSecond()).as("throughput of the chosen size against the starting size's: %s", path)
                    .isGreaterThanOrEqualTo(startingSizeBefore(path, last));
        });
    }

    @FunctionalInterface
    private interface Scenario {
        void run(TestDatabase source, TestDatabase target, TcpProxy link) throws Exception;
    }

    /** Two databases, the target behind a link of 20 ms one way with a 512 KiB window (one connection: about 12 MiB/s). */
    private static void throughASlowLink(Scenario scenario) throws Exception {
        TestDatabase source = TestDatabases.create(BatchTuningIT.class);
        TestDatabase target = TestDatabases.create(BatchTuningIT.class);
        try (TcpProxy link = new TcpProxy(target.host(), target.port())) {
            link.shape(new LinkShape(Duration.ofMillis(20), Duration.ofMillis(2), 0, 512 * 1024));
            scenario.run(source, target, link);
        } finally {
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static Map<String, String> sinkProps(TestDatabase target, TcpProxy link, String... settings) {
        Map<String, String> props = Pipes.sinkProps(target, settings);
        props.put("batch.tuning.max.cov", "0.3");
        props.put("position.mode", "source");
        props.put("connection.url", "postgres://" + link.host() + ":" + link.port() + "/" + target.name() + "?sslmode=disable");
        return props;
    }

    /** The path climbs from the starting size, searches only within the range, and settles; returns the last size it settled on. */
    private static BatchSizeTuner.Step searchedAndTuned(List<BatchSizeTuner.Step> path, long start, long min, long max) {
        assertThat(path).as("the tuner's path").isNotEmpty();
        assertThat(path.get(0).state()).isEqualTo(BatchSizeTuner.State.CLIMBING);
        assertThat(path.get(0).bytes()).isEqualTo(start);
        assertThat(path).as("sizes searched stay in the range")
                .filteredOn(s -> s.state() == BatchSizeTuner.State.SEARCHING || s.state() == BatchSizeTuner.State.CLIMBING)
                .isNotEmpty()
                .allSatisfy(s -> assertThat(s.bytes()).isBetween(min, max));
        // A drop in use may start a new search near the end of the load (on a shared machine it does, now and then), so the
        // path need not end tuned: it must have settled, and the last settling is judged, with the throughput the search
        // measured for the size it chose.
        BatchSizeTuner.Step settled = null;
        for (int i = 1; i < path.size(); i++) {
            if (path.get(i).state() == BatchSizeTuner.State.TUNED && path.get(i - 1).state() != BatchSizeTuner.State.TUNED) {
                settled = path.get(i);
            }
        }
        assertThat(settled).as("tuning settled: %s", path).isNotNull();
        return settled;
    }

    /**
     * The starting size's throughput as last measured before {@code settled}: its climb batch, or
     * its careful measurement when the search took one (the tuner keeps a size only when it beats that).
     */
    private static double startingSizeBefore(List<BatchSizeTuner.Step> path, BatchSizeTuner.Step settled) {
        long start = path.get(0).bytes();
        double last = 0;
        for (BatchSizeTuner.Step step : path) {
            if (step == settled) {
                break;
            }
            if (step.bytes() == start && step.samples() > 0) {
                last = step.meanBytesPerSecond();
            }
        }
        return last;
    }

    private static void pumpUntil(SourceToSink<PostgresSinkTask> pipe, Predicate<SourceRecord> end) throws Exception {
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
