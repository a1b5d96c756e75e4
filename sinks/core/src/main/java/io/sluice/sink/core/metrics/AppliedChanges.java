package io.sluice.sink.core.metrics;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.sluice.metrics.SluiceMetrics;
import io.sluice.metrics.TableLabels;
import org.apache.kafka.common.TopicPartition;

/**
 * Counts streamed changes when they become durable, not when they are handed over: the router
 * notes each change and heartbeat taken (by partition and offset; changes in runs of one table
 * and operation), and the ledger's report of what is durable counts the runs it covers. From the
 * same report come the commit-to-applied latency, the newest commit applied and the newest
 * heartbeat durable, and so the end-to-end lag. Thread-safe: the ledger may report from writing
 * threads.
 */
public final class AppliedChanges {

    /** Every target's applied changes in this process, for the end-to-end lag read at each scrape. */
    private static final Set<AppliedChanges> LIVE = ConcurrentHashMap.newKeySet();

    public static final GaugeWithCallback END_TO_END_LAG = SluiceMetrics.callbackGauge("sluice_end_to_end_lag_seconds",
            "Now minus the source commit time of the newest heartbeat (or change, if later) durable on the target: every change "
                    + "committed before it is there. Stays near heartbeat.interval.ms on an idle database; grows while the target "
                    + "or the pipeline stalls. Absent until the first heartbeat or change is durable", callback -> {
                // A target of several tasks (on Connect) is as far behind as its furthest task. Where some of its tasks get
                // heartbeats (a heartbeat topic of fewer partitions than tasks), only theirs count: the others' would grow while idle.
                long now = System.currentTimeMillis();
                Map<String, Long> oldest = new HashMap<>();
                Map<String, Long> oldestWithBeats = new HashMap<>();
                for (AppliedChanges applied : LIVE) {
                    long newest = applied.newestDurableMillis();
                    if (newest > 0) {
                        oldest.merge(applied.target, newest, Math::min);
                        if (applied.heartbeats) {
                            oldestWithBeats.merge(applied.target, newest, Math::min);
                        }
                    }
                }
                oldest.forEach((target, newest) -> callback.call(Math.max(0, now - oldestWithBeats.getOrDefault(target, newest)) / 1000.0,
                        target));
            }, "target");

    /** A run of changes of one table and operation, or a heartbeat ({@code table} null). */
    private record Run(long lastOffset, String table, String op, long count, long commitMillis) {
    }

    private final String target;
    private final Map<TopicPartition, ArrayDeque<Run>> pending = new HashMap<>();
    private final DistributionDataPoint latency;
    private final GaugeDataPoint newest;
    private final Clock clock;
    private long newestMillis;
    private volatile long newestDurableMillis;
    /** Whether a heartbeat was ever durable here. */
    private volatile boolean heartbeats;

    /** The time now, in milliseconds since the epoch. */
    @FunctionalInterface
    public interface Clock {
        long millis();
    }

    public AppliedChanges(String target, Clock clock) {
        this.target = target;
        this.clock = clock;
        this.latency = SinkMeters.COMMIT_TO_APPLIED.labelValues(target);
        this.newest = SinkMeters.NEWEST_APPLIED_COMMIT.labelValues(target);
        LIVE.add(this);
    }

    /** A change was handed to the writer. */
    public synchronized void taken(TopicPartition partition, long offset, String table, String op, long commitMillis) {
        ArrayDeque<Run> runs = pending.computeIfAbsent(partition, p -> new ArrayDeque<>());
        Run last = runs.peekLast();
        if (last != null && table.equals(last.table()) && last.op().equals(op)) {
            runs.removeLast();
            runs.addLast(new Run(offset, table, op, last.count() + 1, Math.max(last.commitMillis(), commitMillis)));
        } else {
            runs.addLast(new Run(offset, table, op, 1, commitMillis));
        }
    }

    /** A heartbeat committed on the source at {@code commitMillis} was taken. */
    public synchronized void heartbeat(TopicPartition partition, long offset, long commitMillis) {
        pending.computeIfAbsent(partition, p -> new ArrayDeque<>()).addLast(new Run(offset, null, "heartbeat", 0, commitMillis));
    }

    /** Every record of {@code partition} before {@code upTo} is durable. */
    public synchronized void durable(TopicPartition partition, long upTo) {
        ArrayDeque<Run> runs = pending.get(partition);
        if (runs == null) {
            return;
        }
        long now = clock.millis();
        while (!runs.isEmpty() && runs.peekFirst().lastOffset() < upTo) {
            Run run = runs.removeFirst();
            if (run.commitMillis() > newestDurableMillis) {
                newestDurableMillis = run.commitMillis();
            }
            if (run.table() == null) {
                heartbeats = true;
                continue;
            }
            SinkMeters.CHANGES_APPLIED.labelValues(target, TableLabels.of(run.table()), run.op()).inc(run.count());
            if (run.commitMillis() > 0) {
                latency.observe(Math.max(0, now - run.commitMillis()) / 1000.0);
                if (run.commitMillis() > newestMillis) {
                    newestMillis = run.commitMillis();
                    newest.set(newestMillis / 1000.0);
                }
            }
        }
    }

    /** The newest source commit time of a change or heartbeat durable on the target, in milliseconds; 0 before any. */
    public long newestDurableMillis() {
        return newestDurableMillis;
    }

    /** Partitions taken away: what was taken of them and is not durable will come again, and is counted then. */
    public synchronized void forget(Iterable<TopicPartition> partitions) {
        for (TopicPartition partition : partitions) {
            pending.remove(partition);
        }
    }

    /** The task stopped: the target's lag is no longer shown by it. */
    public void close() {
        LIVE.remove(this);
    }
}
