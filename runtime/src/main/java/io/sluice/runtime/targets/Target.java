package io.sluice.runtime.targets;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;

import io.sluice.connector.postgres.SourceAdmin;
import io.sluice.sink.core.deadletter.DeadLetterStore;
import org.apache.kafka.connect.sink.SinkTaskContext;

/**
 * The sink end of a pipeline as the {@code sluice} command drives it: one per kind of target
 * (PostgreSQL, OpenSearch, webhooks). The sink task does the writing, as on a Connect cluster; this says
 * what the command needs around it: what the target records of the pipeline, where dead letters
 * go, what status shows and what teardown forgets.
 */
public interface Target {

    /** The target for a pipeline's target keys. */
    static Target of(TargetKind kind, Map<String, String> keys) {
        return switch (kind) {
            case OPENSEARCH -> new OpenSearchTarget(keys);
            case WEBHOOK -> new WebhookTarget(keys);
            case POSTGRES -> new PostgresTarget(keys);
        };
    }

    /** The target's address without secrets, for messages. */
    String display();

    /** Every configuration and connection problem of the target keys, as {@code key: message}; empty when none. */
    List<String> problems(Map<String, String> sourceKeys);

    /**
     * What the target holds of the pipeline.
     *
     * @param source       the source's name (its topic prefix), under which sinks record snapshots and positions
     * @param checkEmptied also ask whether tables the snapshot filled are empty while the source's are not
     */
    Recorded read(String source, boolean checkEmptied, Map<String, String> sourceKeys) throws Exception;

    /**
     * Reads what the target records of the source, giving up soon (seconds) when it cannot be
     * reached: whether a target that failed is back. Throws why it is not.
     */
    default void answer(String source, Map<String, String> sourceKeys) throws Exception {
        read(source, false, sourceKeys);
    }

    /** Creates, initializes and starts the sink task. */
    RunningSink start(SinkTaskContext context);

    /**
     * Creates, initializes and starts the sink task of a streaming run, which may ask the source
     * for re-syncs (webhooks: a subscription's backfill).
     */
    default RunningSink startStreaming(SinkTaskContext context, SourceAdmin source) {
        return start(context);
    }

    /** The dead-letter store of the pipeline on this target. */
    DeadLetterStore deadLetters(String pipeline);

    /**
     * What a clean stop of a streaming run still owes the target (PostgreSQL: its sequences moved
     * to the source's values).
     *
     * @throws IllegalStateException saying what could not be done and what follows from it
     */
    default void afterCleanStop(Map<String, String> sourceKeys, PrintStream out) {
    }

    /**
     * Prints what the target records of the pipeline, for {@code sluice status}.
     *
     * @param pipeline the pipeline's name, which its dead letters are kept under
     * @param source   the source's name (its topic prefix), which its snapshot and positions are recorded under
     */
    void printStatus(String pipeline, String source, long sourceLsn, PrintStream out) throws Exception;

    /** Forgets what the target records of the source (its snapshot and positions; its data stays), saying what on {@code out}. */
    void forget(String source, PrintStream out) throws Exception;
}
