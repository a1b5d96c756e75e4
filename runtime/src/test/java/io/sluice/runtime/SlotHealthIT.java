package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.runtime.metrics.Scrape;
import io.sluice.testing.postgres.PostgresServer;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slot heading for invalidation: a server of its own with {@code max_slot_wal_keep_size = 64MB},
 * the pipeline held (its target locked under a change) while the source writes WAL. The warning
 * and {@code sluice_source_slot_at_risk} come while the server still keeps the slot's WAL
 * ({@code wal_status} not yet {@code lost}), naming what will happen and what to do; once the
 * server has invalidated it, the pipeline stops (exit 1) saying so and what to do.
 */
class SlotHealthIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path work;

    @Test
    void theWarningComesBeforeTheSlotIsLost() throws Exception {
        try (PostgresServer.Launched server = PostgresServer.launch("slot-health", "max_slot_wal_keep_size = 64MB",
                "max_wal_size = 64MB", "min_wal_size = 32MB")) {
            TestDatabase source = TestDatabases.create(server, SlotHealthIT.class);
            TestDatabase target = TestDatabases.create(server, SlotHealthIT.class);
            String name = "endangered";
            CompletableFuture<Void> stop = new CompletableFuture<>();
            try {
                source.execute("CREATE TABLE watched (id int PRIMARY KEY, v text)", "INSERT INTO watched VALUES (1, 'one')",
                        "CREATE TABLE filler (id bigserial PRIMARY KEY, pad text)");
                int port = SluiceRuns.freePort();
                String base = "http://127.0.0.1:" + port;
                CompletableFuture<Result> run = SluiceRuns.start(stop, "run", "--source", SluiceRuns.url(source), "--target",
                        SluiceRuns.url(target), "--name", name, "--offsets", work.resolve("endangered.offsets").toString(),
                        "--tables", "public.watched", "--metrics", "127.0.0.1:" + port,
                        "--set", "source.slot.health.interval.ms=200", "--set", "source.slot.safe.wal.warn.bytes=" + (40L << 20),
                        "--set", "source.slot.lag.warn.bytes=" + (24L << 20), "--set", "source.heartbeat.interval.ms=0");
                SluiceRuns.waitFor(() -> "streaming".equals(status(base).path("phase").asText())
                        && Scrape.orEmpty(base).value("sluice_source_slot_at_risk", "pipeline", name).orElse(-1) == 0, run,
                        "the pipeline to stream with a healthy slot");
                String slot = source.queryText("SELECT slot_name FROM pg_replication_slots WHERE database = current_database()");

                try (Connection lock = target.connect(); Statement s = lock.createStatement()) {
                    lock.setAutoCommit(false);
                    s.execute("LOCK TABLE watched IN ACCESS EXCLUSIVE MODE");
                    source.execute("UPDATE watched SET v = 'held' WHERE id = 1");
                    // WAL the slot must keep, a few MB at a time, until the warning: it must come while the slot still has its WAL.
                    String statusWhenWarned = null;
                    String warnings = "";
                    for (int i = 0; i < 200 && !(statusWhenWarned != null && warnings.contains("slot.lag.warn.bytes")); i++) {
                        source.execute("INSERT INTO filler (pad) SELECT repeat(md5(g::text), 32) FROM generate_series(1, 2000) g");
                        // A step at a time: the next WAL is written only once the slot was read after this.
                        double written = System.currentTimeMillis() / 1000.0;
                        SluiceRuns.waitFor(() -> Scrape.of(base).value("sluice_source_slot_checked_timestamp_seconds", "pipeline", name,
                                "slot", slot).orElse(0) > written, run, "a reading of the slot after the write");
                        warnings = status(base).path("warnings").toString();
                        if (statusWhenWarned == null && warnings.contains("will be invalidated after")) {
                            statusWhenWarned = walStatus(source, slot);
                            assertThat(Scrape.of(base).value("sluice_source_slot_at_risk", "pipeline", name, "slot", slot)).hasValue(1);
                        }
                    }
                    assertThat(statusWhenWarned).as("wal_status when the warning came").isIn("reserved", "extended", "unreserved");
                    assertThat(warnings).as("the warnings").contains("Replication slot " + slot + " will be invalidated after")
                            .contains("raise max_slot_wal_keep_size").contains("Replication slot " + slot + " holds")
                            .contains("slot.lag.warn.bytes");

                    // More WAL and a checkpoint: the server invalidates the slot, and the status says so.
                    for (int i = 0; i < 200 && !"lost".equals(walStatus(source, slot)); i++) {
                        source.execute("INSERT INTO filler (pad) SELECT repeat(md5(g::text), 32) FROM generate_series(1, 4000) g",
                                "CHECKPOINT");
                    }
                    assertThat(walStatus(source, slot)).isEqualTo("lost");
                    lock.rollback();
                }
                // It cannot go on from a lost slot: it stops, saying why and what to do.
                Result ended = run.get(120, TimeUnit.SECONDS);
                assertThat(ended.exit()).isEqualTo(1);
                assertThat(ended.err()).contains("Replication slot " + slot + " was invalidated").contains("sluice run --fresh");
            } finally {
                stop.complete(null);
                TestDatabases.drop(source);
                TestDatabases.drop(target);
            }
        }
    }

    private static String walStatus(TestDatabase source, String slot) throws Exception {
        return source.queryText("SELECT wal_status FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
    }

    private static JsonNode status(String base) {
        try {
            return JSON.readTree(Scrape.get(base, "/status.json").body());
        } catch (Exception e) {
            return JSON.createObjectNode();
        }
    }
}
