package io.sluice.sink.core.ledger;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What a sink task may tell Connect is done ({@code preCommit}): per topic partition, the
 * offset before which every record is durable on the target, and never further.
 *
 * <p>A sink's writes finish in two ways, and the ledger takes both:
 * <ul>
 * <li><b>By batch</b> — sealed batches ({@link io.sluice.sink.core.batch.InFlightBatches}): take
 *     {@link #takenSoFar()} when a batch is sealed, and give it to {@link #markDurable} once it and
 *     every batch before it are written.</li>
 * <li><b>By epoch</b> — many writes in flight that finish in any order and that the sink does not
 *     send as sealed batches (snapshot COPYs on several connections): each write notes the {@link #epoch()}
 *     its oldest record was taken in; at each commit the task {@link #endEpoch() ends the epoch}
 *     and tells {@link #confirmBefore} the oldest epoch that still has a record not durable. The
 *     offsets taken by the end of every older epoch are then durable.</li>
 * </ul>
 * A record that is durable without a write (the target had it already) is marked at once with
 * {@link #durableAt}. A <em>hold</em> caps a partition at its first record of a write that is
 * finished but not yet durable (a frozen load whose transaction commits with the table's last
 * rows), until released.
 *
 * <p>The task's thread takes records and ends epochs; writes may mark durability and release
 * holds from their own threads.
 */
public final class OffsetLedger {

    /** Per partition, the offset after the last record taken. */
    private final Map<TopicPartition, Long> taken = new HashMap<>();
    /** Per partition, the offset before which every record is durable. */
    private final Map<TopicPartition, Long> durable = new ConcurrentHashMap<>();
    /** Per ended epoch, the offsets taken by its end, until it is confirmed. */
    private final TreeMap<Long, Map<TopicPartition, Long>> ended = new TreeMap<>();
    /** Per hold, the first offset of each partition it holds back. */
    private final Map<Object, Map<TopicPartition, Long>> holds = new ConcurrentHashMap<>();
    private long epoch;
    private volatile DurableListener listener = (partition, upTo) -> { };

    /** Told each report of what is durable, from whichever thread makes it (the metrics count applied changes from it). */
    @FunctionalInterface
    public interface DurableListener {
        /** Every record of {@code partition} before {@code upTo} is durable. */
        void durable(TopicPartition partition, long upTo);
    }

    public void onDurable(DurableListener listener) {
        this.listener = listener;
    }

    /** A record was handled (written, given to a write, skipped or sent to the dead-letter queue). */
    public void taken(TopicPartition partition, long offset) {
        taken.put(partition, offset + 1);
    }

    /** The offset after the last record taken of a partition; -1 when none was. */
    public long nextAfterTaken(TopicPartition partition) {
        Long next = taken.get(partition);
        return next == null ? -1 : next;
    }

    /** A record is durable already (the target had it): it and every record before it in its partition. */
    public void durableAt(TopicPartition partition, long offset) {
        durable.merge(partition, offset + 1, Math::max);
        listener.durable(partition, offset + 1);
    }

    /** The offsets after the last records taken, to be {@link #markDurable marked durable} when the write that holds them commits. */
    public Map<TopicPartition, Long> takenSoFar() {
        return Map.copyOf(taken);
    }

    /** Every record before these offsets is durable. */
    public void markDurable(Map<TopicPartition, Long> upTo) {
        DurableListener told = listener;
        upTo.forEach((tp, offset) -> {
            durable.merge(tp, offset, Math::max);
            told.durable(tp, offset);
        });
    }

    /** Every record taken so far is durable (the sink waited for all its writes). */
    public void allTakenDurable() {
        markDurable(taken);
    }

    /** The epoch records taken now belong to; a write notes it when it gets its first record. */
    public long epoch() {
        return epoch;
    }

    /** Ends the current epoch, remembering what was taken by now; returns the epoch that begins. */
    public long endEpoch() {
        ended.put(epoch, new HashMap<>(taken));
        return ++epoch;
    }

    /**
     * The sink's report after {@link #endEpoch}: no record of an epoch before {@code oldestUnfinished}
     * is waiting for a write (the current epoch when none is), so what was taken by the end of
     * the epoch before it is durable.
     */
    public void confirmBefore(long oldestUnfinished) {
        Map.Entry<Long, Map<TopicPartition, Long>> confirmed = ended.floorEntry(oldestUnfinished - 1);
        if (confirmed != null) {
            markDurable(confirmed.getValue());
            ended.headMap(confirmed.getKey(), true).clear();
        }
    }

    /** Whether no epoch ended without being confirmed. */
    public boolean allEpochsConfirmed() {
        return ended.isEmpty();
    }

    /**
     * Holds a partition back at a record: nothing from its offset on is reported durable until
     * {@link #release}. Only a hold's first record per partition counts.
     */
    public void hold(Object hold, TopicPartition partition, long offset) {
        holds.computeIfAbsent(hold, h -> new ConcurrentHashMap<>()).putIfAbsent(partition, offset);
    }

    public void release(Object hold) {
        holds.remove(hold);
    }

    public void releaseAll() {
        holds.clear();
    }

    public boolean holds(Object hold) {
        return holds.containsKey(hold);
    }

    public boolean holdsNothing() {
        return holds.isEmpty();
    }

    /**
     * What Connect may commit of the offsets it would: each partition's, lowered to its durable
     * offset and to the first record any hold keeps; a partition with nothing durable is left out.
     */
    public Map<TopicPartition, OffsetAndMetadata> committable(Map<TopicPartition, OffsetAndMetadata> current) {
        Map<TopicPartition, OffsetAndMetadata> safe = new HashMap<>();
        current.forEach((tp, offered) -> {
            Long upTo = durable.get(tp);
            if (upTo == null) {
                return;
            }
            long limit = upTo;
            for (Map<TopicPartition, Long> held : holds.values()) {
                Long first = held.get(tp);
                if (first != null) {
                    limit = Math.min(limit, first);
                }
            }
            safe.put(tp, limit >= offered.offset() ? offered : new OffsetAndMetadata(limit, offered.metadata()));
        });
        return safe;
    }

    /** Forgets partitions taken away from the task. */
    public void forget(Iterable<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            taken.remove(tp);
            durable.remove(tp);
            for (Map<TopicPartition, Long> offsets : ended.values()) {
                offsets.remove(tp);
            }
        }
    }
}
