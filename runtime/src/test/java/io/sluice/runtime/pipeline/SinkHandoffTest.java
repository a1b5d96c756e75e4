package io.sluice.runtime.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.debezium.engine.RecordChangeEvent;
import io.sluice.connector.postgres.PostgresSourceTask;
import io.sluice.runtime.progress.Progress;
import io.sluice.sink.core.connector.SendsInBackground;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The embedded runtime's hand-off from the engine to the sink thread: an offset is marked only
 * once the sink says its record is durable, older durable batches are marked while newer ones
 * are still being applied, the end of a burst is flushed and confirmed before the engine polls
 * again (or, by a sink that sends in the background, sent while the engine reads on, and
 * confirmed once durable), and a failing sink stops the engine. The sink here is a stand-in that says what is durable; the real
 * sink and the whole pipeline are proven against PostgreSQL by SluiceRunIT and SluiceKillIT.
 */
class SinkHandoffTest {

    private final StandInSink sink = new StandInSink();
    private final Committer committer = new Committer();
    private final StandInChanges changes = new StandInChanges();
    private SinkHandoff handoff;

    @AfterEach
    void close() {
        if (handoff != null) {
            handoff.close();
        }
    }

    @Test
    void aBurstsLastBatchIsDurableAndMarkedBeforeTheEnginePollsAgain() throws Exception {
        handoff = handoff();
        List<RecordChangeEvent<SourceRecord>> batch = changes(10);
        handoff.handleBatch(batch, committer);
        assertThat(committer.marked).containsExactly(batch.get(9).record());
        assertThat(committer.batchesFinished).isEqualTo(1);
        assertThat(sink.put).hasSize(10);
        assertThat(handoff.changesApplied()).isEqualTo(10);
    }

    @Test
    void olderBatchesAreMarkedWhileANewerOneIsStillBeingApplied() throws Exception {
        handoff = handoff();
        List<RecordChangeEvent<SourceRecord>> first = changes(PostgresSourceTask.MAX_BATCH);
        handoff.handleBatch(first, committer); // a full batch: the source has more, the engine goes on
        assertThat(sink.askedForDurable.await(10, TimeUnit.SECONDS)).isTrue();
        sink.blockPuts();
        List<RecordChangeEvent<SourceRecord>> second = changes(PostgresSourceTask.MAX_BATCH);
        handoff.handleBatch(second, committer);
        // The second batch is not durable yet, the first is: its last record is marked.
        assertThat(committer.marked).containsExactly(first.get(first.size() - 1).record());

        sink.unblockPuts();
        List<RecordChangeEvent<SourceRecord>> last = changes(3);
        handoff.handleBatch(last, committer);
        assertThat(committer.marked).endsWith(last.get(2).record());
        assertThat(sink.put).hasSize(2 * PostgresSourceTask.MAX_BATCH + 3);
    }

    @Test
    void nothingIsMarkedOrCountedThatTheSinkDoesNotCallDurable() throws Exception {
        sink.durable = offsets -> Map.of(); // e.g. its target transaction still running
        handoff = handoff();
        handoff.handleBatch(changes(PostgresSourceTask.MAX_BATCH), committer);
        assertThat(sink.askedForDurable.await(10, TimeUnit.SECONDS)).isTrue();
        handoff.handleBatch(changes(PostgresSourceTask.MAX_BATCH), committer);
        assertThat(committer.marked).isEmpty();
        assertThat(committer.batchesFinished).isZero();
        assertThat(handoff.changesApplied()).isZero();
    }

