package io.sluice.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.runtime.SluiceRuns.Result;
import io.sluice.runtime.metrics.Scrape;
import io.sluice.testing.browser.HeadlessChromium;
import io.sluice.testing.postgres.Pgbench;
import io.sluice.testing.postgres.PostgresExtension;
import io.sluice.testing.postgres.TestDatabase;
import io.sluice.testing.postgres.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page of {@code sluice run --metrics}, loaded in headless Chromium while the pipeline
 * streams: its scripts draw the phase, each table's snapshot rows (checked against the source's
 * rows), the target's applied changes (checked against the changes made), its lag, the slot and
 * the charts; a screenshot is kept as target/status-page.png.
 */
@ExtendWith(PostgresExtension.class)
class StatusPageIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TABLE_ROW = Pattern.compile("<tr class=\"table\" data-name=\"([^\"]+)\" data-rows=\"(\\d+)\"");
    private static final Pattern TARGET_ROW = Pattern.compile("<tr class=\"target\" data-name=\"([^\"]+)\" data-applied=\"(\\d+)\"");

    @TempDir
    Path work;

    @Test
    void theStatusPageShowsWhatTheDatabasesHold() throws Exception {
        TestDatabase source = TestDatabases.create(StatusPageIT.class);
        TestDatabase target = TestDatabases.create(StatusPageIT.class);
        HeadlessChromium chromium = HeadlessChromium.locate();
        String name = "shown";
        CompletableFuture<Void> stop = new CompletableFuture<>();
        try {
            Pgbench.locate().run(source, "-i", "-q", "-s", "1");
            source.execute("CREATE TABLE notes (id int PRIMARY KEY, body text)",
                    "INSERT INTO notes SELECT g, 'note ' || g FROM generate_series(1, 1234) g");
            Map<String, Long> sourceRows = new HashMap<>();
            for (String table : new String[] {"pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history", "notes"}) {
                sourceRows.put("public." + table, source.queryLong("SELECT count(*) FROM " + table));
            }
            int port = SluiceRuns.freePort();
            String base = "http://127.0.0.1:" + port;
            CompletableFuture<Result> run = SluiceRuns.start(stop, "run", "--source", SluiceRuns.url(source), "--target",
                    SluiceRuns.url(target), "--name", name, "--offsets", work.resolve("shown.offsets").toString(),
                    "--metrics", "127.0.0.1:" + port, "--set", "source.heartbeat.interval.ms=1000",
                    "--set", "source.slot.health.interval.ms=500");
            SluiceRuns.waitFor(() -> status(base).path("phase").asText().equals("streaming"), run, "the pipeline to stream");
            for (int i = 0; i < 40; i++) {
                source.execute("INSERT INTO notes VALUES (" + (5000 + i) + ", 'after the snapshot')");
            }
            source.execute("UPDATE notes SET body = 'changed' WHERE id <= 10", "DELETE FROM notes WHERE id BETWEEN 11 AND 15");
            target.awaitSameAs(source, "SELECT count(*), md5(string_agg(id || body, ',' ORDER BY id)) FROM notes",
                    java.time.Duration.ofSeconds(60), "notes on the target");
            // 40 inserts, 10 updates and 5 deletes, counted once durable; and a few samples for the charts.
            SluiceRuns.waitFor(() -> status(base).path("targets").path(0).path("appliedChanges").asDouble() == 55
                    && status(base).path("history").size() >= 4 && status(base).path("slot").has("lagBytes"), run,
                    "the status to count the 55 changes and hold a few samples");

            String dom = chromium.dom(base + "/", 10_000);
            assertThat(dom).contains("data-loaded=\"true\"").contains("id=\"phase\" class=\"phase streaming\"");
            Map<String, Long> shownRows = new HashMap<>();
            Matcher tables = TABLE_ROW.matcher(dom);
            while (tables.find()) {
                shownRows.put(tables.group(1), Long.parseLong(tables.group(2)));
            }
            assertThat(shownRows).as("the snapshot's rows per table, as the page shows them").isEqualTo(sourceRows);
            Matcher targets = TARGET_ROW.matcher(dom);
            assertThat(targets.find()).as("a target row in:\n%s", dom).isTrue();
            assertThat(targets.group(1)).isEqualTo(name);
            assertThat(Long.parseLong(targets.group(2))).as("changes applied, as the page shows them").isEqualTo(55);
            assertThat(dom).contains("<td>" + source.queryText("SELECT slot_name FROM pg_replication_slots WHERE database = current_database()")
                    + "</td>").contains("<td>reserved</td>");
            assertThat(dom).as("the charts are drawn").containsPattern("<svg id=\"chart-lag\"[^>]*>.*<polyline points=\"[0-9.,]+ [0-9.,]+");

            Path screenshot = Path.of("target", "status-page.png");
            chromium.screenshot(base + "/", screenshot, 1280, 1000, 10_000);
            assertThat(Files.size(screenshot)).as("a screenshot").isGreaterThan(10_000);

            SluiceRuns.stopCleanly(stop, run);
        } finally {
            stop.complete(null);
            TestDatabases.drop(source);
            TestDatabases.drop(target);
        }
    }

    private static JsonNode status(String base) {
        try {
            return JSON.readTree(Scrape.get(base, "/status.json").body());
        } catch (Exception e) {
            return JSON.createObjectNode();
        }
    }
}
