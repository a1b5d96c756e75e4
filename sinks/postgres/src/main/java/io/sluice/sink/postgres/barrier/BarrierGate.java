package io.sluice.sink.postgres.barrier;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.sluice.schemas.envelope.Barriers;
import io.sluice.schemas.postgres.PgConnect;
import io.sluice.schemas.postgres.PgEndpoint;
import io.sluice.sink.postgres.state.KafkaOffsets;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sink task's side of ordering barriers (see {@link Barriers}). A partition that reaches a
 * barrier whose event is not applied yet is held there: the task records on the target that the
 * partition arrived, rewinds it to the barrier and pauses it. The partition that carries the event
 * is held likewise until every partition of the event's topics has arrived. Held partitions are
 * checked again every few hundred milliseconds (the task asks Connect to poll that often) and
 * resumed when they may go on; the barrier record or the event then comes again and passes.
 * Nothing blocks inside {@code put}: Connect keeps polling, and the group keeps the task.
 */
public final class BarrierGate implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BarrierGate.class);
    private static final long RECHECK_MILLIS = 200;
    private static final long REPORT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final int RELEASED_REMEMBERED = 10_000;

    private final PgEndpoint endpoint;
    private final BarrierTables tables;
    private final KafkaOffsets offsets;
    private final Subscription subscription;
    private Connection connection;
    private boolean ensured;
    /** Barriers known to be released (they never go back), the newest few thousand. */
    private final Map<String, Boolean> released = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > RELEASED_REMEMBERED;
        }
    };
    private final Map<TopicPartition, Wait> waits = new HashMap<>();
    /** Whether this task ever held a partition (only then may Connect hand one back paused). */
    private boolean everHeld;

    /** What a held partition waits for, and since when (reported every half minute while it lasts). */
    private static final class Wait {
        final String barrier;
        /** The event the partition carries, waiting for arrivals; null when it waits at a barrier for the release. */
        final Barriers.Barrier event;
        final long since = System.nanoTime();
        long reportedAt = since;

        Wait(String barrier, Barriers.Barrier event) {
            this.barrier = barrier;
            this.event = event;
        }
    }

    /**
     * @param offsets the target's Kafka offsets, moved to a barrier when a partition arrives there; null when it keeps none
     */
    public BarrierGate(PgEndpoint endpoint, BarrierTables tables, KafkaOffsets offsets, Subscription subscription) {
        this.endpoint = endpoint;
        this.tables = tables;
        this.offsets = offsets;
        this.subscription = subscription;
    }

    /** Whether the barrier's event is applied. */
    public boolean isReleased(String barrier) {
        if (released.containsKey(barrier)) {
            return true;
        }
        boolean done = query(c -> tables.released(c, List.of(barrier))).contains(barrier);
        if (done) {
            released.put(barrier, true);
        }
        return done;
    }

    /** Whether a partition is held (its records come again once it goes on). */
    public boolean holds(TopicPartition partition) {
        return waits.containsKey(partition);
    }

    /**
     * Holds a partition at a barrier whose event is not applied, once every row before the barrier
     * is on the target (the caller made sure of that).
     */
    public void holdAtBarrier(SinkTaskContext context, TopicPartition partition, long offset, String barrier) {
        query(c -> {
            tables.arrive(c, barrier, partition);
            if (offsets != null) {
                // Everything before the barrier is in: a task that gets the partition next starts at the barrier.
                offsets.ensure(c);
                offsets.settle(c, partition, offset);
            }
            return null;
        });
        hold(context, partition, offset, new Wait(barrier, null));
    }

    /**
     * Whether every partition of the event's barrier (of the topics this connector reads) has
     * arrived; when not, holds the event's partition at the event.
     */
    public boolean ready(SinkTaskContext context, TopicPartition partition, long offset, Barriers.Barrier event) {
        if (missing(event) == 0) {
            return true;
        }
        hold(context, partition, offset, new Wait(event.id(), event));
        return false;
    }

    /** Notes a barrier the task released in a transaction of its own work. */
    public void released(String barrier) {
        released.put(barrier, true);
    }

    /** Releases a barrier whose event needed no transaction of its own. */
    public void release(String barrier) {
        query(c -> {
            tables.release(c, barrier);
            return null;
        });
        released.put(barrier, true);
    }

    /** Releases a barrier from another thread (when work in the background is done), on a connection of its own. */
    public void releaseElsewhere(String barrier) {
        try (Connection c = PgConnect.open(endpoint, "sluice barriers")) {
            tables.release(c, barrier);
        } catch (SQLException e) {
            throw PgConnect.explain(e, endpoint);
        }
    }

    /** Writes the barrier's release inside the caller's transaction. */
    public void release(Connection c, String barrier) throws SQLException {
        tables.release(c, barrier);
    }

    /**
     * Resumes the held partitions that may go on; while some stay held, asks Connect to poll again
     * soon, so that they are checked again.
     */
    public void check(SinkTaskContext context) {
        if (waits.isEmpty()) {
            return;
        }
        Set<TopicPartition> go = new HashSet<>();
        try {
            Set<String> atBarrier = new HashSet<>();
            waits.forEach((tp, wait) -> {
                if (wait.event == null) {
                    atBarrier.add(wait.barrier);
                }
            });
            Set<String> done = atBarrier.isEmpty() ? Set.of() : tables.released(connection(), atBarrier);
            done.forEach(b -> released.put(b, true));
            for (Map.Entry<TopicPartition, Wait> e : waits.entrySet()) {
                Wait wait = e.getValue();
                if (wait.event == null ? released.containsKey(wait.barrier) : missing(wait.event) == 0) {
                    go.add(e.getKey());
                } else {
                    report(e.getKey(), wait);
                }
            }
        } catch (SQLException | ConnectException e) {
            // Only a check: the next one may find the target back.
            LOG.warn("Checking ordering barriers on {} failed; trying again: {}", endpoint.display(), e.getMessage());
            closeConnection();
        }
        if (!go.isEmpty()) {
            go.forEach(waits::remove);
            context.resume(go.toArray(TopicPartition[]::new));
        }
        if (!waits.isEmpty()) {
            context.timeout(RECHECK_MILLIS);
        }
    }

    /**
     * Partitions given to the task: none is held by it yet. A partition this task held before a
     * rebalance may come back paused; it goes on, and stops again at the barrier, which comes again.
     */
    public void opened(SinkTaskContext context, Collection<TopicPartition> partitions) {
        partitions.forEach(waits::remove);
        if (everHeld && !partitions.isEmpty()) {
            context.resume(partitions.toArray(TopicPartition[]::new));
        }
    }

    /** Partitions taken from the task. */
    public void closed(Collection<TopicPartition> partitions) {
        partitions.forEach(waits::remove);
    }

    private void hold(SinkTaskContext context, TopicPartition partition, long offset, Wait wait) {
        everHeld = true;
        context.offset(partition, offset);
        context.pause(partition);
        waits.put(partition, wait);
        context.timeout(RECHECK_MILLIS);
    }

    /** How many partitions of the event's barrier have not arrived. */
    private int missing(Barriers.Barrier event) {
        List<String> read = event.topics().stream().filter(subscription::reads).toList();
        if (read.isEmpty() || event.partitions() == 0) {
            return 0;
        }
        Set<TopicPartition> arrived = query(c -> tables.arrived(c, event.id(), read));
        int expected = read.size() * event.partitions();
        return expected - (int) arrived.stream().filter(tp -> tp.partition() < event.partitions()).count();
    }

    private void report(TopicPartition partition, Wait wait) {
        long now = System.nanoTime();
        if (now - wait.reportedAt < REPORT_NANOS) {
            return;
        }
        wait.reportedAt = now;
        long seconds = TimeUnit.NANOSECONDS.toSeconds(now - wait.since);
        if (wait.event == null) {
            LOG.info("{} has waited {} s at barrier {} for its event to be applied (by the task that reads the schema-change topic)",
                    partition, seconds, wait.barrier);
        } else {
            LOG.info("The event of barrier {} on {} has waited {} s for {} partition(s) of {} to reach it; a partition no task of this "
                    + "connector reads holds it up for ever", wait.barrier, partition, seconds, missing(wait.event), wait.event.topics());
        }
    }

    @FunctionalInterface
    private interface Query<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T query(Query<T> query) {
        try {
            return query.run(connection());
        } catch (SQLException e) {
            closeConnection();
            throw PgConnect.explain(e, endpoint);
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = PgConnect.open(endpoint, "sluice barriers");
            ensured = false;
        }
        if (!ensured) {
            tables.ensure(connection);
            ensured = true;
        }
        return connection;
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // it is being dropped
            }
            connection = null;
        }
    }

    @Override
    public void close() {
        closeConnection();
    }
}