    @Test
    void aBurstEndingOnAFullBatchIsCommittedOnceTheIdleSinkHasAppliedIt() throws Exception {
        sink.durable = offsets -> Map.of(); // its target transaction still running when the batch is handed over
        handoff = handoff();
        List<RecordChangeEvent<SourceRecord>> full = changes(PostgresSourceTask.MAX_BATCH);
        handoff.handleBatch(full, committer); // the source has nothing more: the engine calls no handler again
        assertThat(sink.askedForDurable.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(committer.marked).isEmpty();
        sink.durable = offsets -> offsets; // the transaction committed
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (committer.batchesFinished == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        // Marked and the batch ended by the idle sink thread: the engine commits offsets only when a batch ends, and an idle
        // source gives it none to end.
        assertThat(committer.marked).containsExactly(full.get(full.size() - 1).record());
        assertThat(committer.batchesFinished).isEqualTo(1);
        assertThat(handoff.changesApplied()).isEqualTo(PostgresSourceTask.MAX_BATCH);
    }

    @Test
    void aSettlingBatchIsFlushedSoEverythingPutIsDurable() throws Exception {
        sink.durable = offsets -> Map.of(); // what preCommit would say before the sink's transaction commits
        handoff = handoff();
        List<RecordChangeEvent<SourceRecord>> full = changes(PostgresSourceTask.MAX_BATCH);
        handoff.handleBatch(full, committer);
        List<RecordChangeEvent<SourceRecord>> last = changes(2);
        handoff.handleBatch(last, committer);
        assertThat(sink.flushes).isEqualTo(1);
        assertThat(committer.marked).containsExactly(last.get(1).record());
        assertThat(handoff.changesApplied()).isEqualTo(PostgresSourceTask.MAX_BATCH + 2);
    }

    @Test
    void aSinkThatSendsInTheBackgroundWritesTheEndOfABurstWhileTheEngineReadsOn() throws Exception {
        BackgroundSink sink = new BackgroundSink();
        sink.durable = offsets -> Map.of(); // the target transaction is still running
        handoff = new SinkHandoff(sink, () -> 0L, new Progress(), 60_000);
        List<RecordChangeEvent<SourceRecord>> burst = changes(10);
        handoff.handleBatch(burst, committer); // returns while the sink is still sending
        assertThat(sink.sending.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
        assertThat(committer.marked).isEmpty();
        sink.sent.release();
        assertThat(sink.askedForDurable.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(committer.marked).isEmpty();
        assertThat(handoff.changesApplied()).isZero();

        sink.durable = offsets -> offsets; // the transaction committed: marked, and the batch ended, once the sink is idle
        awaitMarked(1);
        assertThat(committer.marked).containsExactly(burst.get(9).record());
        assertThat(handoff.changesApplied()).isEqualTo(10);

        // Durable by the time the sink has sent it: marked at once, though no more come.
        List<RecordChangeEvent<SourceRecord>> next = changes(5);
        handoff.handleBatch(next, committer);
        sink.sent.release();
        awaitMarked(2);
        assertThat(committer.marked).containsExactly(burst.get(9).record(), next.get(4).record());
        assertThat(handoff.changesApplied()).isEqualTo(15);
        assertThat(sink.flushes).isZero();
        assertThat(sink.put).hasSize(15);
    }

    @Test
    void batchesSentInTheBackgroundAreCommittedOffTheEnginesThreadWhileMoreCome() throws Exception {
        BackgroundSink sink = new BackgroundSink();
        sink.sent.release(Integer.MAX_VALUE / 2);
        handoff = new SinkHandoff(sink, () -> 0L, new Progress(), 60_000);
        List<RecordChangeEvent<SourceRecord>> first = changes(5);
        handoff.handleBatch(first, committer);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (handoff.changesApplied() < 5 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        // The next batch comes (as a rule before the sink is idle): the engine marks what is durable (the first batch, or
        // the second too if the sink was that quick), and the batch is ended, which commits offsets, by the offsets' own
        // thread: its fsyncs would hold up the engine's, which reads the source.
        List<RecordChangeEvent<SourceRecord>> second = changes(5);
        handoff.handleBatch(second, committer);
        assertThat(committer.marked).first().isIn(first.get(4).record(), second.get(4).record());
        awaitFinished(1);
        assertThat(committer.finishedOn).containsOnly("sluice-offsets");
    }

    @Test
    void aSinkStillBusyWithWhatItSentBeforeIsAskedAgainUntilItSendsTheRest() throws Exception {
        BackgroundSink sink = new BackgroundSink();
        sink.busy = 3; // the target transaction before is still being written
        sink.sent.release(Integer.MAX_VALUE / 2);
        handoff = new SinkHandoff(sink, () -> 0L, new Progress(), 60_000);
        List<RecordChangeEvent<SourceRecord>> burst = changes(4);
        handoff.handleBatch(burst, committer); // no more come: only the retries send it
        assertThat(sink.sending.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
        assertThat(sink.asked).isEqualTo(4);
        awaitMarked(1);
        assertThat(committer.marked).containsExactly(burst.get(3).record());
        assertThat(sink.flushes).isZero();
    }

    private void awaitFinished(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (committer.batchesFinished < count && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(committer.batchesFinished).isGreaterThanOrEqualTo(count);
    }

    private void awaitMarked(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (committer.marked.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    @Test
    void aFailingSinkStopsTheEngineWithItsError() throws Exception {
        sink.failure = new ConnectException("Applying 4096 changes to the target failed: disk full");
        handoff = handoff();
        handoff.handleBatch(changes(PostgresSourceTask.MAX_BATCH), committer); // not waited for: the failure comes later
        assertThatThrownBy(() -> {
            for (int i = 0; i < 100; i++) {
                handoff.handleBatch(changes(PostgresSourceTask.MAX_BATCH), committer);
            }
        }).isSameAs(sink.failure);
        assertThat(handoff.failure()).isSameAs(sink.failure);
        assertThat(committer.marked).isEmpty();
    }

    @Test
    void recordsATargetsTransformsDropAreConfirmedWithTheRecordsBeforeThem() throws Exception {
        // Filter drops every record whose value is a tombstone or whose key is odd (including the batch's last).
        TargetTransforms odd = TargetTransforms.of(Map.of("transforms", "even", "transforms.even.type",
                "org.apache.kafka.connect.transforms.Filter", "transforms.even.predicate", "odd", "predicates", "odd",
                "predicates.odd.type", OddKey.class.getName()));
        handoff = new SinkHandoff(sink, odd, () -> 0L, new Progress(), 60_000, "sluice-sink-test");
        List<RecordChangeEvent<SourceRecord>> batch = changes(9); // keys 100..900: odd hundreds dropped
        handoff.handleBatch(batch, committer);
        assertThat(sink.put).as("only what the transforms keep reaches the sink").hasSize(4);
        assertThat(committer.marked).as("the batch's last record, though dropped, is confirmed once the kept ones are durable")
                .containsExactly(batch.get(8).record());
        handoff.close();
        handoff = null;

        // A batch all of whose records are dropped is confirmed at once: this target holds nothing of it to wait for.
        Committer alone = new Committer();
        handoff = new SinkHandoff(new StandInSink(), TargetTransforms.of(Map.of("transforms", "none", "transforms.none.type",
                "org.apache.kafka.connect.transforms.Filter")), () -> 0L, new Progress(), 60_000, "sluice-sink-test");
        List<RecordChangeEvent<SourceRecord>> dropped = changes(3);
        handoff.handleBatch(dropped, alone);
        assertThat(alone.marked).containsExactly(dropped.get(2).record());
    }

    /** True for records whose key is an odd number of hundreds. */
    public static final class OddKey implements org.apache.kafka.connect.transforms.predicates.Predicate<SourceRecord> {
        @Override
        public boolean test(SourceRecord r) {
            return (((Struct) r.key()).getInt32("id") / 100) % 2 == 1;
        }

        @Override
        public org.apache.kafka.common.config.ConfigDef config() {
            return new org.apache.kafka.common.config.ConfigDef();
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }

        @Override
        public void close() {
        }
    }

    private SinkHandoff handoff() {
        return new SinkHandoff(sink, () -> 0L, new Progress(), 60_000);
    }

    /** Inserts of one source transaction each, in commit order. */
    private List<RecordChangeEvent<SourceRecord>> changes(int count) {
        return changes.next(count);
    }

    /** A stand-in that sends in the background: its sending waits until the test lets it go on. */
    private static final class BackgroundSink extends StandInSink implements SendsInBackground {
        final Semaphore sending = new Semaphore(0);
        final Semaphore sent = new Semaphore(0);
        /** How many more times the sink says it is still busy with what it sent before. */
        volatile int busy;
        volatile int asked;

        @Override
        public boolean sendNow() {
            asked++;
            if (busy > 0) {
                busy--;
                return false;
            }
            sending.release();
            try {
                sent.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        }
    }

}
