package io.sluice.sink.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The ledger against a simulated sink whose writes finish in any order. Invariants: whatever
 * the order records are taken, batched, sent, finished, held and released in, and whenever
 * Connect asks, no partition is reported past its first record that is not durable (safety);
 * once every write is finished and every hold released, one more ask reports every record
 * taken (liveness). Writes in order (one transaction after another, with skips between) obey
 * the same two.
 */
class OffsetLedgerProperties {

    private static final List<TopicPartition> PARTITIONS = List.of(new TopicPartition("t", 0), new TopicPartition("t", 1),
            new TopicPartition("u", 0));

    /** One step of the simulated sink; {@code pick} chooses among what the step may act on. */
    record Step(Kind kind, int partition, int pick) {
    }

    enum Kind { TAKE_INTO_WRITE, TAKE_INTO_NEW_WRITE, TAKE_HELD, TAKE_DURABLE, SEND, FINISH, RELEASE, ASK }

    @Provide
    Arbitrary<List<Step>> steps() {
        return Combinators.combine(Arbitraries.of(Kind.class), Arbitraries.integers().between(0, PARTITIONS.size() - 1),
                Arbitraries.integers().between(0, 1_000)).as(Step::new).list().ofMinSize(0).ofMaxSize(120);
    }

    @Property(tries = 2_000)
    void neverReportsARecordThatIsNotDurableAndReportsAllOnceEverythingIs(@ForAll("steps") List<Step> steps) {
        Sink sink = new Sink();
        for (Step step : steps) {
            sink.run(step);
        }
        sink.finishEverything();
        Map<TopicPartition, OffsetAndMetadata> reported = sink.ask();
        for (Map.Entry<TopicPartition, Long> taken : sink.nextOffset.entrySet()) {
            assertThat(reported.get(taken.getKey())).as("%s once everything is durable", taken.getKey())
                    .isEqualTo(new OffsetAndMetadata(taken.getValue()));
        }
    }

    @Property(tries = 1_000)
    void writesInOrderAreReportedWhenTheyCommitAndNotBefore(@ForAll @Size(max = 80) List<@net.jqwik.api.constraints.IntRange(
            min = 0, max = 9) Integer> steps) {
        OffsetLedger ledger = new OffsetLedger();
        Map<TopicPartition, Long> next = new HashMap<>();
        Map<TopicPartition, Long> firstPending = new HashMap<>(); // in the open transaction or the one committing
        Map<TopicPartition, Long> committing = null;
        Map<TopicPartition, Long> committingFirst = new HashMap<>();
        for (int step : steps) {
            TopicPartition tp = PARTITIONS.get(step % PARTITIONS.size());
            if (step < 5) { // a change taken into the open transaction
                long offset = next.merge(tp, 1L, Long::sum) - 1;
                ledger.taken(tp, offset);
                firstPending.putIfAbsent(tp, offset);
            } else if (step < 6) { // a change the target had: durable at once, when nothing of its partition waits
                if (!firstPending.containsKey(tp) && !committingFirst.containsKey(tp)) {
                    long offset = next.merge(tp, 1L, Long::sum) - 1;
                    ledger.taken(tp, offset);
                    ledger.durableAt(tp, offset);
                }
            } else if (step < 8 && committing == null) { // the open transaction starts committing
                committing = ledger.takenSoFar();
                committingFirst = firstPending;
                firstPending = new HashMap<>();
            } else if (step < 9 && committing != null) { // it commits
                ledger.markDurable(committing);
                committing = null;
                committingFirst = new HashMap<>();
            } else { // Connect asks
                Map<TopicPartition, OffsetAndMetadata> reported = ledger.committable(offers(next));
                for (Map.Entry<TopicPartition, OffsetAndMetadata> r : reported.entrySet()) {
                    long limit = Math.min(firstPending.getOrDefault(r.getKey(), Long.MAX_VALUE),
                            committingFirst.getOrDefault(r.getKey(), Long.MAX_VALUE));
                    assertThat(r.getValue().offset()).as("%s", r.getKey()).isLessThanOrEqualTo(limit);
                }
            }
        }
        if (committing != null) {
            ledger.markDurable(committing);
        }
        ledger.markDurable(ledger.takenSoFar());
        assertThat(ledger.committable(offers(next))).isEqualTo(offers(next));
    }

    private static Map<TopicPartition, OffsetAndMetadata> offers(Map<TopicPartition, Long> next) {
        Map<TopicPartition, OffsetAndMetadata> offers = new HashMap<>();
        next.forEach((tp, offset) -> offers.put(tp, new OffsetAndMetadata(offset)));
        return offers;
    }

