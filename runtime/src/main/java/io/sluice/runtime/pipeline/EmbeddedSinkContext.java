package io.sluice.runtime.pipeline;

import java.util.Map;
import java.util.Set;

import io.sluice.sink.core.deadletter.DeadLetterStore;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * What the {@code sluice} command gives the sink task in place of a Kafka Connect worker: its
 * configuration, and — when the pipeline asks for it with Connect's own key,
 * {@code errors.tolerance=all} under {@code target:} — the target's dead-letter store, so
 * that a pipeline moves between the command and a cluster unchanged. Connect's partition controls
 * do not apply here: the runtime hands over one partition per topic and keeps the offsets itself.
 */
public final class EmbeddedSinkContext implements SinkTaskContext, AutoCloseable {

    static final String ERRORS_TOLERANCE = "errors.tolerance";
    static final String STALL_AFTER_MS = "stall.after.ms";
    static final String DETACH_AFTER_BYTES = "detach.after.bytes";
    static final String DETACH_AFTER_MS = "detach.after.ms";

    /** The target keys the command reads itself (a Connect worker reads the same key on a cluster). */
    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(ERRORS_TOLERANCE, Type.STRING, "none", ConfigDef.ValidString.in("none", "all"), Importance.MEDIUM,
                    "none: a record the sink cannot apply stops the pipeline with the reason. all: records that are not change events "
                            + "the sink can read, and (with schema.mismatch.action=dead_letter) changes the target's tables cannot take, "
                            + "are kept on the target (the record whole, where it came from, the reason): PostgreSQL, in the table "
                            + "dead_letters beside the position table; OpenSearch, in the index <state.index.prefix>dead_letters "
                            + "(sluice_dead_letters). The pipeline goes on; they are counted in the log and by `sluice status`. On a "
                            + "Kafka Connect cluster the worker reads this key and sends them to errors.deadletterqueue.topic.name.",
                    "Errors", 1, Width.SHORT, "Error tolerance")
            .define(STALL_AFTER_MS, Type.LONG, 5_000L, ConfigDef.Range.atLeast(100), Importance.MEDIUM,
                    "With several targets (docs/fan-out.md), once the pipeline streams: how long this target may take no batch (its "
                            + "queue of two batches stays full, or a batch it must make durable first is not) before the other targets go "
                            + "on without it. A target whose sink fails is left behind at once. The slot is confirmed only as far as the "
                            + "target left behind holds, so its changes wait there; once it has written what it took (or, after a failure, "
                            + "answers again) the pipeline reads on from that point and it catches up, while the other targets skip what "
                            + "they hold. During the snapshot a slow target holds the others and a failed one stops the run, which "
                            + "resumes where it stopped. On a Kafka Connect cluster each target is a connector of its own and Kafka keeps "
                            + "the changes: the key does not apply there.",
                    "Several targets", 1, Width.SHORT, "Stall after")
            .define(DETACH_AFTER_BYTES, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                    "With several targets (docs/fan-out.md): once this target is left behind (stall.after.ms) and the slot keeps this "
                            + "many bytes of WAL for it, it is detached, with one ERROR line: it is fed nothing and the slot is confirmed "
                            + "as the other targets hold, so a target that stays down cannot fill the source's disk. The pipeline asks it "
                            + "at growing intervals (up to a minute) whether it answers; once it does, it is fed again and every table is "
                            + "re-synced for it alone, after which it is whole. Which targets are detached is kept beside the offsets "
                            + "(<offsets>.detached) for later runs and sluice status. The last target fed is never detached. 0: never "
                            + "detach (the slot keeps the changes for as long as the target is left behind). On a Kafka Connect cluster "
                            + "Kafka keeps the changes (retention.ms of the topics): the key does not apply there.",
                    "Several targets", 2, Width.SHORT, "Detach after bytes")
            .define(DETACH_AFTER_MS, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                    "With several targets (docs/fan-out.md): once this target has been left behind (stall.after.ms) this long, it is "
                            + "detached as detach.after.bytes says, whatever WAL the slot keeps for it. The time counts across the "
                            + "catch-ups it fails, and starts over once it has been fed for a minute. 0: not by time. Either limit "
                            + "detaches; neither applies on a Kafka Connect cluster.",
                    "Several targets", 3, Width.SHORT, "Detach after ms");

    private final Map<String, String> configs;
    private final DeadLetterStore deadLetters;

    EmbeddedSinkContext(PipelineSpec spec) {
        this.configs = spec.target();
        boolean tolerate = "all".equals(new org.apache.kafka.common.config.AbstractConfig(CONFIG_DEF, spec.target(), false)
                .getString(ERRORS_TOLERANCE));
        this.deadLetters = tolerate ? spec.sink().deadLetters(spec.name()) : null;
    }

    @Override
    public Map<String, String> configs() {
        return configs;
    }

    @Override
    public ErrantRecordReporter errantRecordReporter() {
        return deadLetters;
    }

    @Override
    public void offset(Map<TopicPartition, Long> offsets) {
        // The runtime keeps offsets itself (by source position on the target); it never rewinds.
    }

    @Override
    public void offset(TopicPartition tp, long offset) {
        // As above.
    }

    @Override
    public void timeout(long timeoutMs) {
        // The runtime hands records over and flushes on its own cadence.
    }

    @Override
    public Set<TopicPartition> assignment() {
        return Set.of();
    }

    @Override
    public void pause(TopicPartition... partitions) {
        // Ordering barriers exist only on a cluster: nothing is ever held here.
    }

    @Override
    public void resume(TopicPartition... partitions) {
        // As above.
    }

    @Override
    public void requestCommit() {
        // The runtime commits after every flush.
    }

    @Override
    public PluginMetrics pluginMetrics() {
        return null; // the sink's metrics register on their own registry (JMX)
    }

    /** What to tell the user at the end of a run about records kept as dead letters in it; null when none were. */
    String deadLetterSummary() {
        if (deadLetters == null || deadLetters.kept() == 0) {
            return null;
        }
        return deadLetters.kept() + " record(s) the target could not take were kept in " + deadLetters.where()
                + "; the target does not have them: read the reason there, fix the cause and apply them again.";
    }

    @Override
    public void close() {
        if (deadLetters != null) {
            deadLetters.close();
        }
    }
}
