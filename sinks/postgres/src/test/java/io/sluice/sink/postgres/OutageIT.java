package io.sluice.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.sluice.schemas.envelope.Envelope;
import io.sluice.testing.network.TcpProxy;
import io.sluice.testing.kafka.SourceToSink;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The target, then the source, unreachable for a few seconds while the transfer workload of
 * {@link StreamApplyIT} runs (every
 * connection dropped and new ones refused, by a proxy in front of each): the sink holds its
 * changes and tries again, the stream reconnects and resumes from the confirmed position, and
 * the target ends equal to the source without a restart.
 */
@ExtendWith(PostgresExtension.class)
class OutageIT {

    @Test
    void targetAndSourceOutagesAreRiddenOut() throws Exception {
        TestDatabase source = TestDatabases.create(OutageIT.class);
        TestDatabase target = TestDatabases.create(OutageIT.class);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try (TcpProxy toSource = new TcpProxy(source.host(), source.port()); TcpProxy toTarget = new TcpProxy(target.host(), target.port())) {
            run(source, target, toSource, toTarget, timer);
        } finally {
            timer.shutdownNow();
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static void run(TestDatabase source, TestDatabase target, TcpProxy toSource, TcpProxy toTarget, ScheduledExecutorService timer)
            throws Exception {
        source.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL, note text)",
                "ALTER TABLE accounts ALTER COLUMN note SET STORAGE EXTERNAL",
                "INSERT INTO accounts SELECT g, 0, CASE WHEN g % 10 = 0 THEN repeat(md5(g::text), 100) END FROM generate_series(1, 20000) g",
                "CREATE TABLE history (account bigint, delta bigint, at timestamptz DEFAULT clock_timestamp())",
                "CREATE SEQUENCE account_ids START 1000000");
        Map<String, String> sourceProps = source.sourceConnection();
        sourceProps.putAll(Map.of("database.hostname", toSource.host(), "database.port", Integer.toString(toSource.port()),
                "topic.prefix", "outage", "status.update.interval.ms", "200", "stream.reconnect.timeout.ms", "60000"));
        Map<String, String> sinkProps = Pipes.sinkProps(target, "apply.retry.timeout.ms", "60000");
        sinkProps.put("position.mode", "source");
        sinkProps.put("connection.url", "postgres://" + toTarget.host() + ":" + toTarget.port() + "/" + target.name() + "?sslmode=disable");
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong transactions = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Map<Map<String, ?>, Map<String, Object>> stored = new ConcurrentHashMap<>();
        try (SourceToSink<PostgresSinkTask> pipe = Pipes.open(stored, sourceProps, sinkProps)) {
            Thread writer = new Thread(() -> StreamApplyIT.workload(source, writing, transactions, failure));
            writer.start();
            try {
                // Through the snapshot (whose frozen loads hold offsets back) to the first streamed change.
                long snapshotDeadline = System.nanoTime() + 120_000_000_000L;
                long changes = 0;
                while (changes == 0 && System.nanoTime() < snapshotDeadline) {
                    changes += Pipes.changes(pipe.pump());
                }
                pipe.commit();
                pumpFor(pipe, 2_000);
                long slotPid = source.queryLong("SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'sluice_outage'");
                toTarget.cut();
                timer.schedule(toTarget::restore, 3, TimeUnit.SECONDS);
                pumpFor(pipe, 5_000);
                toSource.cut();
                timer.schedule(toSource::restore, 3, TimeUnit.SECONDS);
                pumpFor(pipe, 6_000);
                assertThat(source.queryLong("SELECT coalesce(active_pid, 0) FROM pg_replication_slots WHERE slot_name = 'sluice_outage'"))
                        .as("the stream reconnected with a new walsender").isNotIn(0L, slotPid);
            } finally {
                writing.set(false);
                writer.join();
            }
            assertThat(failure.get()).isNull();
            assertThat(transactions.get()).isPositive();
            source.execute("INSERT INTO history (account, delta) VALUES (-1, 0)");
            long deadline = System.nanoTime() + 120_000_000_000L;
            boolean end = false;
            while (!end && System.nanoTime() < deadline) {
                for (SourceRecord r : pipe.pump()) {
                    if (r.topic().equals("outage.public.history") && Envelope.isEnvelope(r.valueSchema())) {
                        Struct after = ((Struct) r.value()).getStruct(Envelope.AFTER);
                        end |= after != null && Long.valueOf(-1).equals(after.get("account"));
                    }
                }
            }
            assertThat(end).as("the end marker came through").isTrue();
            pipe.commit();
        }
        assertThat(target.checksum("accounts")).isEqualTo(source.checksum("accounts"));
        assertThat(target.checksum("history")).as("keyless: nothing applied twice").isEqualTo(source.checksum("history"));
    }

    /** Moves records from source to sink for a while, committing now and then as the runtime does. */
    private static void pumpFor(SourceToSink<PostgresSinkTask> pipe, long millis) throws Exception {
        long end = System.nanoTime() + millis * 1_000_000L;
        int n = 0;
        while (System.nanoTime() < end) {
            pipe.pump();
            if (++n % 5 == 0) {
                pipe.commit();
            }
        }
    }
}
