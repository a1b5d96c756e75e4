package io.sluice.sink.core.deadletter;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import io.sluice.metrics.TableLabels;
import io.sluice.sink.core.deadletter.DeadLetterConfig.MismatchAction;
import io.sluice.sink.core.metrics.SinkMeters;
import io.sluice.sink.core.metrics.SinkMetrics;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, for a record a sink cannot apply, whether it goes to Connect's dead-letter queue or
 * stops the task, and makes what goes there seen: counted per table (metric
 * {@code dead-letter-records}), the first logged at WARN at once, and the rest summed up at
 * WARN at most once a minute, per table with the last reason, for as long as they come.
 * Without a reporter (no dead-letter queue; in the {@code sluice} command, none asked for) every
 * such record stops the task.
 */
public final class DeadLetters {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);
    static final long SUMMARY_INTERVAL_MILLIS = 60_000;

    private final ErrantRecordReporter reporter;
    private final MismatchAction mismatches;
    private final Predicate<Throwable> isMismatch;
    private final LongSupplier clock;
    /** Per table, records sent since the last log line, and the last reason. */
    private final Map<String, Pending> unlogged = new LinkedHashMap<>();
    private long lastLogMillis = Long.MIN_VALUE;
    private volatile long total;
    /** The target the process's dead-letter counts are labelled with; null until registered. */
    private volatile String target;
    /** WARN lines written, for tests of their pace. */
    int linesLogged;

    /**
     * @param reporter   Connect's reporter, or null where there is none
     * @param isMismatch whether a failure says the target's schema cannot take a valid change
     * @param clock      milliseconds, for the summaries' pace
     */
    public DeadLetters(ErrantRecordReporter reporter, MismatchAction mismatches, Predicate<Throwable> isMismatch, LongSupplier clock) {
        this.reporter = reporter;
        this.mismatches = mismatches;
        this.isMismatch = isMismatch;
        this.clock = clock;
    }

    /** The task's dead-letter reporter: null when it has none (no queue configured, or a worker older than Kafka 2.6). */
    public static ErrantRecordReporter reporterOf(SinkTaskContext context) {
        try {
            return context == null ? null : context.errantRecordReporter();
        } catch (NoSuchMethodError | NoClassDefFoundError e) {
            return null;
        }
    }

    /**
     * A record that cannot be applied: sent to the dead-letter queue when that is allowed for its
     * kind of failure, else thrown as the task's failure with the reason and what to do.
     *
     * @param table the table the record was for, as the user knows it; null when unknown
     */
    public void reject(SinkRecord record, String table, DataException reason) {
        boolean mismatch = isMismatch.test(reason);
        if (reporter == null || (mismatch && mismatches == MismatchAction.FAIL)) {
            throw new ConnectException((table != null ? "The change of " + table + " at " : "The record at ") + where(record)
                    + " cannot be applied: " + reason.getMessage()
                    + (mismatch ? ". The task stops so that no change is lost: bring the target table in line with the source (or "
                    + "capture DDL on the source), then restart the task. To send such changes to the dead-letter queue instead, "
                    + "set " + DeadLetterConfig.SCHEMA_MISMATCH + "=" + MismatchAction.DEAD_LETTER.key() : ""), reason);
        }
        reporter.report(record, reason);
        total++;
        String key = table != null ? table : record.topic();
        String meteredAs = target;
        if (meteredAs != null) {
            SinkMeters.DEAD_LETTERS.labelValues(meteredAs, TableLabels.of(key)).inc();
        }
        unlogged.computeIfAbsent(key, k -> new Pending()).add(where(record), reason.getMessage());
        logIfDue();
    }

    /** Logs what went to the queue since the last line, if a minute has passed; call it often (every put). */
    public void logIfDue() {
        log(false);
    }

    /** Logs what is not logged yet, as the task stops. */
    public void close() {
        log(true);
    }

    private void log(boolean now) {
        if (unlogged.isEmpty()) {
            return;
        }
        long at = clock.getAsLong();
        if (!now && lastLogMillis != Long.MIN_VALUE && at - lastLogMillis < SUMMARY_INTERVAL_MILLIS) {
            return;
        }
        lastLogMillis = at;
        linesLogged++;
        StringJoiner tables = new StringJoiner("; ");
        long count = 0;
        for (Map.Entry<String, Pending> e : unlogged.entrySet()) {
            count += e.getValue().count;
            tables.add(e.getKey() + ": " + e.getValue().count + " (last " + e.getValue().lastRecord + ": " + e.getValue().lastReason + ")");
        }
        String where = reporter instanceof DeadLetterStore store ? store.where() : "the dead-letter topic";
        LOG.warn("{} record(s) went to the dead-letter queue{}, {} in all since the task started. {}. The target does not have "
                        + "them: read them from {}, fix the cause and send them again.", count,
                total == count ? "" : " in the last minute", total, tables, where);
        unlogged.clear();
    }

    /** Records sent to the dead-letter queue since the task started. */
    public long count() {
        return total;
    }

    /** Counts on the task's metrics and, per table, on the process's for the metrics' target. */
    public void register(SinkMetrics metrics) {
        register(metrics.plugin());
        target = metrics.target();
    }

    public void register(PluginMetrics metrics) {
        MetricName name = metrics.metricName("dead-letter-records", "Records sent to the dead-letter queue since the task started",
                new LinkedHashMap<>());
        metrics.addMetric(name, (Gauge<Long>) (config, now) -> total);
    }

    /** Where a record is: topic-partition@offset. */
    private static String where(SinkRecord record) {
        return record.topic() + "-" + (record.kafkaPartition() == null ? 0 : record.kafkaPartition()) + "@" + record.kafkaOffset();
    }

    private static final class Pending {
        long count;
        String lastRecord;
        String lastReason;

        void add(String record, String reason) {
            count++;
            lastRecord = record;
            lastReason = reason;
        }
    }
}
