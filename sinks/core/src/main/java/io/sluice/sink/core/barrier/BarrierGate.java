package io.sluice.sink.core.barrier;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.sluice.schemas.envelope.Barriers;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sink task's side of ordering barriers (see {@link Barriers}). A partition that reaches a
 * barrier whose event is not applied yet is held there: the task records that the partition
 * arrived, rewinds it to the barrier and pauses it. The partition that carries the event is held
 * likewise until every partition of the event's topics has arrived. Arrivals and releases are kept
 * in the sink's {@link BarrierStore}, which every task of the connector sees. Held partitions are
 * checked again every few hundred milliseconds (the task asks Connect to poll that often) and
 * resumed when they may go on; the barrier record or the event then comes again and passes.
 * Nothing blocks inside {@code put}: Connect keeps polling, and the group keeps the task.
 */
public final class BarrierGate implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BarrierGate.class);
    private static final long RECHECK_MILLIS = 200;
    private static final long REPORT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final int RELEASED_REMEMBERED = 10_000;

    private final BarrierStore store;
    private final ReadTopics readTopics;
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

    public BarrierGate(BarrierStore store, ReadTopics readTopics) {
        this.store = store;
        this.readTopics = readTopics;
    }

    /** Whether the barrier's event is applied. */
    public boolean isReleased(String barrier) {
        if (released.containsKey(barrier)) {
            return true;
        }
        boolean done = store.released(List.of(barrier)).contains(barrier);
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
        store.arrive(barrier, partition, offset);
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
        store.release(barrier);
        released.put(barrier, true);
    }

    /** Releases a barrier from another thread (when work in the background is done). */
    public void releaseElsewhere(String barrier) {
        store.releaseElsewhere(barrier);
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
            Set<String> done = atBarrier.isEmpty() ? Set.of() : store.released(atBarrier);
            done.forEach(b -> released.put(b, true));
            for (Map.Entry<TopicPartition, Wait> e : waits.entrySet()) {
                Wait wait = e.getValue();
                if (wait.event == null ? released.containsKey(wait.barrier) : missing(wait.event) == 0) {
                    go.add(e.getKey());
                } else {
                    report(e.getKey(), wait);
                }
            }
        } catch (ConnectException e) {
            // Only a check: the next one may find the store back.
            LOG.warn("Checking ordering barriers failed; trying again: {}", e.getMessage());
            store.reset();
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
        List<String> read = event.topics().stream().filter(readTopics::reads).toList();
        if (read.isEmpty() || event.partitions() == 0) {
            return 0;
        }
        Set<TopicPartition> arrived = store.arrived(event.id(), read);
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

    @Override
    public void close() {
        store.close();
    }
}