    /** A write: records of any partitions, the epoch of its first, and where it is in its life. */
    private static final class Write {
        final long epoch;
        final Object hold;
        final List<TopicPartition> partitions = new ArrayList<>();
        final List<Long> offsets = new ArrayList<>();
        boolean sent;
        boolean finished;
        boolean released;

        Write(long epoch, Object hold) {
            this.epoch = epoch;
            this.hold = hold;
        }

        boolean durable() {
            return finished && (hold == null || released);
        }
    }

    /** A sink as the ledger's contract asks: it reports the oldest epoch of a write not finished. */
    private static final class Sink {
        final OffsetLedger ledger = new OffsetLedger();
        final Map<TopicPartition, Long> nextOffset = new HashMap<>();
        final List<Write> writes = new ArrayList<>();
        int holds;

        void run(Step step) {
            TopicPartition tp = PARTITIONS.get(step.partition());
            List<Write> open = writes.stream().filter(w -> !w.sent && w.hold == null).toList();
            switch (step.kind()) {
                case TAKE_INTO_WRITE -> take(tp, open.isEmpty() ? newWrite(null) : open.get(step.pick() % open.size()));
                case TAKE_INTO_NEW_WRITE -> take(tp, newWrite(null));
                case TAKE_HELD -> {
                    // A frozen load: its records are held from the first, and durable only when it is released.
                    List<Write> held = writes.stream().filter(w -> w.hold != null && !w.sent).toList();
                    Write write = held.isEmpty() || step.pick() % 3 == 0 ? newWrite("load " + holds++) : held.get(step.pick() % held.size());
                    ledger.hold(write.hold, tp, nextOffset.getOrDefault(tp, 0L));
                    take(tp, write);
                }
                case TAKE_DURABLE -> {
                    // The target had it (a replayed record below what it applied): only when nothing before it waits.
                    boolean waiting = writes.stream().anyMatch(w -> !w.durable() && w.partitions.contains(tp));
                    if (!waiting) {
                        long offset = nextOffset.merge(tp, 1L, Long::sum) - 1;
                        ledger.taken(tp, offset);
                        ledger.durableAt(tp, offset);
                    }
                }
                case SEND -> pick(writes.stream().filter(w -> !w.sent).toList(), step.pick()).ifPresent(w -> w.sent = true);
                case FINISH -> pick(writes.stream().filter(w -> w.sent && !w.finished).toList(), step.pick())
                        .ifPresent(w -> w.finished = true);
                case RELEASE -> pick(writes.stream().filter(w -> w.hold != null && w.finished && !w.released).toList(), step.pick())
                        .ifPresent(w -> {
                            w.released = true;
                            ledger.release(w.hold);
                        });
                case ASK -> checkSafe(ask());
            }
        }

        Write newWrite(Object hold) {
            Write write = new Write(ledger.epoch(), hold);
            writes.add(write);
            return write;
        }

        void take(TopicPartition tp, Write write) {
            long offset = nextOffset.merge(tp, 1L, Long::sum) - 1;
            write.partitions.add(tp);
            write.offsets.add(offset);
            ledger.taken(tp, offset);
        }

        Map<TopicPartition, OffsetAndMetadata> ask() {
            long begun = ledger.endEpoch();
            long oldest = writes.stream().filter(w -> !w.finished).mapToLong(w -> w.epoch).min().orElse(begun);
            ledger.confirmBefore(Math.min(oldest, begun));
            return ledger.committable(offers(nextOffset));
        }

        void checkSafe(Map<TopicPartition, OffsetAndMetadata> reported) {
            for (Map.Entry<TopicPartition, OffsetAndMetadata> r : reported.entrySet()) {
                long firstNotDurable = Long.MAX_VALUE;
                for (Write w : writes) {
                    if (!w.durable()) {
                        for (int i = 0; i < w.offsets.size(); i++) {
                            if (w.partitions.get(i).equals(r.getKey())) {
                                firstNotDurable = Math.min(firstNotDurable, w.offsets.get(i));
                            }
                        }
                    }
                }
                assertThat(r.getValue().offset()).as("%s reported while offset %d is not durable", r.getKey(), firstNotDurable)
                        .isLessThanOrEqualTo(firstNotDurable);
            }
        }

        void finishEverything() {
            for (Write w : writes) {
                w.sent = true;
                w.finished = true;
                if (w.hold != null && !w.released) {
                    w.released = true;
                    ledger.release(w.hold);
                }
            }
        }

        private static java.util.Optional<Write> pick(List<Write> candidates, int pick) {
            return candidates.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(candidates.get(pick % candidates.size()));
        }
    }
}
