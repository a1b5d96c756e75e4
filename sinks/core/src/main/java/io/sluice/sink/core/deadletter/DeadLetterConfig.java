package io.sluice.sink.core.deadletter;

import java.util.Locale;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The key that says what becomes of a valid change the target cannot take as its schema is
 * now, the same for every sink. Malformed records go to Connect's dead-letter queue when one is
 * configured ({@code errors.tolerance=all}); a good change the target is behind on does not,
 * unless the user asks for it here, as that queue is where data is lost quietly.
 */
public final class DeadLetterConfig {

    public static final String SCHEMA_MISMATCH = "schema.mismatch.action";

    /** What to do with a change that does not fit the target's schema. */
    public enum MismatchAction {
        /** Stop the task with the reason: nothing after it is applied until the target is fixed. */
        FAIL,
        /** Send it to the dead-letter queue like a malformed record (counted, logged), and go on. */
        DEAD_LETTER;

        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private DeadLetterConfig() {
    }

    public static ConfigDef define(ConfigDef def, String group, int order) {
        return def.define(SCHEMA_MISMATCH, Type.STRING, MismatchAction.FAIL.key(),
                ConfigDef.CaseInsensitiveValidString.in(MismatchAction.FAIL.key(), MismatchAction.DEAD_LETTER.key()), Importance.MEDIUM,
                "What to do with a change the target cannot take as its table is now (a column the target lacks and the sink may "
                        + "not add, a value its column's type cannot hold). fail: the task stops with the reason (FAILED in the "
                        + "REST status); fix the target and restart it, nothing is lost. dead_letter: the change goes to the "
                        + "dead-letter queue (errors.tolerance=all and errors.deadletterqueue.topic.name) and the task goes on, so "
                        + "the target misses it. Records that are not change events go to the dead-letter queue either way, when "
                        + "there is one. Every record sent there is counted (metric dead-letter-records) and logged at WARN with "
                        + "its table, at least once a minute while they go on.",
                group, order, Width.SHORT, "On schema mismatch");
    }

    public static MismatchAction mismatchAction(AbstractConfig config) {
        return MismatchAction.valueOf(config.getString(SCHEMA_MISMATCH).toUpperCase(Locale.ROOT));
    }
}
