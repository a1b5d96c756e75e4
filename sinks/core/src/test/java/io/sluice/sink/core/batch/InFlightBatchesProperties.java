package io.sluice.sink.core.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.sluice.sink.core.ledger.OffsetLedger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The one writer every sink's batches go through, against writes that finish in any order (a
 * background thread lets them finish in a drawn order) and sometimes fail. Invariants: the
 * ledger is never told a batch's records are durable before that batch and every one sent
 * before it are written; once all are written (none failed), exactly what the last send or mark
 * said is durable, and the sink saw every outcome once, in the order sent; never more than the
 * allowed number are sent and not settled; with one thread, batches are written in the order
 * sent, and none sent after a failed one is written at all.
 */
class InFlightBatchesProperties {

    private static final TopicPartition P = new TopicPartition("t", 0);

    /** One step: send a batch (failing when its write is tried, if {@code fails}), or place a mark, or settle what finished. */
    record Step(Kind kind, boolean fails) {
    }

    enum Kind { SEND, MARK, SETTLE }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Kind> kinds = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, Arbitraries.just(Kind.SEND)),
                net.jqwik.api.Tuple.of(2, Arbitraries.just(Kind.MARK)), net.jqwik.api.Tuple.of(2, Arbitraries.just(Kind.SETTLE)));
        Arbitrary<Boolean> fails = Arbitraries.frequency(net.jqwik.api.Tuple.of(19, false), net.jqwik.api.Tuple.of(1, true));
        return Combinators.combine(kinds, fails).as(Step::new).list().ofMinSize(0).ofMaxSize(30);
    }

    @Property(tries = 300)
    void nothingIsMarkedDurableBeforeItAndEverythingBeforeItIsWritten(@ForAll("steps") List<Step> steps,
                                                                      @ForAll @IntRange(min = 1, max = 3) int threads,
                                                                      @ForAll @IntRange(min = 0, max = 2) int extraOutstanding,
                                                                      @ForAll long releaseSeed) throws Exception {
        int maxOutstanding = threads + extraOutstanding;
        OffsetLedger ledger = new OffsetLedger();
        int sends = (int) steps.stream().filter(s -> s.kind() == Kind.SEND).count();
        List<CountDownLatch> finish = new ArrayList<>();
        for (int i = 0; i < sends; i++) {
            finish.add(new CountDownLatch(1));
        }
        // What each batch's write did: written (true) or failed (false); absent while not begun or not done.
        Map<Integer, Boolean> done = new ConcurrentHashMap<>();
        List<Integer> begun = Collections.synchronizedList(new ArrayList<>());
        List<Integer> settled = new ArrayList<>();
        boolean[] failing = new boolean[sends];
        InFlightBatches<Integer, Integer> batches = new InFlightBatches<>("the test target", "test-write", threads, maxOutstanding,
                new TunedBatchSize("test", Optional.empty(), 1024), ledger, batch -> {
                    begun.add(batch);
                    finish.get(batch).await();
                    if (failing[batch]) {
                        done.put(batch, false);
                        throw new ConnectException("batch " + batch + " refused");
                    }
                    done.put(batch, true);
                    return batch;
                }, settled::add);
        // Among the writes begun and not yet let finish, the one first in a drawn order finishes next: with several
        // threads they finish in any order, with one in the order sent.
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < sends; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(releaseSeed));
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread releaser = new Thread(() -> {
            java.util.Set<Integer> released = new java.util.HashSet<>();
            while (released.size() < sends && !stop.get()) {
                List<Integer> running = List.copyOf(begun);
                order.stream().filter(b -> running.contains(b) && !released.contains(b)).findFirst().ifPresentOrElse(b -> {
                    released.add(b);
                    finish.get(b).countDown();
                }, Thread::onSpinWait);
            }
        });
        // Per batch, and per mark, what it says is durable: its place in the list of steps, plus one.
        List<long[]> promised = new ArrayList<>(); // {index of the last batch sent before or with it, offset}
        int sent = 0;
        Integer failed = null;
        try {
            releaser.start();
            for (int i = 0; i < steps.size(); i++) {
                Step step = steps.get(i);
                ledger.taken(P, i);
                try {
                    switch (step.kind()) {
                        case SEND -> {
                            failing[sent] = step.fails();
                            batches.send(sent, 1024, 100, TunedBatchSize.Closing.FULL, Map.of(P, (long) i + 1));
                            promised.add(new long[] {sent, i + 1});
                            sent++;
                            assertThat(batches.outstanding()).isLessThanOrEqualTo(maxOutstanding);
                        }
                        case MARK -> {
                            batches.durableOnceWritten(Map.of(P, (long) i + 1));
                            promised.add(new long[] {sent - 1, i + 1});
                        }
                        case SETTLE -> batches.settleFinished();
                    }
                } catch (ConnectException e) {
                    assertThat(e).hasMessageContaining("refused");
                    failed = failedBatch(done);
                    assertThat(failed).as("a failure was thrown, so a batch failed").isNotNull();
                    break;
                }
                assertSafe(ledger, promised, done);
            }
            if (failed == null) {
                try {
                    batches.awaitAll();
                } catch (ConnectException e) {
                    failed = failedBatch(done);
                    assertThat(failed).isNotNull();
                }
            }
            assertSafe(ledger, promised, done);
            if (failed == null) {
                long last = promised.isEmpty() ? 0 : promised.get(promised.size() - 1)[1];
                assertThat(durable(ledger)).as("every batch written: durable as far as the last said").isEqualTo(last);
                List<Integer> all = new ArrayList<>();
                for (int b = 0; b < sent; b++) {
                    all.add(b);
                }
                assertThat(settled).as("every outcome seen once, in the order sent").isEqualTo(all);
            } else {
                int first = failed;
                assertThatThrownBy(batches::throwIfFailed).as("the failure is kept").isInstanceOf(ConnectException.class);
                assertThat(settled).as("no outcome seen of a failed batch").doesNotContain(first);
                if (threads == 1) {
                    // With one thread the writes go in order: nothing after the failed batch is begun.
                    assertThat(List.copyOf(begun)).as("writes begun in order, none after a failure").isEqualTo(
                            java.util.stream.IntStream.rangeClosed(0, first).boxed().toList());
                }
            }
            if (threads == 1) {
                List<Integer> seen = List.copyOf(begun);
                for (int k = 1; k < seen.size(); k++) {
                    assertThat(seen.get(k)).as("one thread writes in the order sent").isGreaterThan(seen.get(k - 1));
                }
            }
        } finally {
            stop.set(true);
            finish.forEach(CountDownLatch::countDown);
            releaser.join(TimeUnit.SECONDS.toMillis(10));
            batches.close();
        }
    }

    /** The ledger never reports past what the longest prefix of batches, all written, promised. */
    private static void assertSafe(OffsetLedger ledger, List<long[]> promised, Map<Integer, Boolean> done) {
        long reported = durable(ledger);
        long allowed = 0;
        int writtenPrefix = 0;
        while (Boolean.TRUE.equals(done.get(writtenPrefix))) {
            writtenPrefix++;
        }
        for (long[] p : promised) {
            if (p[0] < writtenPrefix) {
                allowed = Math.max(allowed, p[1]);
            }
        }
        assertThat(reported).as("durable only once it and everything before it are written").isLessThanOrEqualTo(allowed);
    }

    private static Integer failedBatch(Map<Integer, Boolean> done) {
        return done.entrySet().stream().filter(e -> !e.getValue()).map(Map.Entry::getKey).min(Integer::compare).orElse(null);
    }

    private static long durable(OffsetLedger ledger) {
        OffsetAndMetadata reported = ledger.committable(Map.of(P, new OffsetAndMetadata(Long.MAX_VALUE))).get(P);
        return reported == null ? 0 : reported.offset();
    }
}
