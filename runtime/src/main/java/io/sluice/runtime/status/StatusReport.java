package io.sluice.runtime.status;

import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.runtime.progress.PipelinePhase;
import io.sluice.runtime.progress.Progress;

/**
 * What the status page shows, as JSON ({@code /status.json}): the pipeline's phase, each table's
 * snapshot progress, the last minutes, the slot, each target and webhook subscription, and the
 * recent warnings. Read from the pipeline's phase and from the meters at each request.
 */
public final class StatusReport {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String pipeline;
    private final String target;
    private final PipelinePhase phase;
    private final PrometheusRegistry registry;
    private final StatusHistory history;
    private final RecentWarnings warnings;

    public StatusReport(String pipeline, String target, PipelinePhase phase, PrometheusRegistry registry, StatusHistory history,
                        RecentWarnings warnings) {
        this.pipeline = pipeline;
        this.target = target;
        this.phase = phase;
        this.registry = registry;
        this.history = history;
        this.warnings = warnings;
    }

    public byte[] json(long now) {
        RegistryReading reading = new RegistryReading(registry);
        ObjectNode root = JSON.createObjectNode();
        root.put("pipeline", pipeline).put("target", target).put("now", now);
        root.put("phase", phase.phase().name().toLowerCase(java.util.Locale.ROOT)).put("phaseSince", phase.sinceMillis());
        String notReady = phase.notReady(now);
        root.put("ready", notReady == null);
        if (notReady != null) {
            root.put("notReady", notReady);
        }
        root.set("snapshot", snapshot(reading));
        root.set("slot", slot(reading));
        root.set("targets", targets(reading));
        root.set("subscriptions", subscriptions(reading));
        ArrayNode samples = root.putArray("history");
        for (StatusHistory.Sample s : history.samples()) {
            ObjectNode n = samples.addObject().put("t", s.atMillis()).put("rowsPerSecond", s.rowsPerSecond())
                    .put("changesPerSecond", s.changesPerSecond());
            number(n, "endToEndLagSeconds", s.endToEndLagSeconds());
            number(n, "slotLagBytes", s.slotLagBytes());
        }
        ArrayNode lines = root.putArray("warnings");
        for (RecentWarnings.Warning w : warnings.newestFirst()) {
            lines.addObject().put("at", w.atMillis()).put("level", w.level()).put("message", w.message());
        }
        try {
            return JSON.writeValueAsBytes(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private ObjectNode snapshot(RegistryReading reading) {
        ObjectNode snapshot = JSON.createObjectNode();
        Progress progress = phase.progress();
        ArrayNode tables = snapshot.putArray("tables");
        if (progress != null) {
            new TreeMap<>(progress.tables()).forEach((name, t) -> tables.addObject().put("name", name).put("rows", t.rows())
                    .put("estimatedRows", t.estimatedRows()));
            snapshot.put("rows", progress.rows()).put("estimatedRows", progress.estimatedRows());
        }
        number(snapshot, "remainingSeconds", reading.max("sluice_snapshot_remaining_seconds", "pipeline", pipeline));
        number(snapshot, "tablesDone", reading.max("sluice_snapshot_tables", "pipeline", pipeline, "state", "done"));
        number(snapshot, "tablesLeft", reading.max("sluice_snapshot_tables", "pipeline", pipeline, "state", "left"));
        return snapshot;
    }

    private ObjectNode slot(RegistryReading reading) {
        ObjectNode slot = JSON.createObjectNode();
        for (RegistryReading.Series s : reading.series("sluice_source_slot_lag_bytes")) {
            if (pipeline.equals(s.labels().get("pipeline"))) {
                slot.put("name", s.labels().get("slot"));
                slot.put("lagBytes", s.value());
            }
        }
        for (RegistryReading.Series s : reading.series("sluice_source_slot_wal_status")) {
            if (pipeline.equals(s.labels().get("pipeline")) && s.value() == 1) {
                slot.put("walStatus", s.labels().get("status"));
            }
        }
        number(slot, "safeWalSizeBytes", reading.max("sluice_source_slot_safe_wal_size_bytes", "pipeline", pipeline));
        number(slot, "atRisk", reading.max("sluice_source_slot_at_risk", "pipeline", pipeline));
        return slot;
    }

    private ArrayNode targets(RegistryReading reading) {
        Map<String, ObjectNode> byName = new TreeMap<>();
        for (String family : new String[] {"sluice_sink_changes_applied_total", "sluice_end_to_end_lag_seconds", "sluice_sink_batch_size_bytes",
                "sluice_target_detached"}) {
            for (RegistryReading.Series s : reading.series(family)) {
                String name = s.labels().get("target");
                // A detached target shows even when this process never fed it; the gauge's 0 of a whole one adds nothing.
                if (name != null && (!family.equals("sluice_target_detached") || s.value() == 1)) {
                    byName.computeIfAbsent(name, n -> JSON.createObjectNode().put("name", n));
                }
            }
        }
        ArrayNode out = JSON.createArrayNode();
        byName.forEach((name, node) -> {
            // Several targets' meters are labelled <pipeline>.<target>: the page is the pipeline's, so the target's name says it.
            node.put("display", byName.size() == 1 ? target : name.startsWith(pipeline + ".") ? name.substring(pipeline.length() + 1) : name);
            node.put("appliedChanges", reading.sum("sluice_sink_changes_applied_total", "target", name));
            number(node, "endToEndLagSeconds", reading.max("sluice_end_to_end_lag_seconds", "target", name));
            node.put("deadLetters", reading.sum("sluice_sink_dead_letters_total", "target", name));
            double leftBehind = reading.max("sluice_target_left_behind_seconds", "target", name);
            if (leftBehind > 0) {
                node.put("leftBehindSeconds", leftBehind);
            }
            if (reading.max("sluice_target_detached", "target", name) == 1) {
                node.put("detached", true);
            }
            out.add(node);
        });
        return out;
    }

    private ArrayNode subscriptions(RegistryReading reading) {
        Map<String, ObjectNode> byName = new TreeMap<>();
        for (RegistryReading.Series s : reading.series("sluice_webhook_subscription_state")) {
            if (s.value() == 1) {
                String name = s.labels().get("subscription");
                byName.put(name, JSON.createObjectNode().put("name", name).put("state", s.labels().get("state")));
            }
        }
        ArrayNode out = JSON.createArrayNode();
        byName.forEach((name, node) -> {
            number(node, "backlog", reading.max("sluice_webhook_backlog_rows", "subscription", name));
            node.put("delivered", reading.sum("sluice_webhook_deliveries_total", "subscription", name, "outcome", "delivered"));
            node.put("failed", reading.sum("sluice_webhook_deliveries_total", "subscription", name, "outcome", "failed")
                    + reading.sum("sluice_webhook_deliveries_total", "subscription", name, "outcome", "gone"));
            out.add(node);
        });
        return out;
    }

    private static void number(ObjectNode node, String field, double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            node.putNull(field);
        } else {
            node.put(field, value);
        }
    }
}
